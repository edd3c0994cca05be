#pragma once
// PostgresConnection: PostgresWorker's one connection to the server (Qt SQL, QPSQL driver) and
// its reconnection. A statement that fails is followed by check(): when the server no longer
// answers, the connection is dropped, and the next ensure() opens a new one, so a restarted
// server is picked up without restarting the gateway. After a failed attempt, ensure() refuses at
// once for kReconnectPause instead of waiting for the server again: a host that does not answer
// must not hold every request for connect_timeout. Internal to PostgresStore.
//
// Thread: the thread that owns it (the storage thread), after construction.
#include "storage/PostgresUrl.h"

#include <QSqlDatabase>
#include <QString>

#include <chrono>
#include <optional>

class QSqlError;

namespace sy::storage {

class PostgresConnection {
public:
    static constexpr std::chrono::milliseconds kReconnectPause{500};

    PostgresConnection(PostgresAddress address, std::chrono::milliseconds statementTimeout);
    ~PostgresConnection();
    PostgresConnection(const PostgresConnection &) = delete;
    PostgresConnection &operator=(const PostgresConnection &) = delete;

    // The first connection, at open (no pause): the server's refusal, or nothing. `db()` then
    // holds an open connection that is not yet counted as up: the caller migrates, then calls
    // markUp().
    std::optional<QString> open();
    void markUp() { m_up = true; }
    // Up, or connects now. Nothing when connected; else why not (empty while the pause lasts, so
    // that an outage is reported once per attempt, not at every call).
    std::optional<QString> ensure();
    // After a statement failed with `reason`: drops the connection when it no longer answers.
    void check(const QString &reason);
    void close();

    bool isUp() const { return m_up; }
    QSqlDatabase &db() { return m_db; }
    const PostgresAddress &address() const { return m_address; }

private:
    std::optional<QString> connect();
    void drop();

    const PostgresAddress m_address;
    const std::chrono::milliseconds m_statementTimeout;
    const QString m_name;  // Qt SQL's connection name, unique per instance
    QSqlDatabase m_db;
    bool m_up = false;
    std::optional<std::chrono::steady_clock::time_point> m_lastFailure;
};

// The server's own words when it gave any (libpq's message), else Qt's.
QString reasonOf(const QSqlError &error);

} // namespace sy::storage
