#include "support/PostgresServer.h"

#include "support/LocalServers.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <csignal>
#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>

namespace sy::test {

namespace {

const QString kBinDir = QStringLiteral("/usr/lib/postgresql/15/bin");
constexpr char kServerUser[] = "nobody";  // when the tests run as root

bool runningAsRoot()
{
    return ::geteuid() == 0;
}

QString binary(const QString &name)
{
    return kBinDir + QLatin1Char('/') + name;
}

// Hands `path` to the server's user (root only; otherwise we are that user already).
bool handOver(const QString &path)
{
    if (!runningAsRoot())
        return true;
    const passwd *user = ::getpwnam(kServerUser);
    return user && ::chown(QFile::encodeName(path).constData(), user->pw_uid, user->pw_gid) == 0;
}

} // namespace

QString PostgresServer::unavailableReason()
{
    for (const char *name : {"initdb", "postgres", "pg_isready", "psql"}) {
        if (!QFileInfo(binary(QString::fromLatin1(name))).isExecutable() && !QFileInfo(QStringLiteral("/usr/bin/") + QString::fromLatin1(name)).isExecutable())
            return QStringLiteral("PostgreSQL 15 is not installed (no %1 in %2): install `postgresql` "
                                  "(scripts/packages.txt) to run this test")
                .arg(QString::fromLatin1(name), kBinDir);
    }
    if (runningAsRoot() && !::getpwnam(kServerUser))
        return QStringLiteral("running as root and there is no user '%1' to run PostgreSQL as").arg(QString::fromLatin1(kServerUser));
    return {};
}

PostgresServer::PostgresServer() = default;

PostgresServer::~PostgresServer()
{
    if (isRunning() && !stop()) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString PostgresServer::url(const QString &name) const
{
    return QStringLiteral("postgres://%1:%2@127.0.0.1:%3/%4")
        .arg(QString::fromLatin1(kUser), QString::fromLatin1(kPassword))
        .arg(m_port)
        .arg(name);
}

QByteArray PostgresServer::log() const
{
    QByteArray log = m_log;
    if (m_process)
        log += m_process->readAll();
    return log;
}

void PostgresServer::launch(const QString &program, const QStringList &arguments, QProcess &process) const
{
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setWorkingDirectory(m_dir.path());
    if (runningAsRoot()) {
        process.start(QStringLiteral("runuser"),
                      QStringList{QStringLiteral("-u"), QString::fromLatin1(kServerUser), QStringLiteral("--"), program} + arguments);
    } else {
        process.start(program, arguments);
    }
}

bool PostgresServer::run(const QString &program, const QStringList &arguments, QByteArray *output,
                         std::chrono::milliseconds limit)
{
    QProcess process;
    launch(program, arguments, process);
    if (!process.waitForFinished(int(limit.count()))) {
        process.kill();
        process.waitForFinished(2000);
        m_error = QStringLiteral("%1 did not finish in time: %2").arg(program, QString::fromLocal8Bit(process.readAll()));
        return false;
    }
    const QByteArray printed = process.readAll();
    if (output)
        *output = printed;
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        m_error = QStringLiteral("%1 failed (exit %2): %3").arg(program).arg(process.exitCode()).arg(QString::fromLocal8Bit(printed));
        return false;
    }
    return true;
}

bool PostgresServer::initialize()
{
    if (m_initialized)
        return true;
    if (!m_dir.isValid() || !handOver(m_dir.path())) {
        m_error = QStringLiteral("cannot prepare the temporary directory %1").arg(m_dir.path());
        return false;
    }
    const QString passwordFile = m_dir.filePath(QStringLiteral("password"));
    {
        QFile file(passwordFile);
        if (!file.open(QIODevice::WriteOnly) || file.write(kPassword) < 0) {
            m_error = QStringLiteral("cannot write %1").arg(passwordFile);
            return false;
        }
    }
    if (!handOver(passwordFile))
        return false;
    if (!run(binary(QStringLiteral("initdb")),
             {QStringLiteral("-D"), m_dir.filePath(QStringLiteral("data")), QStringLiteral("-U"), QString::fromLatin1(kUser),
              QStringLiteral("--pwfile=") + passwordFile, QStringLiteral("--auth-local=trust"),
              QStringLiteral("--auth-host=scram-sha-256"), QStringLiteral("--encoding=UTF8"), QStringLiteral("--no-locale"),
              QStringLiteral("--no-sync")}))
        return false;
    m_port = freeLoopbackPort();
    m_initialized = m_port != 0;
    if (!m_initialized)
        m_error = QStringLiteral("no free loopback port");
    return m_initialized;
}

bool PostgresServer::start(std::chrono::milliseconds limit)
{
    if (isRunning())
        return true;
    if (!initialize())
        return false;
    if (m_process)
        m_log += m_process->readAll();
    m_process = std::make_unique<QProcess>();
    // fsync off: a test server's data need not survive a power loss, and it starts faster.
    launch(binary(QStringLiteral("postgres")),
           {QStringLiteral("-D"), m_dir.filePath(QStringLiteral("data")), QStringLiteral("-p"), QString::number(m_port),
            QStringLiteral("-k"), m_dir.path(), QStringLiteral("-c"), QStringLiteral("listen_addresses=127.0.0.1"),
            QStringLiteral("-c"), QStringLiteral("fsync=off"), QStringLiteral("-c"), QStringLiteral("max_connections=200")},
           *m_process);
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < limit.count()) {
        if (m_process->state() == QProcess::NotRunning) {
            m_error = QStringLiteral("postgres exited: %1").arg(QString::fromLocal8Bit(log()));
            return false;
        }
        QProcess ready;
        ready.start(binary(QStringLiteral("pg_isready")),
                    {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(m_port),
                     QStringLiteral("-t"), QStringLiteral("1")});
        if (ready.waitForFinished(3000) && ready.exitStatus() == QProcess::NormalExit && ready.exitCode() == 0)
            return true;
        QThread::msleep(100);  // polling a child process; no event loop involved
    }
    m_error = QStringLiteral("postgres did not accept connections in time: %1").arg(QString::fromLocal8Bit(log()));
    return false;
}

