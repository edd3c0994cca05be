#pragma once
// Store: the durable state of a workspace — the configuration document, meta values (opening
// balance, admin token hash), the ledger of charges and top-ups, and the request log.
// SqliteStore (one gateway, a local file) or PostgresStore (several gateways sharing one
// database: see "Shared mode" below); callers depend only on this interface.
//
// Writes other than commitLedger() never make the caller wait on the disk: they are queued and
// committed in batches by the store's own thread. What was committed (flush() or commitLedger()
// returned true, or a batch went by) survives a crash of the process; a write that was only
// queued when the process died is lost. Money must not be lost, so ledger entries are written
// with commitLedger(), which returns only once the entry is committed; a ledger charge is booked
// at most once per request id, so a repeated write never double-books.
//
// Thread: every method may be called from any thread except the store's own (there, only from
// the work given to post(), which may call the reads). Reads block the
// caller until the store's thread answers: use them at start and from the admin API, never on the
// request path. Reads see every write queued before them (they commit the queue first).
#include "storage/StoredTypes.h"

#include <QObject>

#include <functional>
#include <optional>
#include <vector>

namespace sy::storage {

class Store {
public:
    virtual ~Store() = default;

    // --- Writes: queued, return at once. Applied in the order they were queued.
    // A charge whose request id already has a charge, or an entry whose sequence is already
    // stored, is ignored (counted in stats().ignoredLedgerEntries); the rest of the batch commits.
    virtual void appendLedger(StoredLedgerEntry entry) = 0;
    // Queues `entry` behind everything queued so far and commits them all before returning (one
    // transaction; the caller waits for it). True when `entry` is committed, or was already
    // stored (same sequence, or a charge for the same request id: ignored as in appendLedger).
    // False when the transaction failed: the queue, `entry` included, stays queued and retried.
    virtual bool commitLedger(StoredLedgerEntry entry) = 0;
    // The same commit without the wait: queues `entry` behind everything queued so far and has
    // the store's thread commit the queue as soon as it can — entries queued meanwhile go in the
    // same transaction (a group commit; a store may leave queued request-log rows to its next
    // flush, which then follow entries queued after them) — then runs `done(committed)` on
    // `context`'s thread, where `committed` means what commitLedger() returns. A failed
    // transaction answers false and keeps the items queued, as commitLedger(). The answer either
    // runs within this call, when the entry is durable at once (the default, which commits
    // synchronously; SqliteStore's ledger log), or is an event posted to `context`: every answer
    // is posted by the time a flush() that started after this call returns, so `context` must
    // live until such a flush() (its destruction then drops answers not yet run).
    virtual void commitLedgerLater(StoredLedgerEntry entry, QObject *context, std::function<void(bool)> done)
    {
        (void)context;
        done(commitLedger(std::move(entry)));
    }
    // Adds a request to the log; a request with a known id replaces the stored one.
    virtual void appendRequest(StoredRequest request) = 0;
    // Replaces the configuration document (JSON, UTF-8; may hold credentials).
    virtual void saveConfig(QByteArray json) = 0;
    // Sets a meta value; kMetaSchemaVersion is reserved and rejected.
    virtual void setMeta(const QString &key, const QString &value) = 0;
    // Blocks until everything queued before the call is committed. False when a commit failed
    // (the items stay queued and are retried; stats().lastError says why).
    virtual bool flush() = 0;

    // --- Reads: block briefly. On a database error they return nothing (stats().lastError).
    virtual std::optional<QByteArray> loadConfig() = 0;
    virtual std::optional<QString> meta(const QString &key) = 0;
    // Entries with a sequence above `afterSequence`, in sequence order; at most `limit` of them
    // when `limit` > 0 (page through a long ledger by passing the last sequence of a page).
    virtual std::vector<StoredLedgerEntry> ledgerEntries(quint64 afterSequence, int limit = 0) = 0;
    // Requests matching `filter`, newest first (by `at`, then id).
    virtual std::vector<StoredRequest> queryRequests(const StoredRequestFilter &filter) = 0;
    virtual std::optional<StoredRequest> request(const QByteArray &id) = 0;

    // --- Retention of the request log (the ledger and the configuration are never trimmed).
    // Keeps requests younger than `maxAgeDays` days and at most the `maxCount` newest;
    // 0 (or less) turns a bound off. Applied by the store periodically, and on its next flush
    // after the bounds changed. Returns at once.
    virtual void setRetention(int maxAgeDays, int maxCount) = 0;
    // Applies the retention bounds now; blocks; returns the number of requests deleted.
    virtual int applyRetention() = 0;

    virtual StoreStats stats() const = 0;
    // The request-log rows waiting for the database while they are at the store's bound
    // (maxQueuedRequests) or above; nothing below it. Every answered request is to be logged, so
    // the gateway admits no new request meanwhile. Any thread; lock-free (an atomic read): asked
    // on the request path. A store without a write queue keeps the default.
    virtual std::optional<quint64> requestLogFull() const { return std::nullopt; }

    // --- Off the caller's thread. Runs `work` on the store's own thread and then the function it
    // returns (if any) on the thread that opened the store; returns at once. `work` may call this
    // store's reads (they do not block there); what it returns runs later, so it must hold values
    // or guarded pointers (QPointer), not references. A store whose reads are local and short
    // (SqliteStore) runs both at once on the caller's thread: the default.
    virtual void post(std::function<std::function<void()>()> work)
    {
        if (std::function<void()> then = work())
            then();
    }

    // --- Shared mode: a database that several gateways use at once (PostgresStore). A store that
    // is not shared keeps these defaults and the gateway decides money in its own memory.
    virtual bool isShared() const { return false; }
    // Decides `reservation` in the database and, when admitted, holds it under a lease that this
    // store renews while it is open (a gateway that dies gives its reservations back once the
    // lease runs out). Blocks for one round trip to the database.
    virtual SharedAdmission reserve(const StoredReservation &reservation)
    {
        (void)reservation;
        return SharedAdmission::Unavailable;
    }
    // Ends reservation `id` without a charge (a charge ends its reservation in commitLedger: see
    // StoredLedgerEntry::reservation). Queued; retried until the database has it.
    virtual void releaseReservation(quint64 id) { (void)id; }
    // The version of the stored configuration document; nothing on a database error.
    virtual std::optional<StoredConfigVersion> configVersion() { return std::nullopt; }
};

} // namespace sy::storage
