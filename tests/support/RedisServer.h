#pragma once
// RedisServer: a throw-away redis-server from Debian's package for the tests — started as the
// test's own user in a temporary directory on a free loopback port, with no persistence
// (`--save ''`, no AOF) and optionally a password; stopped (SIGTERM, then SIGKILL) by stop() or
// the destructor. A test that needs it skips with a clear message when the binary is missing:
//
//     RedisServer redis;
//     if (!RedisServer::available()) GTEST_SKIP() << RedisServer::missingMessage();
//     ASSERT_TRUE(redis.start()) << redis.output().constData();
//
// Every wait is bounded and runs the test thread's event loop.
#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <chrono>

namespace sy::test {

class RedisServer {
public:
    RedisServer() = default;
    ~RedisServer();
    RedisServer(const RedisServer &) = delete;
    RedisServer &operator=(const RedisServer &) = delete;

    // redis-server on the PATH (or /usr/bin, /usr/sbin); empty when not installed.
    static QString programPath();
    static bool available() { return !programPath().isEmpty(); }
    static QString missingMessage();

    // Starts on a free port (or `port` again after stop(), so clients can reconnect) and waits
    // until it answers PING. `password` non-empty: --requirepass. False when it did not come up.
    bool start(const QByteArray &password = {}, quint16 port = 0,
               std::chrono::milliseconds limit = std::chrono::seconds(10));
    // SIGTERM and a bounded wait (SIGKILL after it). The port stays reserved for start(pw, port()).
    void stop();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    quint16 port() const { return m_port; }
    // "redis://[:password@]127.0.0.1:PORT/0"; `password` overrides the server's (may be empty).
    QString url() const;
    QString urlWithPassword(const QByteArray &password) const;
    // One command over a fresh connection (RESP), the raw reply line(s); empty when it failed.
    QByteArray command(const QList<QByteArray> &argv, std::chrono::milliseconds limit = std::chrono::seconds(3)) const;
    // Everything the server printed.
    QByteArray output() const { return m_output; }

private:
    bool launch(quint16 port, std::chrono::milliseconds limit);

    QTemporaryDir m_dir;
    QProcess m_process;
    QByteArray m_password;
    QByteArray m_output;
    quint16 m_port = 0;
};

} // namespace sy::test
