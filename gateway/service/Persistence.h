#pragma once
// Persistence: keeps a Store in step with the gateway. At start it replays the stored ledger;
// while running it hands every finished request, every new ledger entry and every applied
// configuration to the store, whose own thread batches the writes (the request path never
// waits on the disk).
//
// Thread: the gateway thread. The store must outlive this object.
#include "config/ConfigLoader.h"
#include "storage/Store.h"

#include <QObject>
#include <variant>

namespace sy::service {

class GatewayService;
struct RequestRecord;

// The configuration to run with: the stored one when the database has one (edits made in the
// dashboard or the admin API live there), else `seed` (the configuration file), which is then
// stored. Returns an error message when the stored document cannot be read or loaded.
std::variant<config::Config, QString> configurationFromStore(storage::Store &store, config::Config seed,
                                                             bool *fromStore = nullptr);

class Persistence : public QObject {
    Q_OBJECT
public:
    Persistence(GatewayService &gateway, storage::Store &store, QObject *parent = nullptr);

    // Replays the stored ledger into the gateway's. Call once, before the gateway serves.
    void restoreLedger();
    // Writes what is pending now and waits for the store to commit it (shutdown).
    void flush();

private:
    void onRequestFinished(const RequestRecord &record);
    void persistNewLedgerEntries();
    void persistConfig();

    GatewayService &m_gateway;
    storage::Store &m_store;
    quint64 m_lastLedgerSequence = 0;
};

} // namespace sy::service
