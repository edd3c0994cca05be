#pragma once
// CredentialVault: a place for provider credentials outside the database file — the OS keychain
// (KeychainVault, a Secret Service on the session D-Bus) when one is available. Without a vault
// the credentials stay in the configuration document in the database (0600), as before.
// The configuration document then holds a reference (service/CredentialRefs.h) in place of each
// secret the vault took.
//
// Thread: implementations say which threads may call them; every call returns within a bounded
// time (an unreachable keychain is a failure, never a hang).
#include <QByteArray>
#include <QString>

#include <optional>

namespace sy::storage {

class CredentialVault {
public:
    virtual ~CredentialVault() = default;
    // Where secrets go, for the log ("OS keychain").
    virtual QString where() const = 0;
    // Stores `secret` under `name` (replacing it). False when it could not.
    virtual bool write(const QString &name, const QByteArray &secret) = 0;
    // The secret stored under `name`; nullopt when there is none or the vault does not answer.
    virtual std::optional<QByteArray> read(const QString &name) = 0;
    // Deletes `name`; true when it is gone (or was never there).
    virtual bool remove(const QString &name) = 0;
};

} // namespace sy::storage
