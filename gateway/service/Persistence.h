#pragma once
// Persistence: keeps a Store in step with the gateway. At start it replays the stored ledger;
// while running it hands every finished request and every applied configuration to the store,
// whose own thread batches those writes (the request path never waits on the disk for them).
// Money is different: Persistence is the ledger's journal (billing/LedgerJournal.h), so each
// charge and top-up is durable in the store before the ledger shows it (an answer to a client
// waits for its charge: AttemptLoop). Store::commitLedgerLater() answers either at once (the
// SQLite store's ledger log) or later, from the store's thread, which commits entries in groups;
// the answers come back here, on the gateway thread, where the ledger publishes them. Entries the
// store could not make durable stay unpublished and are submitted again every second. It applies the request log retention of the configuration
// (settings log_retention_days / log_retention_count) to the store and to the in-memory log at
// construction and after every applied configuration.
//
// Shared mode (a store several gateways use: Store::isShared()): the ledger decides admission in
// the database (billing/SharedMoney.h, implemented here on the store), and twice a second this
// object asks the store — on the store's thread, never blocking the gateway thread — for what
// the other gateways changed: ledger entries booked since the last one seen (the balance and
// each key's spend follow the database) and a configuration document written by another gateway,
// which is then applied here (without being stored again). So an edit made through any gateway
// reaches every other within about a second.
//
// Thread: the gateway thread. The store must outlive this object; the gateway may go first (the
// ledger is detached from this journal when this object is destroyed while the gateway lives).
#include "billing/LedgerJournal.h"
#include "billing/SharedMoney.h"
#include "config/ConfigLoader.h"
#include "service/CredentialVaulting.h"
#include "storage/CredentialVault.h"
#include "storage/Store.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <optional>
#include <variant>

namespace sy::service {

class GatewayService;
struct RequestRecord;

// The configuration to run with: the stored one when the database has one (edits made in the
// dashboard or the admin API live there), else `seed` (the configuration file), which is then
// stored. Returns an error message when the stored document cannot be read or loaded.
// With a `vault` (openCredentialVault()), provider credentials are kept there and the stored
// document holds references (CredentialVaulting.h): references are resolved here, and
// credentials a stored document still holds in plain text move into the vault. A reference that
// cannot be resolved is logged and left in place (its channel fails upstream until the credential
// is entered again). Without a vault, documents hold the credentials, as before.
std::variant<config::Config, QString> configurationFromStore(storage::Store &store, config::Config seed,
                                                             bool *fromStore = nullptr,
                                                             storage::CredentialVault *vault = nullptr);

class Persistence : public QObject, private billing::LedgerJournal, private billing::SharedMoney {
    Q_OBJECT
public:
    // `vault`: the same as given to configurationFromStore(), or null (credentials in the
    // database file). The vault, like the store, must outlive this object.
    Persistence(GatewayService &gateway, storage::Store &store, storage::CredentialVault *vault = nullptr,
                QObject *parent = nullptr);
    ~Persistence() override;

    // Replays the stored ledger into the gateway's, in pages of kLedgerRestorePage rows, so what
    // it holds at once is one page (the ledger keeps its own bounded tail). Call once, before the
    // gateway serves (again is harmless: what the ledger knows is skipped).
    void restoreLedger();
    static constexpr int kLedgerRestorePage = 10'000;
    // Writes what is pending now (unpublished ledger entries, the request log) and waits for the
    // store to commit it (shutdown).
    void flush();
    // The gateway listens where the command line said (--port, --listen), not where the stored
    // configuration says: edits keep storing `host`:`port`, so the override lasts one run. An
    // edit that itself changes the listen address (an imported configuration) stores the new one.
    void keepStoredListen(const QString &host, quint16 port);

private:
    // LedgerJournal: has the store commit `entry`; the answer comes back on this thread.
    void submit(billing::Ledger &ledger, const billing::LedgerEntry &entry) override;
    // LedgerJournal: waits for the store to commit what it was given, then runs the answers.
    void drain() override;
    void onJournalled(quint64 sequence, bool committed);
    // SharedMoney: admission and releases in the shared database.
    Verdict reserve(quint64 id, const QString &keyName, std::optional<billing::Nanos> keySpendLimit,
                    billing::Nanos estimate, std::optional<billing::Nanos> openingBalance) override;
    void release(quint64 id) override;
    // Shared mode: asks the store (on its thread) what other gateways changed; at most one at a time.
    void pollShared();
    void applySharedChanges(std::vector<storage::StoredLedgerEntry> entries, std::optional<QByteArray> document,
                            qint64 version, quint64 editsWhenAsked);
    void onRequestFinished(const RequestRecord &record);
    void retryUnpublishedLedger();
    void persistConfig();
    void applyRetention();

    GatewayService &m_gateway;
    QPointer<GatewayService> m_gatewayAlive;  // null once the gateway is gone
    storage::Store &m_store;
    CredentialVaulting m_vaulting;
    QTimer m_ledgerRetry;  // runs while the ledger holds entries the store did not commit
    struct ListenOverride { QString storedHost; quint16 storedPort; QString runningHost; quint16 runningPort; };
    std::optional<ListenOverride> m_listenOverride;
    // Shared mode.
    QTimer m_sharedPoll;
    bool m_pollInFlight = false;
    bool m_pollAgain = false;          // asked again while one was in flight
    qint64 m_configVersion = 0;        // the stored document this gateway runs (or wrote)
    quint64 m_localEdits = 0;          // configurations applied here since start
    bool m_applyingShared = false;     // applying another gateway's document: do not store it again
};

} // namespace sy::service