bool PostgresServer::stop(std::chrono::milliseconds limit)
{
    if (!isRunning())
        return true;
    // The postmaster itself (under runuser when we are root): its pid is the first line of
    // postmaster.pid. SIGINT = fast shutdown.
    QFile pidFile(m_dir.filePath(QStringLiteral("data/postmaster.pid")));
    const qint64 pid = pidFile.open(QIODevice::ReadOnly) ? pidFile.readLine().trimmed().toLongLong() : 0;
    ::kill(pid > 0 ? pid_t(pid) : pid_t(m_process->processId()), SIGINT);
    if (!m_process->waitForFinished(int(limit.count()))) {
        m_error = QStringLiteral("postgres did not stop in time");
        return false;
    }
    m_log += m_process->readAll();
    return true;
}

std::optional<QString> PostgresServer::psql(const QString &name, const QString &sql)
{
    QByteArray output;
    QProcess process;
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start(binary(QStringLiteral("psql")),
                  {QStringLiteral("-h"), m_dir.path(), QStringLiteral("-p"), QString::number(m_port), QStringLiteral("-U"),
                   QString::fromLatin1(kUser), QStringLiteral("-d"), name, QStringLiteral("-At"), QStringLiteral("-v"),
                   QStringLiteral("ON_ERROR_STOP=1"), QStringLiteral("-c"), sql});
    if (!process.waitForFinished(30'000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        m_error = QStringLiteral("psql failed: %1").arg(QString::fromLocal8Bit(process.readAllStandardError()));
        process.kill();
        return std::nullopt;
    }
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
}

bool PostgresServer::createDatabase(const QString &name)
{
    return psql(QStringLiteral("postgres"), QStringLiteral("CREATE DATABASE \"%1\"").arg(name)).has_value();
}

} // namespace sy::test
