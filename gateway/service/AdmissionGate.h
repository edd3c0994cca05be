#pragma once
// AdmissionGate: SPEC §8's checks at the start of a request, in order — the key breaker, the
// key's RPM and concurrency limits (waiting up to `key_limit_wait_s` for room), then balance and
// spend limit (reserving the request's estimate; in shared mode in the database, and a 503 when
// it does not answer). Every refusal is an ErrorReply in the OpenAI shape and is counted under a
// stable reason name. With shared limits (setSharedLimits) a key that has a limit is decided by
// them instead of the gateway's own KeyLimiter; while they cannot be asked and fail closed, the
// request gets a 503 with retry-after ("limits_unavailable"). Every answered request is to be
// logged (SPEC §10): while the store's request-log queue holds its bound (setRequestLogStore), a
// new request gets a 503 with retry-after before anything else is asked ("request_log_full"; the
// code is database_unavailable).
//
// Thread: the gateway thread. `done` is called exactly once — possibly from inside admit() —
// unless cancel(token) came first.
#include "billing/Money.h"
#include "config/Config.h"
#include "service/ErrorReply.h"
#include "service/GatewayState.h"
#include "limits/SharedKeyLimits.h"

#include <QObject>
#include <QTimer>
#include <functional>
#include <list>
#include <variant>

namespace sy::storage {
class Store;
}

namespace sy::service {

struct AdmissionTicket {
    limits::KeyLimiter::Permit permit;
    billing::ReservationId reservation = 0;
    qint64 waitedMs = 0;                   // time spent waiting for the key's limits
};

struct AdmissionRequest {
    quint64 token = 0;                     // identifies the request for cancel()
    config::Key key;
    QString primaryModel;
    int modelRequestsPerMinute = 0;
    billing::Nanos estimate = 0;
    std::chrono::milliseconds keyWait{2000};
};

// The key breaker's verdict on `keyName` (SPEC §8): a 403 for a disabled key, a 429 with
// retry-after for a suspended one (counted in state.refusals), nothing for a closed breaker.
// Checked once per request, before anything else about it.
std::optional<ErrorReply> breakerRefusal(GatewayState &state, const QString &keyName);

// Whether a refusal of admit() is evidence against the key for its breaker. The 503s of a shared
// database or limits server that does not answer are not: they are the gateway's own outage, and
// counting them would suspend (then disable) every busy key while the server restarts.
inline bool countsAgainstKey(const ErrorReply &refusal)
{
    return refusal.status != 503;
}

class AdmissionGate : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(std::variant<AdmissionTicket, ErrorReply> result)>;

    AdmissionGate(GatewayState &state, const Clock &clock, QObject *parent = nullptr);
    ~AdmissionGate() override;

    void admit(AdmissionRequest request, Done done);
    // Limits shared with other instances (null: this instance's own). `limits` must outlive the
    // gate and every ticket it handed out.
    void setSharedLimits(limits::SharedKeyLimits *limits);
    // The store whose request-log queue decides whether requests may still be admitted (null: no
    // store, none refused for this). `store` must outlive the gate or be replaced first.
    void setRequestLogStore(const storage::Store *store) { m_requestLog = store; }
    void cancel(quint64 token);
    int waiting() const { return int(m_waiters.size()); }

private:
    struct Waiter {
        AdmissionRequest request;
        Done done;
        Clock::TimePoint since;
        Clock::TimePoint deadline;
        std::unique_ptr<QTimer> timer;
        bool asking = false;               // a shared-limits answer is on its way
    };
    // One try: true when `waiter` got its answer (ticket or final refusal); false while it waits
    // for room or for the shared limits' answer.
    bool tryOnce(Waiter &waiter);
    // The rest of a try once the key's limits answered.
    bool settle(Waiter &waiter, std::variant<limits::KeyLimiter::Permit, limits::Refusal> acquired);
    void onSharedAnswer(quint64 token, limits::SharedOutcome outcome);
    void retryKey(const QString &keyName);
    // A released slot of `keyName` wakes its first waiter, later (we are inside the release);
    // nothing is posted when none waits, which is every request's release on an idle key.
    void wakeKey(const QString &keyName);
    void refuse(Waiter &waiter, ErrorReply reply, const char *reason);

    GatewayState &m_state;
    const Clock &m_clock;
    limits::SharedKeyLimits *m_shared = nullptr;
    const storage::Store *m_requestLog = nullptr;
    std::list<Waiter> m_waiters;           // FIFO per key, in arrival order
};

} // namespace sy::service
