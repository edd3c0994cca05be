#include "limits/RedisKeyLimiter.h"

#include "limits/RedisScripts.h"
#include "limits/RedisSession.h"

#include <QLoggingCategory>
#include <QMetaObject>

namespace sy::limits {

Q_LOGGING_CATEGORY(lcRedisLimits, "switchyard.limits.redis")

namespace {

// Percent-encoded, so no key name or model id can produce another's Redis key.
QByteArray part(const QString &text)
{
    return text.toUtf8().toPercentEncoding();
}

} // namespace

QByteArray redisKeyWindow(const QString &keyName)
{
    return "switchyard:key:" + part(keyName) + ":rpm";
}

QByteArray redisModelWindow(const QString &keyName, const QString &primaryModel)
{
    return "switchyard:key:" + part(keyName) + ":model:" + part(primaryModel) + ":rpm";
}

QByteArray redisKeySlots(const QString &keyName)
{
    return "switchyard:key:" + part(keyName) + ":slots";
}

RedisKeyLimiter::RedisKeyLimiter(Options options, KeyLimiter &local, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_local(local)
    , m_session(std::make_shared<RedisSession>(m_options.endpoint, m_options.timeout, m_options.retryPause))
{
    m_thread.setObjectName(QStringLiteral("redis-limits"));
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
    m_renewTimer.setInterval(std::max<std::chrono::milliseconds>(std::chrono::milliseconds(200), m_options.lease / 3));
    connect(&m_renewTimer, &QTimer::timeout, this, &RedisKeyLimiter::renewLeases);
    m_renewTimer.start();
}

RedisKeyLimiter::~RedisKeyLimiter()
{
    m_renewTimer.stop();
    // Jobs run in order: this one ends the thread after every release queued before it.
    QMetaObject::invokeMethod(m_worker, [] { QThread::currentThread()->quit(); }, Qt::QueuedConnection);
    if (!m_thread.wait(std::chrono::milliseconds(5000).count())) {
        qCWarning(lcRedisLimits) << "Redis worker did not finish in time; terminating it";
        m_thread.terminate();
        m_thread.wait();
    }
    // m_worker was deleted by deleteLater when the thread finished; answers still queued for
    // this object are dropped with it.
}

void RedisKeyLimiter::post(std::function<void(RedisSession &session)> job)
{
    QMetaObject::invokeMethod(m_worker, [session = m_session, job = std::move(job)] { job(*session); }, Qt::QueuedConnection);
}

void RedisKeyLimiter::setOnRelease(std::function<void(const QString &keyName)> callback)
{
    m_onRelease = std::move(callback);
}

void RedisKeyLimiter::tryAcquire(const QString &keyName, const KeyLimits &limits, const QString &primaryModel,
                                 int modelRequestsPerMinute, Done done)
{
    const quint64 slot = ++m_nextSlot;
    const QByteArray member = m_options.instanceId + ':' + QByteArray::number(slot);
    const QList<QByteArray> keys{redisKeyWindow(keyName), redisModelWindow(keyName, primaryModel), redisKeySlots(keyName)};
    const QList<QByteArray> args{QByteArray::number(std::max(0, limits.requestsPerMinute)),
                                 QByteArray::number(std::max(0, modelRequestsPerMinute)),
                                 QByteArray::number(std::max(0, limits.maxConcurrent)), member,
                                 QByteArray::number(qint64(m_options.lease.count()))};
    post([this, keys, args, keyName, limits, primaryModel, modelRequestsPerMinute, slot, member,
          done = std::move(done)](RedisSession &session) {
        Answer answer;
        const std::optional<RedisReply> reply = session.eval(redis_scripts::kAcquire, keys, args);
        if (!reply) {
            answer.why = session.lastError();
        } else if (reply->isError() || reply->elements.size() != 3) {
            answer.why = QStringLiteral("Redis answered the admission script with: %1").arg(QString::fromUtf8(reply->text));
        } else {
            answer.reached = true;
            answer.admitted = reply->elements[0].integer == 1;
            answer.reason = reply->elements[1].text;
            answer.retryAfterMs = reply->elements[2].integer;
        }
        QMetaObject::invokeMethod(this, [=, this] {
            onAnswer(keyName, limits, primaryModel, modelRequestsPerMinute, slot, member, answer, done);
        }, Qt::QueuedConnection);
    });
}

void RedisKeyLimiter::onAnswer(const QString &keyName, const KeyLimits &limits, const QString &primaryModel,
                               int modelRequestsPerMinute, quint64 slot, const QByteArray &member, const Answer &answer,
                               const Done &done)
{
    noteReachable(answer.reached, answer.why);
    if (!answer.reached) {
        ++m_unreachableDecisions;
        if (m_options.failClosed)
            return done(Unavailable{std::chrono::milliseconds(1000), QStringLiteral("the shared limit store is unreachable")});
        auto local = m_local.tryAcquire(keyName, limits, primaryModel, modelRequestsPerMinute);
        if (auto *refusal = std::get_if<Refusal>(&local))
            return done(std::move(*refusal));
        return done(std::get<KeyLimiter::Permit>(std::move(local)));
    }
    if (!answer.admitted)
        return done(Refusal{std::chrono::milliseconds(answer.retryAfterMs), answer.reason});
    if (limits.maxConcurrent > 0) {
        m_held.insert(slot, Held{keyName, member});
        return done(KeyLimiter::Permit(this, keyName, slot));
    }
    done(KeyLimiter::Permit(this, keyName, 0));
}

void RedisKeyLimiter::releasePermit(const QString &keyName, quint64 slot)
{
    if (slot != 0) {
        const auto it = m_held.find(slot);
        if (it != m_held.end()) {
            const QByteArray slotsKey = redisKeySlots(keyName);
            const QByteArray member = it->member;
            m_held.erase(it);
            post([slotsKey, member](RedisSession &session) { session.command({"ZREM", slotsKey, member}); });
        }
    }
    // A copy, so a callback that replaces the callback does not destroy the function it runs in.
    if (const auto callback = m_onRelease)
        callback(keyName);
}

void RedisKeyLimiter::renewLeases()
{
    QHash<QString, QList<QByteArray>> byKey;
    for (const Held &held : std::as_const(m_held))
        byKey[held.keyName].append(held.member);
    for (auto it = byKey.cbegin(); it != byKey.cend(); ++it) {
        QList<QByteArray> args{QByteArray::number(qint64(m_options.lease.count()))};
        args += it.value();
        const QList<QByteArray> keys{redisKeySlots(it.key())};
        post([this, keys, args](RedisSession &session) {
            const std::optional<RedisReply> reply = session.eval(redis_scripts::kRenew, keys, args);
            const bool reached = reply && !reply->isError();
            const QString why = reached ? QString() : session.lastError();
            QMetaObject::invokeMethod(this, [this, reached, why] { noteReachable(reached, why); }, Qt::QueuedConnection);
        });
    }
}

void RedisKeyLimiter::noteReachable(bool reachable, const QString &why)
{
    if (reachable == m_reachable)
        return;
    m_reachable = reachable;
    if (reachable)
        qCInfo(lcRedisLimits) << "Redis reachable again: key limits are shared across instances";
    else
        qCWarning(lcRedisLimits).noquote() << why << (m_options.failClosed
            ? "- requests of keys with limits get 503 until Redis answers"
            : "- each instance applies the key limits on its own until Redis answers");
}

} // namespace sy::limits
