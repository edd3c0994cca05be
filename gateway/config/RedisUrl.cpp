#include "config/RedisUrl.h"

#include <QRegularExpression>
#include <QUrl>

namespace sy::config {

namespace {

// scheme, optional userinfo, host (name | [v6]), optional port, optional /db.
const QRegularExpression &shape()
{
    static const QRegularExpression re(QStringLiteral(
        "^redis://(?:([^:@/]*)(?::([^@/]*))?@)?(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(?::(\\d{1,5}))?(?:/(\\d{1,5})?)?$"));
    return re;
}

} // namespace

std::optional<RedisEndpoint> parseRedisUrl(const QString &url, QString *problem)
{
    auto fail = [problem](const QString &why) -> std::optional<RedisEndpoint> {
        if (problem)
            *problem = why;
        return std::nullopt;
    };
    const QRegularExpressionMatch m = shape().match(url);
    if (!m.hasMatch())
        return fail(QStringLiteral("expected redis://[:password@]host:port[/db], e.g. redis://127.0.0.1:6379/0"));
    RedisEndpoint endpoint;
    // "redis://secret@host" (no colon) is the password alone, as redis-cli reads it.
    if (!m.captured(2).isNull()) {
        endpoint.username = QUrl::fromPercentEncoding(m.captured(1).toUtf8());
        endpoint.password = QUrl::fromPercentEncoding(m.captured(2).toUtf8());
    } else {
        endpoint.password = QUrl::fromPercentEncoding(m.captured(1).toUtf8());
    }
    endpoint.host = m.captured(3);
    if (endpoint.host.startsWith(u'['))
        endpoint.host = endpoint.host.mid(1, endpoint.host.size() - 2);
    if (m.capturedLength(4) > 0) {
        endpoint.port = m.captured(4).toInt();
        if (endpoint.port < 1 || endpoint.port > 65535)
            return fail(QStringLiteral("the port must be between 1 and 65535"));
    }
    if (m.capturedLength(5) > 0) {
        endpoint.db = m.captured(5).toInt();
        if (endpoint.db > 15'999)
            return fail(QStringLiteral("the database number is too large"));
    }
    return endpoint;
}

QString redactedRedisUrl(const QString &url)
{
    static const QRegularExpression secret(QStringLiteral("^(redis://(?:[^:@/]*:)?)[^@/]+@"));
    QString out = url;
    out.replace(secret, QStringLiteral("\\1***@"));
    return out;
}

} // namespace sy::config
