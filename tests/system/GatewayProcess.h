#pragma once
// GatewayProcess: the real switchyard-gateway program as a child process (QProcess), started
// with --config, --database and --listen 127.0.0.1:0; the port is read from its
// "switchyard-gateway listening on http://127.0.0.1:PORT" line. Everything it prints is kept.
// Every wait is bounded and runs the test thread's event loop, so a SimServer in the test
// process keeps answering the gateway's upstream calls meanwhile.
#include <QProcess>
#include <QString>
#include <chrono>

namespace sy::system_test {

class GatewayProcess {
public:
    GatewayProcess();
    ~GatewayProcess();  // kills a gateway still running

    // The --listen address of the next start (default 127.0.0.1:0, any free port).
    void setListen(const QString &hostPort) { m_listen = hostPort; }

    // $SWITCHYARD_BUILD_DIR/gateway/cli/switchyard-gateway (empty when the variable is unset).
    static QString programPath();

    // Starts the program and waits for its "listening on" line. False when it exited first or
    // the wait ran out (exitCode() and output() then say why).
    bool start(const QString &configPath, const QString &databasePath,
               std::chrono::milliseconds limit = std::chrono::seconds(10));
    // Starts the program and waits (bounded) for it to exit. False when it did not.
    bool runToExit(const QString &configPath, const QString &databasePath,
                   std::chrono::milliseconds limit = std::chrono::seconds(10));

    // SIGTERM, then waits for a clean exit. False when it did not exit in time.
    bool terminate(std::chrono::milliseconds limit = std::chrono::seconds(10));
    // SIGKILL: the process dies at once, mid-whatever-it-was-doing.
    void killHard();

    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    quint16 port() const { return m_port; }
    int exitCode() const { return m_process.exitCode(); }
    QProcess::ExitStatus exitStatus() const { return m_process.exitStatus(); }
    // Everything printed so far, both streams together, and each alone.
    QByteArray output() const { return m_stdout + m_stderr; }
    QByteArray standardOutput() const { return m_stdout; }
    QByteArray standardError() const { return m_stderr; }

private:
    void launch(const QString &configPath, const QString &databasePath);
    bool waitForExit(std::chrono::milliseconds limit);

    QProcess m_process;
    QByteArray m_stdout;
    QByteArray m_stderr;
    quint16 m_port = 0;
    QString m_listen = QStringLiteral("127.0.0.1:0");
};

} // namespace sy::system_test
