#include "storage/PostgresConnection.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>
#include <utility>

Q_DECLARE_LOGGING_CATEGORY(lcPostgres)

namespace sy::storage {

namespace {

constexpr char kDriver[] = "QPSQL";

QString uniqueConnectionName()
{
    static std::atomic<quint64> counter{0};
    return QStringLiteral("switchyard-postgres-%1").arg(counter.fetch_add(1) + 1);
}

} // namespace

QString reasonOf(const QSqlError &error)
{
    const QString server = error.databaseText().simplified();
    return server.isEmpty() ? error.text().simplified() : server;
}

PostgresConnection::PostgresConnection(PostgresAddress address, std::chrono::milliseconds statementTimeout)
    : m_address(std::move(address)), m_statementTimeout(statementTimeout), m_name(uniqueConnectionName())
{
}

PostgresConnection::~PostgresConnection()
{
    close();
}

std::optional<QString> PostgresConnection::connect()
{
    m_db = QSqlDatabase::addDatabase(QLatin1String(kDriver), m_name);
    if (!m_db.isValid())
        return QStringLiteral("the PostgreSQL driver of Qt SQL (QPSQL, Debian package libqt6sql6-psql) is not installed");
    m_db.setHostName(m_address.host);
    m_db.setPort(m_address.port);
    m_db.setUserName(m_address.user);
    m_db.setPassword(m_address.password);
    m_db.setDatabaseName(m_address.database);
    m_db.setConnectOptions(m_address.connectOptions);
    if (!m_db.open())
        return reasonOf(m_db.lastError());
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SET statement_timeout = %1").arg(m_statementTimeout.count()))
        || !query.exec(QStringLiteral("SET client_min_messages = warning")))
        return reasonOf(query.lastError());
    return std::nullopt;
}

std::optional<QString> PostgresConnection::open()
{
    std::optional<QString> error = connect();
    if (error)
        drop();
    return error;
}

std::optional<QString> PostgresConnection::ensure()
{
    if (m_up)
        return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (m_lastFailure && now - *m_lastFailure < kReconnectPause)
        return QString();
    drop();
    if (std::optional<QString> error = connect()) {
        m_lastFailure = now;
        drop();
        return QStringLiteral("cannot connect to PostgreSQL at %1: %2").arg(m_address.redacted(), *error);
    }
    m_lastFailure.reset();
    m_up = true;
    qCInfo(lcPostgres).noquote() << "connected again to" << m_address.redacted();
    return std::nullopt;
}

void PostgresConnection::check(const QString &reason)
{
    if (!m_up)
        return;
    // The statement may have failed on its own (a constraint, the statement timeout) on a
    // connection that is fine: only one that no longer answers is dropped.
    {
        QSqlQuery probe(m_db);
        if (probe.exec(QStringLiteral("SELECT 1")))
            return;
    }
    qCWarning(lcPostgres).noquote() << "lost the connection to" << m_address.redacted() << ":" << reason;
    m_up = false;
    drop();
}

void PostgresConnection::close()
{
    m_up = false;
    drop();
}

void PostgresConnection::drop()
{
    if (m_db.isValid())
        m_db.close();
    m_db = QSqlDatabase();
    if (QSqlDatabase::contains(m_name))
        QSqlDatabase::removeDatabase(m_name);
}

} // namespace sy::storage
