#include "support/NginxServer.h"

#include "support/LocalServers.h"
#include "support/Waits.h"

#include <QFile>
#include <QTcpSocket>
#include <csignal>

namespace sy::test {

namespace {

bool accepts(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    return socket.waitForConnected(300);
}

} // namespace

NginxServer::~NginxServer()
{
    stop();
}

QString NginxServer::programPath()
{
    return findServerProgram(QStringLiteral("nginx"));
}

QString NginxServer::missingMessage()
{
    return QStringLiteral("nginx is not installed (Debian package nginx-light, listed in scripts/packages.txt): "
                          "the cases behind a real nginx are skipped");
}

bool NginxServer::start(const QByteArray &httpBlock, std::chrono::milliseconds limit)
{
    if (!available() || !m_dir.isValid())
        return false;
    stop();
    // A free port can be taken between the probe and nginx's bind: try a few.
    for (int attempt = 0; attempt < 3; ++attempt) {
        const quint16 chosen = freeLoopbackPort();
        if (chosen != 0 && launch(httpBlock, chosen, limit))
            return true;
    }
    return false;
}

bool NginxServer::launch(const QByteArray &httpBlock, quint16 port, std::chrono::milliseconds limit)
{
    m_output.clear();
    m_port = port;
    const QByteArray dir = m_dir.path().toUtf8();
    QByteArray http = httpBlock;
    http.replace("@PORT@", QByteArray::number(port)).replace("@DIR@", dir);
    // Every path nginx would otherwise take from its compiled-in prefix is in the directory.
    const QByteArray config = "daemon off;\nmaster_process off;\nworker_processes 1;\n"
                              "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log info;\n"
                              "events { worker_connections 1024; }\n"
                              "http {\n"
                              "  access_log off;\n"
                              "  client_body_temp_path " + dir + "/client_body;\n"
                              "  proxy_temp_path " + dir + "/proxy;\n"
                              "  fastcgi_temp_path " + dir + "/fastcgi;\n"
                              "  uwsgi_temp_path " + dir + "/uwsgi;\n"
                              "  scgi_temp_path " + dir + "/scgi;\n"
                              + http + "\n}\n";
    QFile file(m_dir.filePath(QStringLiteral("nginx.conf")));
    if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size())
        return false;
    file.close();

    m_process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::disconnect(&m_process, nullptr, nullptr, nullptr);
    QObject::connect(&m_process, &QProcess::readyRead, [this] { m_output += m_process.readAll(); });
    m_process.start(programPath(), {QStringLiteral("-p"), m_dir.path(), QStringLiteral("-e"), m_dir.filePath(QStringLiteral("error.log")),
                                    QStringLiteral("-c"), file.fileName()});
    if (!m_process.waitForStarted(5000))
        return false;
    const bool up = waitUntil([&] { return !isRunning() || accepts(port); }, limit);
    return up && isRunning();
}

void NginxServer::stop()
{
    if (!isRunning())
        return;
    ::kill(pid_t(m_process.processId()), SIGQUIT);
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    m_output += m_process.readAll();
}

QByteArray NginxServer::readFile(const QString &name) const
{
    QFile file(m_dir.filePath(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray NginxServer::output() const
{
    return m_output + readFile(QStringLiteral("error.log"));
}

} // namespace sy::test
