#pragma once
// NginxServer: a throw-away nginx from Debian's package (nginx-light) for the tests — one process
// (`master_process off`, `daemon off`) as the test's own user, its prefix, logs and temporary
// files in a temporary directory, on a free loopback port; stopped by stop() or the destructor.
// The test writes the `http { … }` block's contents; `@PORT@` is replaced by the chosen port and
// `@DIR@` by the temporary directory (e.g. for an access log the test then reads):
//
//     NginxServer nginx;
//     if (!NginxServer::available()) GTEST_SKIP() << NginxServer::missingMessage();
//     ASSERT_TRUE(nginx.start("server { listen 127.0.0.1:@PORT@; return 200; }")) << nginx.output().constData();
//
// Every wait is bounded and runs the test thread's event loop.
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <chrono>

namespace sy::test {

class NginxServer {
public:
    NginxServer() = default;
    ~NginxServer();
    NginxServer(const NginxServer &) = delete;
    NginxServer &operator=(const NginxServer &) = delete;

    // nginx on the PATH (or /usr/sbin); empty when not installed.
    static QString programPath();
    static bool available() { return !programPath().isEmpty(); }
    static QString missingMessage();

    // Writes the configuration around `httpBlock`, starts nginx and waits until the port accepts
    // connections. False when it did not come up (output() says why).
    bool start(const QByteArray &httpBlock, std::chrono::milliseconds limit = std::chrono::seconds(10));
    // SIGQUIT (graceful), then SIGKILL after a bounded wait.
    void stop();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    quint16 port() const { return m_port; }
    QString dir() const { return m_dir.path(); }
    // A file nginx wrote under dir(), e.g. "access.log"; empty when missing.
    QByteArray readFile(const QString &name) const;
    // Everything nginx printed, and its error log.
    QByteArray output() const;

private:
    bool launch(const QByteArray &httpBlock, quint16 port, std::chrono::milliseconds limit);

    QTemporaryDir m_dir;
    QProcess m_process;
    QByteArray m_output;
    quint16 m_port = 0;
};

} // namespace sy::test
