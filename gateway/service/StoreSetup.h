#pragma once
// StoreSetup: the database behind a gateway, shared by switchyard-gateway and the desktop app.
// It opens the SQLite store, or the PostgreSQL one for `postgres://…` (each runs its own storage
// thread), chooses the configuration to run
// with (the stored one when the database has one: edits made in the dashboard or the admin API
// live there; else the given seed, which is then stored), and attaches Persistence so that
// edits, the ledger and the request log reach the file.
//
// Provider credentials go to the OS keychain when one answers (openCredentialVault(); see
// CredentialVaulting.h), else they stay in the database file. A shared PostgreSQL database keeps
// them in its configuration document: one machine's keychain is not the other gateways'. The demo workspace never uses the
// keychain: its credentials are the simulator's placeholders, nothing to put in a user's keyring.
//
// The demo workspace's simulator listens on a new port at every start: a demo database records
// the simulator's address, and channels whose base_url pointed at the previous address are moved
// onto the new one.
//
// Thread: create, use and destroy on the gateway thread. The gateway it is attached to must be
// destroyed first (or never started).
#include "config/Config.h"
#include "storage/CredentialVault.h"

#include <QString>
#include <memory>
#include <variant>

namespace sy::storage { class Store; }

namespace sy::service {

class GatewayService;
class Persistence;

struct StoreChoice {
    QString path;              // SQLite file (see chooseDatabasePath)
    QString simulatorUrl;      // the demo simulator of this start ("http://127.0.0.1:PORT"); empty: not the demo
};

// The database file to use: `explicitPath` (a command line option) when given, else
// `configured` (the configuration's `database`), else `defaultName` in the per-user data
// directory (QStandardPaths::AppDataLocation). Any thread.
QString chooseDatabasePath(const QString &explicitPath, const QString &configured, const QString &defaultName);

// Moves channels whose base_url starts with `from` onto `to`; returns how many moved. Any thread.
int rebaseChannels(config::Config &config, const QString &from, const QString &to);

// Deletes a database file and its companions: -wal, -shm and the ledger log (start over). Returns an error message,
// empty on success or when there was nothing to delete. Any thread; the file must not be open.
QString removeDatabaseFiles(const QString &path);

class StoreSetup {
public:
    // Opens `choice.path` and chooses the configuration (see above). A refusal comes back as a
    // message that names the file (or the PostgreSQL address, without its password), says why
    // — the server's own reason for PostgreSQL — and what to do.
    static std::variant<std::unique_ptr<StoreSetup>, QString> open(const StoreChoice &choice, config::Config seed);
    ~StoreSetup();   // commits what the store has queued, then stops the storage thread

    // The configuration chosen by open(); call once, before creating the gateway. A listen
    // address changed afterwards (--port, --listen) lasts this run only: edits keep storing the
    // chosen one.
    config::Config takeConfig()
    {
        m_chosenHost = m_config.listenHost;
        m_chosenPort = m_config.listenPort;
        return std::move(m_config);
    }
    bool configFromStore() const { return m_fromStore; }
    // Channels moved onto this start's demo simulator (0 when not the demo).
    int rebasedChannels() const { return m_rebased; }
    // The SQLite file, or the PostgreSQL address without its password.
    const QString &path() const { return m_path; }
    storage::Store &store();

    // Attaches persistence to `gateway` and replays the stored ledger: call before gateway.start().
    void attach(GatewayService &gateway);
    // Writes what is pending (the ledger included) and waits for the commit: call when stopping,
    // while the gateway still exists.
    void flush();

private:
    StoreSetup() = default;

    QString m_path;
    std::unique_ptr<storage::Store> m_store;
    std::unique_ptr<storage::CredentialVault> m_vault;   // before m_persistence: it outlives it
    std::unique_ptr<Persistence> m_persistence;
    config::Config m_config;
    QString m_chosenHost;
    quint16 m_chosenPort = 0;
    bool m_fromStore = false;
    int m_rebased = 0;
    QString m_simulatorUrl;
};

} // namespace sy::service
