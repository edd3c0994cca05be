#pragma once
// RedisSession: one blocking connection to Redis (libhiredis), for the thread that owns it —
// never the gateway thread (RedisKeyLimiter runs it on a worker thread; the start check runs it
// once with a short timeout). It connects on demand with AUTH and SELECT, bounds every connect
// and command by `timeout`, drops the connection on any I/O error, and waits `retryPause`
// before connecting again, so while Redis is down each call fails at once instead of waiting.
//
// Thread: the thread that created it, only.
#include "config/RedisUrl.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <chrono>
#include <optional>
#include <vector>

struct redisContext;

namespace sy::limits {

// A Redis reply, copied out of hiredis.
struct RedisReply {
    enum class Type { Nil, Integer, Text, Status, Error, Array };
    Type type = Type::Nil;
    qint64 integer = 0;
    QByteArray text;                 // Text, Status, Error (e.g. "NOAUTH Authentication required.")
    std::vector<RedisReply> elements;

    bool isError() const { return type == Type::Error; }
};

class RedisSession {
public:
    RedisSession(config::RedisEndpoint endpoint, std::chrono::milliseconds timeout,
                 std::chrono::milliseconds retryPause);
    ~RedisSession();
    RedisSession(const RedisSession &) = delete;
    RedisSession &operator=(const RedisSession &) = delete;

    // Connects (with AUTH and SELECT) unless connected. False with the reason in lastError():
    // the connection's error, or Redis's own answer to AUTH/SELECT (NOAUTH, WRONGPASS …).
    bool ensureConnected();
    // Runs one command; nothing when there is no connection or the exchange failed (the
    // connection is dropped; lastError() says why). A Redis error reply is a reply.
    std::optional<RedisReply> command(const QList<QByteArray> &argv);
    // EVALSHA of `script` (its SHA-1 computed here), falling back to EVAL when Redis does not
    // have it cached yet (NOSCRIPT).
    std::optional<RedisReply> eval(const QByteArray &script, const QList<QByteArray> &keys,
                                   const QList<QByteArray> &args);

    bool isConnected() const { return m_context != nullptr; }
    QString lastError() const { return m_lastError; }
    // Whether the last failure was Redis refusing our credentials (not a network fault).
    bool lastErrorIsAuth() const { return m_authError; }

private:
    void drop(const QString &why);

    config::RedisEndpoint m_endpoint;
    std::chrono::milliseconds m_timeout;
    std::chrono::milliseconds m_retryPause;
    redisContext *m_context = nullptr;
    std::chrono::steady_clock::time_point m_nextAttempt{};
    QString m_lastError;
    bool m_authError = false;
};

// Start check: connects once, authenticates and PINGs. Empty when Redis answers; otherwise what
// went wrong in Redis's own words with what to do (the password is never in it). `unreachable`
// tells a network failure (the gateway may start and retry) from a refusal of the credentials.
QString checkRedisAccess(const config::RedisEndpoint &endpoint, std::chrono::milliseconds timeout,
                         bool *unreachable = nullptr);

} // namespace sy::limits
