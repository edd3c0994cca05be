#pragma once
// KeychainVault: the CredentialVault on the OS keychain through QtKeychain (on Linux a Secret
// Service such as GNOME Keyring or KWallet on the session D-Bus). QtKeychain's jobs are
// asynchronous; they run on the vault's own thread, and each call waits for its job at most
// `timeout` (no nested event loop on the caller's thread). QtKeychain's insecure fallback (a
// plain-text settings file) is never enabled.
//
// Thread: any thread but the vault's own; one call at a time per caller (calls are serialised).
#include "storage/CredentialVault.h"

#include <QThread>

#include <chrono>
#include <memory>
#include <mutex>

namespace sy::storage {

class KeychainVault final : public CredentialVault {
public:
    // A vault when a Secret Service answers a probe (write, read back, delete an entry) within
    // `timeout`; null otherwise (no session bus, no Secret Service, locked, or not built with
    // QtKeychain), with the reason in `why`. Never hangs: no session bus is seen at once.
    static std::unique_ptr<KeychainVault> probe(const QString &service, std::chrono::milliseconds timeout,
                                                QString *why = nullptr);
    ~KeychainVault() override;

    QString where() const override { return QStringLiteral("OS keychain"); }
    bool write(const QString &name, const QByteArray &secret) override;
    std::optional<QByteArray> read(const QString &name) override;
    bool remove(const QString &name) override;

private:
    KeychainVault(QString service, std::chrono::milliseconds timeout);

    std::mutex m_calls;  // one job at a time
    QString m_service;
    std::chrono::milliseconds m_timeout;
    QThread m_thread;
    QObject *m_context = nullptr;  // lives on m_thread; jobs are started from it
};

} // namespace sy::storage
