#pragma once
// PostgresStore: the Store on a PostgreSQL server (Qt SQL, QPSQL driver), for several gateways
// that share one workspace: the configuration document, meta values, the ledger, the request
// log, and the money in flight (reservations under a lease; PostgresSchema.h). The schema is
// versioned and migrated at open; a database of a newer schema is refused untouched.
//
// Threads: as SqliteStore — a worker thread owns the only connection; writes are queued and
// committed in one transaction and one round trip (PostgresBatch.h) every flushInterval (or
// batchSize items); request-log retention by count also runs once a tenth of the cap was written
// since the last pass (as SqliteStore); reads, flush(),
// commitLedger() and reserve() wait for the worker, which talks to the server over the network:
// call them where a round trip may be waited for (start, shutdown, the money of a request), and
// use post() where it may not (admin reads on the gateway thread). commitLedgerLater() does not
// wait: the worker commits the queue in its next round trip, entries that arrived meanwhile with it.
//
// Durability: what commitLedger() or flush() reported committed is on the server. A charge is
// booked at most once per request id across every gateway; a top-up once per entry of this
// store (the same entry offered again after a lost answer is recognised). Ledger sequences are
// issued by the database (1, 2, 3 … across every gateway, committed in order), so the sequence
// of a written entry is not kept: entries are read back with the database's numbering.
//
// Server failures: a statement that fails because the connection broke drops the connection; the
// next call connects again (after a failed attempt, not before half a second). Meanwhile reads
// return nothing, reserve() says Unavailable, writes stay queued (request-log rows up to twice
// maxQueuedRequests, the rest dropped and counted; from maxQueuedRequests on, requestLogFull()
// says so and the gateway refuses new requests) and ledger commits report false
// (the caller retries; an entry offered again is queued once). Once the server answers, reserve()
// books the queued ledger entries before it decides, so the charges made during the outage count;
// a reserve() that finds its connection cut (the server restarted while the store was idle) asks
// once more on a new connection instead of saying Unavailable.
// Reservations this gateway holds are renewed every third of the lease while it runs (a renewal
// that failed is tried again at the next flush tick); those of a gateway that died expire.
#include "storage/PostgresUrl.h"
#include "storage/Store.h"

#include <QObject>
#include <QThread>

#include <chrono>
#include <memory>
#include <variant>

namespace sy::storage {

class PostgresWorker;

struct PostgresStoreOptions {
    std::chrono::milliseconds flushInterval{200};
    int batchSize = 500;
    std::chrono::milliseconds retentionInterval{60'000};
    std::chrono::milliseconds statementTimeout{10'000};  // a statement running longer fails
    // As SqliteStoreOptions::maxQueuedRequests: from this many request-log rows waiting (e.g.
    // during an outage of the server) requestLogFull() says so; rows beyond twice as many wait
    // nowhere (dropped, counted); ledger entries are never dropped.
    int maxQueuedRequests = 20'000;
};

class PostgresStore final : public Store {
public:
    // Connects to `address` and migrates. On refusal the message gives the server's reason (never
    // the password). Any thread; the thread that calls it receives post()'s continuations.
    static std::variant<std::unique_ptr<PostgresStore>, QString> open(const PostgresAddress &address,
                                                                      const PostgresStoreOptions &options = {});
    ~PostgresStore() override;
    PostgresStore(const PostgresStore &) = delete;
    PostgresStore &operator=(const PostgresStore &) = delete;

    void appendLedger(StoredLedgerEntry entry) override;
    bool commitLedger(StoredLedgerEntry entry) override;
    void commitLedgerLater(StoredLedgerEntry entry, QObject *context, std::function<void(bool)> done) override;
    void appendRequest(StoredRequest request) override;
    void saveConfig(QByteArray json) override;
    void setMeta(const QString &key, const QString &value) override;
    bool flush() override;

    std::optional<QByteArray> loadConfig() override;
    std::optional<QString> meta(const QString &key) override;
    std::vector<StoredLedgerEntry> ledgerEntries(quint64 afterSequence, int limit = 0) override;
    std::vector<StoredRequest> queryRequests(const StoredRequestFilter &filter) override;
    std::optional<StoredRequest> request(const QByteArray &id) override;

    void setRetention(int maxAgeDays, int maxCount) override;
    int applyRetention() override;
    StoreStats stats() const override;
    std::optional<quint64> requestLogFull() const override;

    void post(std::function<std::function<void()>()> work) override;
    bool isShared() const override { return true; }
    SharedAdmission reserve(const StoredReservation &reservation) override;
    void releaseReservation(quint64 id) override;
    std::optional<StoredConfigVersion> configVersion() override;

    const PostgresAddress &address() const { return m_address; }

private:
    PostgresStore(PostgresAddress address, const PostgresStoreOptions &options);
    template <class Work>
    auto onWorker(Work &&work);

    PostgresAddress m_address;
    QObject m_replies;  // lives on the opening thread: post()'s continuations run there
    QThread m_thread;
    std::unique_ptr<PostgresWorker> m_worker;
};

} // namespace sy::storage
