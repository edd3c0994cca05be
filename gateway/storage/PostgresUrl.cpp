#include "storage/PostgresUrl.h"

#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

namespace sy::storage {

QString PostgresAddress::redacted() const
{
    return QStringLiteral("postgres://%1@%2:%3/%4").arg(user, host).arg(port).arg(database);
}

bool isPostgresUrl(const QString &text)
{
    return text.startsWith(QLatin1String("postgres://")) || text.startsWith(QLatin1String("postgresql://"));
}

std::variant<PostgresAddress, QString> parsePostgresUrl(const QString &text)
{
    if (!isPostgresUrl(text))
        return QStringLiteral("not a postgres:// address");
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return QStringLiteral("the PostgreSQL address is not of the form postgres://user:password@host:port/database");
    PostgresAddress address;
    address.host = url.host();
    address.port = url.port(5432);
    address.user = url.userName(QUrl::FullyDecoded);
    address.password = url.password(QUrl::FullyDecoded);
    address.database = url.path(QUrl::FullyDecoded).mid(1);
    if (address.user.isEmpty() || address.database.isEmpty() || address.database.contains(QLatin1Char('/')))
        return QStringLiteral("the PostgreSQL address %1 needs a user and a database name "
                              "(postgres://user:password@host:port/database)")
            .arg(address.redacted());
    int connectTimeoutSeconds = 5;
    QStringList options;
    for (const auto &[key, value] : QUrlQuery(url).queryItems(QUrl::FullyDecoded)) {
        bool ok = false;
        if (key == QLatin1String("reservation_lease_s")) {
            const int seconds = value.toInt(&ok);
            if (!ok || seconds < 1 || seconds > 3600)
                return QStringLiteral("reservation_lease_s in the PostgreSQL address must be 1 … 3600 seconds");
            address.reservationLease = std::chrono::seconds(seconds);
        } else if (key == QLatin1String("connect_timeout")) {
            connectTimeoutSeconds = value.toInt(&ok);
            if (!ok || connectTimeoutSeconds < 1 || connectTimeoutSeconds > 600)
                return QStringLiteral("connect_timeout in the PostgreSQL address must be 1 … 600 seconds");
        } else if (key == QLatin1String("sslmode") || key == QLatin1String("application_name")) {
            if (value.contains(QLatin1Char(';')) || value.contains(QLatin1Char(' ')))
                return QStringLiteral("%1 in the PostgreSQL address may not contain spaces or ';'").arg(key);
            options << key + QLatin1Char('=') + value;
        } else {
            return QStringLiteral("unknown option '%1' in the PostgreSQL address (known: reservation_lease_s, "
                                  "connect_timeout, sslmode, application_name)")
                .arg(key);
        }
    }
    // A server that stops answering (not a refused connection) must not hold a gateway for
    // minutes: unacknowledged data fails the connection after 10 s.
    options << QStringLiteral("connect_timeout=%1").arg(connectTimeoutSeconds) << QStringLiteral("tcp_user_timeout=10000");
    address.connectOptions = options.join(QLatin1Char(';'));
    return address;
}

} // namespace sy::storage
