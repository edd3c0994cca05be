#pragma once
// PostgresServer: a throw-away PostgreSQL 15 server for tests, from Debian's postgresql-15
// (/usr/lib/postgresql/15/bin): initdb in a temporary directory, `postgres` on a free loopback
// port with its Unix socket in that directory, stopped (and the directory removed) on
// destruction. The superuser is kUser with password kPassword (password auth over TCP, trust on
// the private socket). initdb refuses root: when the tests run as root, the server runs as the
// unprivileged user `nobody` (runuser) and the directory is handed to it.
//
// Thread: one thread (the test's); every wait is bounded.
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <optional>

namespace sy::test {

class PostgresServer {
public:
    static constexpr char kUser[] = "switchyard";
    static constexpr char kPassword[] = "sy-test-password";

    // Why no server can be run here (the binaries are missing), empty when one can. A test
    // skips with this message (GTEST_SKIP) instead of failing.
    static QString unavailableReason();

    PostgresServer();
    ~PostgresServer();
    PostgresServer(const PostgresServer &) = delete;
    PostgresServer &operator=(const PostgresServer &) = delete;

    // initdb (once) and start; waits until the server accepts connections. False with error().
    bool start(std::chrono::milliseconds limit = std::chrono::seconds(30));
    // Fast shutdown (SIGINT: running transactions are rolled back, connections are cut).
    bool stop(std::chrono::milliseconds limit = std::chrono::seconds(20));
    bool isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

    // CREATE DATABASE `name` (through psql on the private socket). False with error().
    bool createDatabase(const QString &name);
    // Runs `sql` in database `name` through psql; the output (unaligned, tuples only, trimmed),
    // or nothing on failure (error() says why).
    std::optional<QString> psql(const QString &name, const QString &sql);

    // postgres://switchyard:PASSWORD@127.0.0.1:PORT/NAME
    QString url(const QString &name) const;
    quint16 port() const { return m_port; }
    const QString &error() const { return m_error; }
    // What the server printed (its log).
    QByteArray log() const;

private:
    bool initialize();
    // `program` from the PostgreSQL bin directory, as the server's user when we are root.
    bool run(const QString &program, const QStringList &arguments, QByteArray *output = nullptr,
             std::chrono::milliseconds limit = std::chrono::seconds(60));
    void launch(const QString &program, const QStringList &arguments, QProcess &process) const;

    QTemporaryDir m_dir;
    QString m_error;
    quint16 m_port = 0;
    bool m_initialized = false;
    std::unique_ptr<QProcess> m_process;
    QByteArray m_log;
};

} // namespace sy::test
