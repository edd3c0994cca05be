#pragma once
// SqliteWorker: SqliteStore's half on the storage thread — the read-write connection, the queue
// of writes, the flush timer and retention. The timer runs only while there is work: queued
// writes, a changed retention policy, or the retention pass that writes made due. After a commit
// of the timer (or of a wake), once its answers went out, the writer's connection may copy the
// WAL's residue (SqliteCheckpointer.h). Internal to SqliteStore.
//
// Thread: constructed on any thread, then moved to the storage thread. Methods marked "any
// thread" take the queue's mutex; all others run on the storage thread only.
#include "storage/RequestLogBacklog.h"
#include "storage/SqliteCheckpointer.h"
#include "storage/SqliteReads.h"
#include "storage/SqliteStore.h"
#include "storage/SqliteWrites.h"

#include <QObject>
#include <QSqlDatabase>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace sy::storage {

class LedgerLogFiles;

class SqliteWorker final : public QObject {
public:
    SqliteWorker(QString path, const SqliteStoreOptions &options);
    ~SqliteWorker() override;

    // Validates an existing file through a read-only connection (skipped when `isNew`), then
    // opens the read-write connection, sets the pragmas, migrates and starts the flush timer.
    // Returns the refusal, or an empty string. On refusal no connection is left open.
    QString open(bool isNew);
    // Commits the queue, stops the timer and closes the connection. Idempotent.
    void close();

    // Any thread: queue a write; wakes the worker when batchSize items are waiting. A
    // request-log row beyond twice maxQueuedRequests is dropped (counted) instead.
    void enqueue(WriteOp op);
    // Any thread: queue a ledger entry and have it committed soon, in one transaction with the
    // other writes queued by then but the request-log rows (CommitScope::Ledger);
    // `answered(committed)` runs on the storage thread after it.
    void enqueueCommit(StoredLedgerEntry entry, std::function<void(bool)> answered);
    // The ledger log whose entries this worker's commits confirm (LedgerLogFiles::committed);
    // null: none. Set before entries are written to it; it must outlive the worker's last commit.
    void setLedgerLog(LedgerLogFiles *log) { m_ledgerLog = log; }
    // Any thread.
    void setRetention(RetentionPolicy policy);
    StoreStats stats() const;
    // Any thread, lock-free: Store::requestLogFull().
    std::optional<quint64> requestLogFull() const { return m_backlog.full(); }

    // What a commit takes from the queue. A commit that answers wait for (a charged client
    // answer waits for its charge, when the ledger log could not take it: SqliteStore.h) leaves
    // the request-log rows queued,
    // so its transaction writes the ledger's pages and not also each row and its four index
    // pages: the rows follow at the flush, many to a transaction. With batchSize items queued it
    // takes everything.
    enum class CommitScope { Everything, Ledger };
    // Commits what `scope` takes of the queue in one transaction. False when that transaction
    // failed (its items are queued again, in front).
    bool commitPending(CommitScope scope = CommitScope::Everything);
    // Applies the retention policy now; returns the number of requests deleted.
    int applyRetentionNow();

    // Commits the queue (reads see earlier writes), then runs `read` on the connection; a
    // database error is recorded in stats() and yields an empty T.
    template <class T, class Read>
    T readAfterCommit(Read &&read)
    {
        commitPending();
        ReadResult<T> result = read(static_cast<const QSqlDatabase &>(m_db));
        if (const QString *error = std::get_if<QString>(&result)) {
            recordError(*error);
            return T{};
        }
        return std::move(std::get<T>(result));
    }

private:
    QString busyTimeoutOption() const;
    std::optional<QString> validateExisting();
    std::optional<QString> openReadWrite();
    void closeConnection();
    // A flush (the timer, batchSize) or a ledger commit's wake: the commit, then the WAL's
    // residue, retention and the next tick.
    void onWake(CommitScope scope);
    // Arms the single-shot timer for the next work: a flush when writes or a retention change
    // wait, else the retention pass that writes since the last one make due; else leaves it
    // stopped.
    void scheduleNext();
    void maybeApplyRetention();
    void recordError(const QString &error);

    const QString m_path;
    const SqliteStoreOptions m_options;
    const QString m_connectionName;  // unique per worker

    // Under m_mutex: the writes queued in both queues.
    std::size_t queuedLocked() const { return m_pending.size() + m_pendingRequests.size(); }

    mutable std::mutex m_mutex;  // guards the members up to m_retention
    std::vector<WriteOp> m_pending;          // in order: ledger entries, configuration, meta values
    std::vector<WriteOp> m_pendingRequests;  // in order: request-log rows (StoredRequest)
    std::vector<std::function<void(bool)>> m_answers;  // of enqueueCommit(), for the next commit
    std::size_t m_inFlight = 0;  // items taken from the queues by the running commit
    RequestLogBacklog m_backlog;  // request-log rows queued and in the running commit
    bool m_wakePosted = false;
    bool m_armPosted = false;   // a scheduleNext() is on its way to the storage thread
    StoreStats m_stats;
    RetentionPolicy m_retention;
    bool m_retentionChanged = false;  // apply at the next tick, whatever the interval

    LedgerLogFiles *m_ledgerLog = nullptr;  // set before the store is shared

    // Storage thread only.
    QSqlDatabase m_db;
    WriteStatements m_writeStatements;  // on m_db; finalized before it closes
    std::unique_ptr<SqliteCheckpointer> m_checkpointer;  // attached to m_db; stopped before it closes
    QTimer *m_timer = nullptr;  // child of this worker
    std::optional<std::chrono::steady_clock::time_point> m_lastRetention;
    bool m_wroteSinceRetention = false;
    std::size_t m_logRowsSinceRetention = 0;  // request-log rows committed since the last pass
};

} // namespace sy::storage
