#include "SingleInstance.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>
#include <QThread>

namespace sy::app {

namespace {

constexpr int kHandOverMs = 2000;   // an owner between taking the lock and listening gets this long
const QByteArray kActivate = QByteArrayLiteral("activate\n");

} // namespace

SingleInstance::SingleInstance(QString directory, QObject *parent)
    : QObject(parent)
    , m_directory(directory.isEmpty() ? defaultDirectory() : std::move(directory))
    , m_lock(m_directory + QStringLiteral("/app.lock"))
{
    // Stale only when the owning process is gone, never because the lock is old.
    m_lock.setStaleLockTime(0);
}

SingleInstance::~SingleInstance()
{
    if (m_server)
        m_server->close();
}

QString SingleInstance::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation) + QStringLiteral("/switchyard");
}

SingleInstance::Role SingleInstance::claim()
{
    m_error.clear();
    if (!QDir().mkpath(m_directory)) {
        m_error = tr("Cannot create the runtime directory %1").arg(QDir::toNativeSeparators(m_directory));
        return Role::Failed;
    }
    QFile::setPermissions(m_directory, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (m_lock.tryLock(0))
        return listen() ? Role::Primary : Role::Failed;
    if (m_lock.error() != QLockFile::LockFailedError) {
        m_error = tr("Cannot create the lock file in %1").arg(QDir::toNativeSeparators(m_directory));
        return Role::Failed;
    }
    QString hostname, appname;
    m_lock.getLockInfo(&m_ownerPid, &hostname, &appname);
    if (askOwnerToActivate())
        return Role::Secondary;
    m_error = tr("Another Switchyard (process %1) holds %2 but does not answer.")
                  .arg(m_ownerPid)
                  .arg(QDir::toNativeSeparators(m_lock.fileName()));
    return Role::Failed;
}

bool SingleInstance::listen()
{
    const QString path = m_directory + QStringLiteral("/app.socket");
    // We hold the lock: a socket file there is a crashed owner's.
    QLocalServer::removeServer(path);
    m_server = std::make_unique<QLocalServer>();
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(path)) {
        m_error = tr("Cannot listen on %1: %2").arg(QDir::toNativeSeparators(path), m_server->errorString());
        m_server.reset();
        m_lock.unlock();
        return false;
    }
    connect(m_server.get(), &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *socket = m_server->nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
                if (socket->canReadLine() && socket->readLine() == kActivate) {
                    socket->disconnectFromServer();
                    emit activationRequested();
                }
            });
        }
    });
    return true;
}

bool SingleInstance::askOwnerToActivate()
{
    const QString path = m_directory + QStringLiteral("/app.socket");
    const QDeadlineTimer deadline(kHandOverMs);
    while (!deadline.hasExpired()) {
        QLocalSocket socket;
        socket.connectToServer(path);
        if (socket.waitForConnected(int(std::max<qint64>(1, deadline.remainingTime())))) {
            socket.write(kActivate);
            // The message sits in the kernel's buffer once written: the owner reads it later.
            return socket.waitForBytesWritten(int(std::max<qint64>(1, deadline.remainingTime())));
        }
        QThread::msleep(50);   // the owner has the lock but is not listening yet
    }
    return false;
}

} // namespace sy::app
