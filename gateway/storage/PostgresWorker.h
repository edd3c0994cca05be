#pragma once
// PostgresWorker: PostgresStore's half on its storage thread — the queue of writes and its flush
// timer, retention, the reservations this gateway holds and their lease. The connection and its
// reconnection are PostgresConnection's, the statements PostgresStatements'. Internal to
// PostgresStore.
//
// Thread: constructed on any thread, then moved to the storage thread. Methods marked "any
// thread" take the mutex; all others run on the storage thread only.
#include "storage/PostgresConnection.h"
#include "storage/RequestLogBacklog.h"
#include "storage/PostgresStatements.h"
#include "storage/PostgresStore.h"
#include "storage/SqliteReads.h"
#include "storage/SqliteWrites.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>

namespace sy::storage {

class PostgresWorker final : public QObject {
public:
    PostgresWorker(PostgresAddress address, const PostgresStoreOptions &options);
    ~PostgresWorker() override;

    // Connects, migrates and starts the timer. The refusal (the server's own words), or empty.
    QString open();
    // Commits the queue, gives back the reservations still held, closes the connection.
    void close();

    // Any thread. A request-log row beyond twice maxQueuedRequests is dropped (counted) instead.
    void enqueue(WriteOp op);
    // Queues `entry` unless the same entry (its sequence) is queued already: a commit that failed
    // leaves its entry queued, and the ledger offers it again at every retry.
    void enqueueLedger(StoredLedgerEntry entry);
    // Any thread: queue a ledger entry and have the queue committed soon, in one transaction with
    // whatever else is queued by then; `answered(committed)` runs on the worker's thread after it.
    void enqueueCommit(StoredLedgerEntry entry, std::function<void(bool)> answered);
    void enqueueRelease(quint64 id);
    void setRetention(RetentionPolicy policy);
    StoreStats stats() const;
    // Any thread, lock-free: Store::requestLogFull().
    std::optional<quint64> requestLogFull() const { return m_backlog.full(); }
    const QString &instanceId() const { return m_self.instanceId; }

    bool commitPending();
    int applyRetentionNow();
    // Books the ledger entries still queued first (charges made while the server was away), so
    // that the admission counts them. A connection found cut is replaced and asked once more.
    SharedAdmission reserve(const StoredReservation &reservation);
    std::optional<StoredConfigVersion> configVersion();

    // Commits the queue, then runs `read` on the connection; an error is recorded (stats()) and
    // yields an empty T.
    template <class T, class Read>
    T readAfterCommit(Read &&read)
    {
        commitPending();
        if (!ensureConnected())
            return T{};
        ReadResult<T> result = read(static_cast<const QSqlDatabase &>(m_connection.db()));
        if (const QString *error = std::get_if<QString>(&result)) {
            failed(*error);
            return T{};
        }
        return std::move(std::get<T>(result));
    }

private:
    // Opens the connection when there is none; false (error recorded) when the server refuses.
    bool ensureConnected();
    // A statement failed with `error`: recorded, and the connection dropped if it is gone.
    void failed(const QString &error);
    bool releasePending();
    bool ledgerPending() const;
    void renewLeases();
    void onTimer();
    void maybeApplyRetention();
    void recordError(const QString &error);

    const PostgresAddress m_address;
    const PostgresStoreOptions m_options;
    const PostgresIdentity m_self;  // a random instance id per open store: names its reservations and entries

    mutable std::mutex m_mutex;  // guards the members up to m_retentionChanged
    std::vector<WriteOp> m_pending;
    std::vector<std::function<void(bool)>> m_answers;  // of enqueueCommit(), for the next commit
    std::size_t m_inFlight = 0;
    RequestLogBacklog m_backlog;  // request-log rows in m_pending and in the running commit
    bool m_wakePosted = false;
    std::vector<quint64> m_releases;  // reservations to end without a charge
    StoreStats m_stats;
    RetentionPolicy m_retention;
    bool m_retentionChanged = false;

    // Storage thread only.
    PostgresConnection m_connection;
    QSet<quint64> m_held;  // reserved here and not yet ended: their lease is renewed
    QTimer *m_timer = nullptr;
    std::optional<std::chrono::steady_clock::time_point> m_lastRetention;
    std::size_t m_logRowsSinceRetention = 0;  // request-log rows committed since the last pass
    std::optional<std::chrono::steady_clock::time_point> m_lastRenewal;
};

} // namespace sy::storage
