#include "GatewayProcess.h"

#include "support/Waits.h"

#include <QRegularExpression>
#include <csignal>

namespace sy::system_test {

GatewayProcess::GatewayProcess()
{
    QObject::connect(&m_process, &QProcess::readyReadStandardOutput, [this] { m_stdout += m_process.readAllStandardOutput(); });
    QObject::connect(&m_process, &QProcess::readyReadStandardError, [this] { m_stderr += m_process.readAllStandardError(); });
}

GatewayProcess::~GatewayProcess()
{
    if (isRunning()) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

QString GatewayProcess::programPath()
{
    const QString buildDir = qEnvironmentVariable("SWITCHYARD_BUILD_DIR");
    return buildDir.isEmpty() ? QString() : buildDir + QStringLiteral("/gateway/cli/switchyard-gateway");
}

void GatewayProcess::launch(const QString &configPath, const QString &databasePath)
{
    m_stdout.clear();
    m_stderr.clear();
    m_port = 0;
    // Credentials stay in the test's database: never in the keychain of whoever runs the tests.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SWITCHYARD_CREDENTIALS"), QStringLiteral("database"));
    m_process.setProcessEnvironment(env);
    m_process.start(programPath(), {QStringLiteral("--config"), configPath, QStringLiteral("--database"), databasePath,
                                    QStringLiteral("--listen"), m_listen});
}

bool GatewayProcess::start(const QString &configPath, const QString &databasePath, std::chrono::milliseconds limit)
{
    launch(configPath, databasePath);
    static const QRegularExpression listening(QStringLiteral("switchyard-gateway listening on http://127\\.0\\.0\\.1:(\\d+)"));
    QRegularExpressionMatch match;
    test::waitUntil([&] {
        match = listening.match(QString::fromUtf8(m_stdout));
        return match.hasMatch() || !isRunning();
    }, limit);
    if (!match.hasMatch())
        return false;
    m_port = quint16(match.captured(1).toUInt());
    return m_port != 0;
}

bool GatewayProcess::runToExit(const QString &configPath, const QString &databasePath, std::chrono::milliseconds limit)
{
    launch(configPath, databasePath);
    return waitForExit(limit);
}

bool GatewayProcess::waitForExit(std::chrono::milliseconds limit)
{
    const bool exited = test::waitUntil([this] { return !isRunning(); }, limit);
    m_stdout += m_process.readAllStandardOutput();
    m_stderr += m_process.readAllStandardError();
    return exited;
}

bool GatewayProcess::terminate(std::chrono::milliseconds limit)
{
    if (!isRunning())
        return true;
    ::kill(pid_t(m_process.processId()), SIGTERM);
    return waitForExit(limit);
}

void GatewayProcess::killHard()
{
    m_process.kill();  // SIGKILL on Unix
    waitForExit(std::chrono::seconds(5));
}

} // namespace sy::system_test
