#pragma once
// RedisKeyLimiter: per-key RPM and concurrency shared by every gateway instance through one Redis
// (docs/scale-out.md#redis-limits-across-instances). Each admission is one Lua script on the server (RedisScripts.h):
// the RPM windows are sorted sets of admission times, exact across instances; a concurrency slot
// is a member leased until now + lease and renewed every lease / 3 while its request runs, so a
// dead instance's slots come back within one lease.
//
// Redis is only spoken to on a worker thread (a blocking RedisSession with short timeouts), so the
// gateway thread never waits on the network; answers come back as queued calls. While Redis
// cannot be reached, admission either falls back to this instance's own KeyLimiter
// (`failClosed` false) or answers Unavailable. A released slot whose ZREM cannot reach Redis is
// reclaimed by its lease.
//
// Thread: create, use and destroy on the gateway thread. Permits must be released before the
// limiter is destroyed (the destructor still sends what is queued, bounded by the timeouts).
#include "config/RedisUrl.h"
#include "limits/SharedKeyLimits.h"

#include <QHash>
#include <QObject>
#include <QThread>
#include <QTimer>
#include <memory>

namespace sy::limits {

class RedisSession;

class RedisKeyLimiter : public QObject, public SharedKeyLimits, public PermitOwner {
    Q_OBJECT
public:
    struct Options {
        config::RedisEndpoint endpoint;
        std::chrono::milliseconds lease{30'000};
        bool failClosed = false;
        QByteArray instanceId;                       // unique per running instance (slot owner)
        std::chrono::milliseconds timeout{500};      // connect and each command
        std::chrono::milliseconds retryPause{500};   // between connection attempts while down
    };

    // `local` (the gateway's own limiter) decides while Redis is unreachable and failClosed is
    // false; it must outlive this limiter.
    RedisKeyLimiter(Options options, KeyLimiter &local, QObject *parent = nullptr);
    ~RedisKeyLimiter() override;

    void tryAcquire(const QString &keyName, const KeyLimits &limits, const QString &primaryModel,
                    int modelRequestsPerMinute, Done done) override;
    void setOnRelease(std::function<void(const QString &keyName)> callback) override;
    bool isReachable() const override { return m_reachable; }

    // Slots this instance holds in Redis now.
    int heldSlots() const { return int(m_held.size()); }
    // Admissions decided by the local limiter (or refused with 503) because Redis was unreachable.
    quint64 unreachableDecisions() const { return m_unreachableDecisions; }

private:
    struct Held {
        QString keyName;
        QByteArray member;
    };
    struct Answer {
        bool reached = false;
        QString why;                 // when not reached
        bool admitted = false;
        QByteArray reason;           // refusal reason
        qint64 retryAfterMs = 0;
    };

    void releasePermit(const QString &keyName, quint64 slot) override;
    void post(std::function<void(RedisSession &session)> job);
    void onAnswer(const QString &keyName, const KeyLimits &limits, const QString &primaryModel,
                  int modelRequestsPerMinute, quint64 slot, const QByteArray &member, const Answer &answer, const Done &done);
    void noteReachable(bool reachable, const QString &why);
    void renewLeases();

    Options m_options;
    KeyLimiter &m_local;
    QThread m_thread;
    QObject *m_worker = nullptr;                // lives on m_thread
    std::shared_ptr<RedisSession> m_session;    // used only by jobs on m_thread
    QHash<quint64, Held> m_held;                // by slot id
    quint64 m_nextSlot = 0;
    QTimer m_renewTimer;
    bool m_reachable = true;
    quint64 m_unreachableDecisions = 0;
    std::function<void(const QString &)> m_onRelease;
};

// Redis key names of a gateway key's windows and slots (exposed for tests).
QByteArray redisKeyWindow(const QString &keyName);
QByteArray redisModelWindow(const QString &keyName, const QString &primaryModel);
QByteArray redisKeySlots(const QString &keyName);

} // namespace sy::limits
