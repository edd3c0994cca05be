#include "support/RedisServer.h"

#include "support/LocalServers.h"
#include "support/Waits.h"

#include <QFileInfo>
#include <QTcpSocket>

namespace sy::test {

namespace {

QByteArray resp(const QList<QByteArray> &argv)
{
    QByteArray out = '*' + QByteArray::number(argv.size()) + "\r\n";
    for (const QByteArray &arg : argv)
        out += '$' + QByteArray::number(arg.size()) + "\r\n" + arg + "\r\n";
    return out;
}

} // namespace

RedisServer::~RedisServer()
{
    stop();
}

QString RedisServer::programPath()
{
    return findServerProgram(QStringLiteral("redis-server"));
}

QString RedisServer::missingMessage()
{
    return QStringLiteral("redis-server is not installed (Debian package redis-server, listed in scripts/packages.txt): "
                          "the Redis cases are skipped");
}

bool RedisServer::start(const QByteArray &password, quint16 port, std::chrono::milliseconds limit)
{
    if (!available() || !m_dir.isValid())
        return false;
    stop();
    m_password = password;
    // A free port can be taken between the probe and the server's bind: try a few.
    for (int attempt = 0; attempt < 3; ++attempt) {
        const quint16 chosen = port != 0 ? port : freeLoopbackPort();
        if (chosen != 0 && launch(chosen, limit))
            return true;
        if (port != 0)
            break;
    }
    return false;
}

bool RedisServer::launch(quint16 port, std::chrono::milliseconds limit)
{
    m_output.clear();
    m_port = port;
    QStringList args{QStringLiteral("--port"), QString::number(port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                     QStringLiteral("--dir"), m_dir.path(), QStringLiteral("--save"), QString(),
                     QStringLiteral("--appendonly"), QStringLiteral("no"), QStringLiteral("--daemonize"), QStringLiteral("no")};
    if (!m_password.isEmpty())
        args << QStringLiteral("--requirepass") << QString::fromUtf8(m_password);
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::disconnect(&m_process, nullptr, nullptr, nullptr);
    QObject::connect(&m_process, &QProcess::readyRead, [this] { m_output += m_process.readAll(); });
    m_process.start(programPath(), args);
    if (!m_process.waitForStarted(5000))
        return false;
    QList<QByteArray> ping{"PING"};
    const bool up = waitUntil([&] {
        if (!isRunning())
            return true;
        const QByteArray reply = command(ping, std::chrono::milliseconds(300));
        return reply.startsWith("+PONG") || reply.startsWith("-NOAUTH");
    }, limit);
    return up && isRunning();
}

void RedisServer::stop()
{
    if (!isRunning())
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    m_output += m_process.readAll();
}

QString RedisServer::url() const
{
    return urlWithPassword(m_password);
}

QString RedisServer::urlWithPassword(const QByteArray &password) const
{
    const QString auth = password.isEmpty() ? QString() : QStringLiteral(":%1@").arg(QString::fromUtf8(password));
    return QStringLiteral("redis://") + auth + QStringLiteral("127.0.0.1:%1/0").arg(m_port);
}

QByteArray RedisServer::command(const QList<QByteArray> &argv, std::chrono::milliseconds limit) const
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, m_port);
    if (!socket.waitForConnected(int(limit.count())))
        return {};
    QByteArray request;
    if (!m_password.isEmpty())
        request += resp({"AUTH", m_password});
    request += resp(argv);
    socket.write(request);
    QByteArray reply;
    const int expectedLines = m_password.isEmpty() ? 1 : 2;
    // Simple replies only (status, error, integer, or a bulk string's header and body).
    auto complete = [&] {
        QList<QByteArray> lines = reply.split('\n');
        int replies = 0;
        for (int i = 0; i < lines.size() - 1; ++i) {
            const QByteArray &line = lines[i];
            if (line.startsWith('$') && line.trimmed() != "$-1")
                ++i;  // the body line belongs to this reply
            ++replies;
        }
        return replies >= expectedLines;
    };
    while (!complete()) {
        if (!socket.waitForReadyRead(int(limit.count())))
            return {};
        reply += socket.readAll();
    }
    if (!m_password.isEmpty())
        reply = reply.mid(reply.indexOf('\n') + 1);  // drop AUTH's +OK
    return reply;
}

} // namespace sy::test
