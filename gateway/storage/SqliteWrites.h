#pragma once
// The write side of SqliteStore: a batch of queued items in one transaction, and the retention of
// the request log. Internal to SqliteStore.
//
// Thread: the thread that owns the connection passed in (the store's worker thread).
#include "storage/StoredTypes.h"

#include <QSqlDatabase>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace sy::storage {

struct ConfigWrite {
    QByteArray json;
    QDateTime at;  // when saveConfig was called (updated_at)
};

struct MetaWrite {
    QString key;
    QString value;
};

using WriteOp = std::variant<StoredLedgerEntry, StoredRequest, ConfigWrite, MetaWrite>;

// Whether `queue` holds the ledger entry numbered `sequence` (an entry submitted again while its
// earlier copy still waits, e.g. after a failed commit, is not queued twice).
inline bool holdsLedgerEntry(const std::vector<WriteOp> &queue, quint64 sequence)
{
    return std::any_of(queue.begin(), queue.end(), [sequence](const WriteOp &op) {
        const auto *entry = std::get_if<StoredLedgerEntry>(&op);
        return entry && entry->sequence == sequence;
    });
}

// The QSQLITE driver's own connection handle of `db`; null when `db` is not an open SQLite one.
sqlite3 *sqliteHandleOf(const QSqlDatabase &db);

// Queues ledger `entry` for a prompt commit, once (holdsLedgerEntry), with `answered`, which the
// worker's next commit runs; true when no wake of the worker is on its way yet (`wakePosted` is
// then set and the caller posts one). For the stores' workers, under their queue's mutex.
inline bool queueLedgerCommit(std::vector<WriteOp> &pending, std::vector<std::function<void(bool)>> &answers,
                              bool &wakePosted, StoredLedgerEntry entry, std::function<void(bool)> answered)
{
    if (!holdsLedgerEntry(pending, entry.sequence))
        pending.push_back(std::move(entry));
    answers.push_back(std::move(answered));
    return !std::exchange(wakePosted, true);
}

// Requests per multi-row INSERT of writeBatch.
inline constexpr int kRequestsPerInsert = 16;

struct BatchOutcome {
    quint64 ignoredLedgerEntries = 0;  // INSERT OR IGNORE skipped them: already booked
    QStringList ignoredSamples;        // the first few of them, "sequence N, request R", for the log
    quint64 rejected = 0;              // invalid items, dropped
};

// The prepared statements of writeBatch, kept across batches of one connection (SQLite C API on
// the QSQLITE driver's handle: text is bound as UTF-8, without a UTF-16 copy). finalize() must
// run before the connection is closed: SQLite does not close a connection with live statements.
class WriteStatements {
public:
    WriteStatements() = default;
    ~WriteStatements() { finalize(); }
    WriteStatements(const WriteStatements &) = delete;
    WriteStatements &operator=(const WriteStatements &) = delete;

    void finalize();
    // The statement `index` for `sql` on `handle`, prepared on first use; null on error (`error` set).
    sqlite3_stmt *get(sqlite3 *handle, int index, const char *sql, std::optional<QString> &error);

private:
    sqlite3 *m_handle = nullptr;
    sqlite3_stmt *m_statements[5] = {};
};

// Writes `ops` in order in one transaction; consecutive requests go in kRequestsPerInsert at a
// time, one multi-row INSERT each (fewer statement runs per row). Ledger entries go in with
// INSERT OR IGNORE, so a
// duplicate charge (or sequence) is skipped and reported, never fails the batch; requests, the
// configuration and meta values replace what was there. On a database error the transaction is
// rolled back and the message returned: none of `ops` was written.
std::variant<BatchOutcome, QString> writeBatch(QSqlDatabase &db, const std::vector<WriteOp> &ops,
                                              WriteStatements &statements);

struct RetentionPolicy {
    int maxAgeDays = 0;  // ≤ 0: no age bound
    int maxCount = 0;    // ≤ 0: no count bound
};

// Deletes the requests older than `maxAgeDays` before `nowUtc` and all but the `maxCount` newest,
// in one transaction. Returns the number deleted, or the error (nothing deleted).
std::variant<int, QString> trimRequestLog(QSqlDatabase &db, RetentionPolicy policy, const QDateTime &nowUtc);

} // namespace sy::storage
