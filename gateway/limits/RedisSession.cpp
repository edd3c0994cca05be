#include "limits/RedisSession.h"

#include <QCryptographicHash>

#include <cerrno>
#include <hiredis/hiredis.h>

namespace sy::limits {

namespace {

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = ms.count() / 1000;
    tv.tv_usec = (ms.count() % 1000) * 1000;
    return tv;
}

RedisReply copyReply(const redisReply *reply)
{
    RedisReply out;
    switch (reply->type) {
    case REDIS_REPLY_INTEGER:
        out.type = RedisReply::Type::Integer;
        out.integer = reply->integer;
        break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        out.type = reply->type == REDIS_REPLY_STRING ? RedisReply::Type::Text
            : reply->type == REDIS_REPLY_STATUS      ? RedisReply::Type::Status
                                                     : RedisReply::Type::Error;
        out.text = QByteArray(reply->str, qsizetype(reply->len));
        break;
    case REDIS_REPLY_ARRAY:
        out.type = RedisReply::Type::Array;
        for (size_t i = 0; i < reply->elements; ++i)
            out.elements.push_back(copyReply(reply->element[i]));
        break;
    default:
        break;
    }
    return out;
}

bool isAuthRefusal(const QByteArray &error)
{
    return error.startsWith("NOAUTH") || error.startsWith("WRONGPASS") || error.startsWith("ERR invalid password")
        || error.startsWith("ERR AUTH") || error.startsWith("NOPERM");
}

} // namespace

RedisSession::RedisSession(config::RedisEndpoint endpoint, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds retryPause)
    : m_endpoint(std::move(endpoint))
    , m_timeout(timeout)
    , m_retryPause(retryPause)
{
}

RedisSession::~RedisSession()
{
    if (m_context)
        redisFree(m_context);
}

void RedisSession::drop(const QString &why)
{
    if (m_context) {
        redisFree(m_context);
        m_context = nullptr;
    }
    m_lastError = why;
    m_nextAttempt = std::chrono::steady_clock::now() + m_retryPause;
}

bool RedisSession::ensureConnected()
{
    if (m_context)
        return true;
    if (std::chrono::steady_clock::now() < m_nextAttempt)
        return false;  // lastError() still says why the last attempt failed
    m_authError = false;
    const QByteArray host = m_endpoint.host.toUtf8();
    redisContext *context = redisConnectWithTimeout(host.constData(), m_endpoint.port, toTimeval(m_timeout));
    if (!context || context->err) {
        const QString why = context ? QString::fromUtf8(context->errstr) : QStringLiteral("out of memory");
        if (context)
            redisFree(context);
        drop(QStringLiteral("cannot connect to Redis at %1:%2: %3").arg(m_endpoint.host).arg(m_endpoint.port).arg(why));
        return false;
    }
    redisSetTimeout(context, toTimeval(m_timeout));
    m_context = context;
    // AUTH, then SELECT; PING proves the server serves us (a server with a password answers
    // NOAUTH to anything else).
    QList<QList<QByteArray>> hello;
    if (!m_endpoint.password.isEmpty()) {
        if (m_endpoint.username.isEmpty())
            hello.append({"AUTH", m_endpoint.password.toUtf8()});
        else
            hello.append({"AUTH", m_endpoint.username.toUtf8(), m_endpoint.password.toUtf8()});
    }
    if (m_endpoint.db != 0)
        hello.append({"SELECT", QByteArray::number(m_endpoint.db)});
    hello.append({"PING"});
    for (const QList<QByteArray> &argv : std::as_const(hello)) {
        const std::optional<RedisReply> reply = command(argv);
        if (!reply)
            return false;
        if (reply->isError()) {
            m_authError = isAuthRefusal(reply->text);
            drop(QStringLiteral("Redis at %1:%2 refused %3: %4")
                     .arg(m_endpoint.host).arg(m_endpoint.port).arg(QString::fromLatin1(argv.front()), QString::fromUtf8(reply->text)));
            return false;
        }
    }
    m_lastError.clear();
    return true;
}

std::optional<RedisReply> RedisSession::command(const QList<QByteArray> &argv)
{
    if (!m_context && !ensureConnected())
        return std::nullopt;
    std::vector<const char *> parts;
    std::vector<size_t> lengths;
    for (const QByteArray &arg : argv) {
        parts.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    auto *reply = static_cast<redisReply *>(redisCommandArgv(m_context, int(parts.size()), parts.data(), lengths.data()));
    if (!reply) {
        drop(QStringLiteral("Redis at %1:%2 did not answer: %3")
                 .arg(m_endpoint.host).arg(m_endpoint.port)
                 .arg(m_context->err == REDIS_ERR_IO && errno == EAGAIN ? QStringLiteral("timed out")
                                                                       : QString::fromUtf8(m_context->errstr)));
        return std::nullopt;
    }
    RedisReply out = copyReply(reply);
    freeReplyObject(reply);
    return out;
}

std::optional<RedisReply> RedisSession::eval(const QByteArray &script, const QList<QByteArray> &keys,
                                             const QList<QByteArray> &args)
{
    const QByteArray sha = QCryptographicHash::hash(script, QCryptographicHash::Sha1).toHex();
    QList<QByteArray> argv{"EVALSHA", sha, QByteArray::number(keys.size())};
    argv += keys;
    argv += args;
    std::optional<RedisReply> reply = command(argv);
    if (reply && reply->isError() && reply->text.startsWith("NOSCRIPT")) {
        argv[0] = "EVAL";
        argv[1] = script;  // EVAL also caches the script, so the next EVALSHA finds it
        reply = command(argv);
    }
    return reply;
}

QString checkRedisAccess(const config::RedisEndpoint &endpoint, std::chrono::milliseconds timeout, bool *unreachable)
{
    RedisSession session(endpoint, timeout, std::chrono::milliseconds(0));
    if (unreachable)
        *unreachable = false;
    if (session.ensureConnected())
        return {};
    if (session.lastErrorIsAuth()) {
        const QString advice = endpoint.password.isEmpty()
            ? QStringLiteral("This Redis needs a password: give it in the URL, e.g. redis://:PASSWORD@%1:%2 "
                             "(or redis://:${REDIS_PASSWORD}@… to take it from the environment).")
                  .arg(endpoint.host).arg(endpoint.port)
            : QStringLiteral("Check the password (and user) in `redis` against the server's requirepass or ACL.");
        return session.lastError() + QStringLiteral("\n") + advice;
    }
    if (unreachable)
        *unreachable = true;
    return session.lastError();
}

} // namespace sy::limits
