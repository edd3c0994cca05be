#include "service/CredentialVaulting.h"

#include "config/ConfigWriter.h"
#include "storage/KeychainVault.h"

#include <QCryptographicHash>
#include <QLoggingCategory>
#include <QUuid>

Q_LOGGING_CATEGORY(lcCredentials, "switchyard.credentials")

namespace sy::service {

namespace {

using namespace std::chrono_literals;

// The keychain's service name: entries show up as "Switchyard" in keychain managers.
constexpr char kKeychainService[] = "Switchyard";
constexpr auto kProbeTimeout = 2s;

bool isReference(const QString &credential)
{
    return credential.startsWith(QLatin1String(kVaultReferencePrefix));
}

} // namespace

std::unique_ptr<storage::CredentialVault> openCredentialVault()
{
    QString why;
    std::unique_ptr<storage::CredentialVault> vault;
    if (qEnvironmentVariable("SWITCHYARD_CREDENTIALS") == QLatin1String("database"))
        why = QStringLiteral("SWITCHYARD_CREDENTIALS=database");
    else
        vault = storage::KeychainVault::probe(QString::fromLatin1(kKeychainService), kProbeTimeout, &why);
    if (vault)
        qCInfo(lcCredentials).noquote() << "credentials:" << vault->where();
    else
        qCInfo(lcCredentials).noquote() << "credentials: database file (" + why + ")";
    return vault;
}

CredentialVaulting::CredentialVaulting(storage::Store &store, storage::CredentialVault *vault)
    : m_store(store), m_vault(vault)
{
}

QString CredentialVaulting::space()
{
    if (m_space.isEmpty()) {
        m_space = m_store.meta(QString::fromLatin1(kMetaVaultSpace)).value_or(QString());
        if (m_space.isEmpty()) {
            m_space = QUuid::createUuid().toString(QUuid::Id128);
            m_store.setMeta(QString::fromLatin1(kMetaVaultSpace), m_space);
        }
    }
    return m_space;
}

QString CredentialVaulting::entryName(const QString &secret)
{
    const QByteArray digest = QCryptographicHash::hash(secret.toUtf8(), QCryptographicHash::Sha256).toHex().left(32);
    return space() + QLatin1Char('/') + QString::fromLatin1(digest);
}

std::variant<QByteArray, QString> CredentialVaulting::document(const config::Config &config)
{
    config::Config stored = config;
    if (m_vault) {
        for (config::Channel &channel : stored.channels) {
            for (QString &credential : channel.credentials) {
                if (credential.isEmpty() || isReference(credential))
                    continue;  // an unresolved reference is kept as it is
                const QString name = entryName(credential);
                if (!m_written.contains(name)) {
                    if (!m_vault->write(name, credential.toUtf8())) {
                        qCWarning(lcCredentials).noquote()
                            << "the OS keychain did not take a credential of channel" << channel.id
                            << "- it stays in the database file";
                        continue;
                    }
                    m_written.insert(name);
                }
                credential = QLatin1String(kVaultReferencePrefix) + name;
            }
        }
    }
    const config::WriteResult written = config::writeConfigJson(stored, config::Secrets::Include);
    if (!written.document)
        return QStringLiteral("%1: %2").arg(written.errors.front().field, written.errors.front().message);
    return *written.document;
}

QStringList CredentialVaulting::resolve(config::Config &config)
{
    QStringList unresolved;
    for (config::Channel &channel : config.channels) {
        for (qsizetype i = 0; i < channel.credentials.size(); ++i) {
            QString &credential = channel.credentials[i];
            if (!isReference(credential))
                continue;
            const QString name = credential.mid(qsizetype(qstrlen(kVaultReferencePrefix)));
            std::optional<QByteArray> secret = m_vault ? m_vault->read(name) : std::nullopt;
            if (!secret || secret->isEmpty()) {
                unresolved << QStringLiteral("channel %1, credential %2").arg(channel.id).arg(i + 1);
                continue;
            }
            credential = QString::fromUtf8(*secret);
            m_written.insert(name);
        }
    }
    return unresolved;
}

void CredentialVaulting::adopt(const config::Config &config)
{
    if (!m_vault)
        return;
    for (const config::Channel &channel : config.channels) {
        for (const QString &credential : channel.credentials) {
            if (credential.isEmpty() || isReference(credential))
                continue;
            const QString name = entryName(credential);
            if (!m_written.contains(name) && m_vault->read(name) == credential.toUtf8())
                m_written.insert(name);
        }
    }
}

void CredentialVaulting::forgetUnused(const config::Config &config)
{
    if (!m_vault || m_written.isEmpty())
        return;
    QSet<QString> used;
    for (const config::Channel &channel : config.channels)
        for (const QString &credential : channel.credentials)
            if (!credential.isEmpty() && !isReference(credential))
                used.insert(entryName(credential));
    QSet<QString> unused = m_written;
    unused.subtract(used);
    for (const QString &name : std::as_const(unused)) {
        if (m_vault->remove(name))
            m_written.remove(name);
    }
}

} // namespace sy::service
