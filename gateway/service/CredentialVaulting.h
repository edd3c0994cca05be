#pragma once
// Provider credentials in a CredentialVault (the OS keychain) instead of the database file. The
// configuration document the store keeps then holds, for each credential the vault took, a
// reference `switchyard-vault:<space>/<digest>`: <space> is a random id of the database (meta
// kMetaVaultSpace), <digest> the first 32 hex digits of the secret's SHA-256, so the same secret
// is one entry and the reference reveals nothing usable. A credential the vault did not take
// (it failed or timed out) stays in the document, as without a vault.
//
// Thread: the gateway thread (the functions block on the store and the vault, each bounded).
#include "config/Config.h"
#include "storage/CredentialVault.h"
#include "storage/Store.h"

#include <QSet>
#include <memory>
#include <variant>

namespace sy::service {

inline constexpr char kVaultReferencePrefix[] = "switchyard-vault:";
inline constexpr char kMetaVaultSpace[] = "credential_vault_space";

// The vault for provider credentials of this process: the OS keychain when a Secret Service
// answers a probe within a short timeout, else null (credentials stay in the database file).
// Logs the choice once: "credentials: OS keychain" or "credentials: database file (<why>)".
// SWITCHYARD_CREDENTIALS=database skips the probe (servers, tests). Any thread; blocks at most a
// few seconds; call at start, before the gateway serves.
std::unique_ptr<storage::CredentialVault> openCredentialVault();

class CredentialVaulting {
public:
    // `vault` may be null: documents then carry the credentials themselves.
    CredentialVaulting(storage::Store &store, storage::CredentialVault *vault);

    // `config` as the JSON document to store: credentials the vault took replaced by references.
    // Errors are those of config::writeConfigJson (then nothing was written to the vault).
    std::variant<QByteArray, QString> document(const config::Config &config);
    // Replaces references in `config` by the vault's secrets. A reference that cannot be resolved
    // (no vault now, or no such entry) stays as it is and is named in the result ("channel X,
    // credential N"), so the caller can say so; its channel then fails upstream until the
    // credential is entered again.
    QStringList resolve(config::Config &config);
    // Takes note of the credentials of `config` that the vault already holds (a configuration
    // resolved by another instance), so that forgetUnused() knows their entries.
    void adopt(const config::Config &config);
    // Deletes the vault entries that `config` no longer uses but an earlier document did. Call
    // after the document for `config` was committed.
    void forgetUnused(const config::Config &config);
    bool hasVault() const { return m_vault != nullptr; }

private:
    QString space();
    QString entryName(const QString &secret);

    storage::Store &m_store;
    storage::CredentialVault *m_vault;
    QString m_space;
    QSet<QString> m_written;   // entries known to hold their secret (written or read back)
};

} // namespace sy::service
