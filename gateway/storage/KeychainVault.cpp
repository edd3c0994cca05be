#include "storage/KeychainVault.h"

#include <QDir>
#include <QFileInfo>
#include <QSemaphore>
#include <QUuid>

#ifdef SWITCHYARD_HAVE_KEYCHAIN
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <qt6keychain/keychain.h>
#endif

namespace sy::storage {

namespace {

enum class Kind { Write, Read, Remove };

struct Outcome {
    bool answered = false;   // the job finished within the timeout
    bool ok = false;
    bool notFound = false;
    QByteArray data;
};

// A session bus can be reached: an address in the environment, or the per-user socket that
// libdbus and GDBus fall back to. Checked before touching D-Bus, so that nothing tries to
// autolaunch a bus or waits for one.
bool sessionBusConfigured()
{
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return true;
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    return !runtime.isEmpty() && QFileInfo::exists(QDir(runtime).filePath(QStringLiteral("bus")));
}

#ifdef SWITCHYARD_HAVE_KEYCHAIN
struct Pending {
    QSemaphore done;
    Outcome outcome;   // written by the job's thread before done is released
};

// Starts one job on the current thread (the vault's); its result goes to `pending`.
void startJob(const QString &service, Kind kind, const QString &name, const QByteArray &secret,
              std::shared_ptr<Pending> pending)
{
    QKeychain::Job *job = nullptr;
    switch (kind) {
    case Kind::Write: {
        auto *write = new QKeychain::WritePasswordJob(service);
        write->setBinaryData(secret);
        job = write;
        break;
    }
    case Kind::Read:
        job = new QKeychain::ReadPasswordJob(service);
        break;
    case Kind::Remove:
        job = new QKeychain::DeletePasswordJob(service);
        break;
    }
    job->setAutoDelete(true);
    job->setInsecureFallback(false);  // never a plain-text file instead of the keychain
    job->setKey(name);
    QObject::connect(job, &QKeychain::Job::finished, job, [pending, kind](QKeychain::Job *finished) {
        Outcome &o = pending->outcome;
        o.ok = finished->error() == QKeychain::NoError;
        o.notFound = finished->error() == QKeychain::EntryNotFound;
        if (o.ok && kind == Kind::Read)
            o.data = static_cast<QKeychain::ReadPasswordJob *>(finished)->binaryData();
        pending->done.release();
    });
    job->start();
}
#endif

} // namespace

KeychainVault::KeychainVault(QString service, std::chrono::milliseconds timeout)
    : m_service(std::move(service)), m_timeout(timeout)
{
    m_thread.setObjectName(QStringLiteral("switchyard-keychain"));
    m_context = new QObject;
    m_context->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread.start();
}

KeychainVault::~KeychainVault()
{
    m_thread.quit();
    m_thread.wait();
}

std::unique_ptr<KeychainVault> KeychainVault::probe(const QString &service, std::chrono::milliseconds timeout,
                                                    QString *why)
{
    auto fail = [why](const QString &reason) {
        if (why)
            *why = reason;
        return nullptr;
    };
#ifndef SWITCHYARD_HAVE_KEYCHAIN
    Q_UNUSED(service);
    Q_UNUSED(timeout);
    return fail(QStringLiteral("built without QtKeychain"));
#else
    if (!sessionBusConfigured())
        return fail(QStringLiteral("no session D-Bus"));
    {
        // A connection of its own, closed again: the probe leaves no bus connection behind.
        const QString name = QStringLiteral("switchyard-keychain-probe-") + QUuid::createUuid().toString(QUuid::Id128);
        QDBusConnection bus = QDBusConnection::connectToBus(QDBusConnection::SessionBus, name);
        const bool connected = bus.isConnected();
        bool registered = false;
        if (connected) {
            QDBusConnectionInterface *names = bus.interface();
            names->setTimeout(int(timeout.count()));
            const QStringList wanted{QStringLiteral("org.freedesktop.secrets"), QStringLiteral("org.kde.kwalletd5"),
                                     QStringLiteral("org.kde.kwalletd6")};
            const QStringList activatable = names->activatableServiceNames().value();
            for (const QString &busName : wanted)
                registered = registered || names->isServiceRegistered(busName).value() || activatable.contains(busName);
        }
        bus = QDBusConnection(QString());
        QDBusConnection::disconnectFromBus(name);
        if (!connected)
            return fail(QStringLiteral("the session D-Bus does not answer"));
        if (!registered)
            return fail(QStringLiteral("no Secret Service on the session D-Bus"));
    }
    std::unique_ptr<KeychainVault> vault(new KeychainVault(service, timeout));
    const QString entry = QStringLiteral("probe-") + QUuid::createUuid().toString(QUuid::Id128);
    const QByteArray token = QUuid::createUuid().toByteArray(QUuid::Id128);
    if (!vault->write(entry, token))
        return fail(QStringLiteral("the Secret Service did not store a test entry within %1 ms").arg(timeout.count()));
    const std::optional<QByteArray> back = vault->read(entry);
    const bool removed = vault->remove(entry);
    if (back != token)
        return fail(QStringLiteral("the Secret Service did not return a test entry within %1 ms").arg(timeout.count()));
    if (!removed)
        return fail(QStringLiteral("the Secret Service did not delete a test entry within %1 ms").arg(timeout.count()));
    return vault;
#endif
}

#ifdef SWITCHYARD_HAVE_KEYCHAIN
namespace {

Outcome runJob(QObject *context, std::mutex &calls, std::chrono::milliseconds timeout, const QString &service,
               Kind kind, const QString &name, const QByteArray &secret)
{
    std::lock_guard lock(calls);
    auto pending = std::make_shared<Pending>();
    QMetaObject::invokeMethod(
        context, [=] { startJob(service, kind, name, secret, pending); }, Qt::QueuedConnection);
    // A late answer lands in `pending`, which the job keeps alive; nobody reads it any more.
    if (!pending->done.tryAcquire(1, int(timeout.count())))
        return Outcome{};
    Outcome outcome = pending->outcome;
    outcome.answered = true;
    return outcome;
}

} // namespace

bool KeychainVault::write(const QString &name, const QByteArray &secret)
{
    return runJob(m_context, m_calls, m_timeout, m_service, Kind::Write, name, secret).ok;
}

std::optional<QByteArray> KeychainVault::read(const QString &name)
{
    Outcome o = runJob(m_context, m_calls, m_timeout, m_service, Kind::Read, name, {});
    if (!o.ok)
        return std::nullopt;
    return std::move(o.data);
}

bool KeychainVault::remove(const QString &name)
{
    const Outcome o = runJob(m_context, m_calls, m_timeout, m_service, Kind::Remove, name, {});
    return o.ok || o.notFound;
}
#else
bool KeychainVault::write(const QString &, const QByteArray &) { return false; }
std::optional<QByteArray> KeychainVault::read(const QString &) { return std::nullopt; }
bool KeychainVault::remove(const QString &) { return false; }
#endif

} // namespace sy::storage
