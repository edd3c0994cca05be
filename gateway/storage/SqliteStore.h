#pragma once
// SqliteStore: the Store on one SQLite file (Qt SQL, QSQLITE driver) in WAL mode with
// synchronous=NORMAL and foreign keys on. The schema is versioned (Schema.h) and migrated at open.
//
// Threads: the store owns a worker thread that owns the only read-write connection; the
// connection is created, used and closed there. Writes are queued and committed in one
// transaction every flushInterval or as soon as batchSize items are queued, whichever comes first;
// the request path never waits on the disk for them. Reads, flush() and commitLedger() wait for
// the worker: a ledger entry is committed (with whatever was queued before it) before the call
// returns, one transaction per entry. In WAL mode with synchronous=NORMAL a commit appends to the
// WAL without an fsync.
//
// commitLedgerLater() waits for nobody: it writes the entry to the ledger log (LedgerLogFiles.h,
// two small files beside the database) on the caller's thread and answers within the call; the
// entry then goes to the database with the next batch of writes, and the log forgets it once it
// is there. At open, entries the log still holds (the process died before the database had them)
// are committed before anything can read the ledger. The log is tied to its database by an id in
// the meta table (kMetaLedgerLogId): a log left beside a replaced database is not replayed. When
// the log cannot take an entry (a write error), commitLedgerLater() falls back to the database:
// the worker commits the queue as soon as it is free, all entries that arrived meanwhile in one
// transaction (the queued request-log rows are left to the next flush: fewer pages for a commit
// someone waits for), and answers each on `context`'s thread.
//
// Durability: a committed write, and an entry commitLedgerLater() answered true for, survive the
// process being killed (SIGKILL included); with synchronous=NORMAL, and the log written without
// an fsync, a power loss may take back the last of them, never corrupt the file. Other writes
// still queued when the process dies are lost. A transaction that fails (disk full, I/O error) is
// rolled back and its items stay queued and are retried. While the database falls behind and
// maxQueuedRequests request-log rows wait, requestLogFull() says so (the gateway then refuses new
// requests); the queue holds up to twice that many for the requests already admitted and the
// refusals, further rows are dropped and counted (a warning at most every 10 s); ledger entries
// and the configuration are never dropped.
//
// The file may hold credentials: a new file is created with permissions 0600 (an existing file
// keeps its own). A file that is not SQLite, fails `PRAGMA integrity_check`, or has a schema newer
// than this program is refused and never modified (it is only read through a read-only connection).
#include "storage/LedgerLogFiles.h"
#include "storage/Store.h"

#include <QDateTime>
#include <QString>
#include <QThread>

#include <chrono>
#include <functional>
#include <memory>
#include <variant>

namespace sy::storage {

class SqliteWorker;

struct SqliteStoreOptions {
    std::chrono::milliseconds flushInterval{200};     // the longest a queued write waits
    int batchSize = 500;                              // this many queued items commit at once
    std::chrono::milliseconds retentionInterval{60'000};  // retention runs at most this often
    std::chrono::milliseconds busyTimeout{5'000};  // how long a statement waits for another writer
    // Wall-clock time (UTC) that retention by age measures from; empty = the system clock. Called
    // on the storage thread.
    std::function<QDateTime()> wallClock;
    // The soft bound on the request-log rows waiting (about 2 KiB each without message
    // contents): from this many on, requestLogFull() says so and the gateway refuses new
    // requests. The queue holds up to twice as many; rows beyond that are dropped and counted
    // (StoreStats::droppedRequests). ≤ 0: no bound. Ledger entries, the configuration and meta
    // values are never dropped.
    int maxQueuedRequests = 20'000;
    // The WAL growth (pages) between two checkpoints, on their own thread; past four times it
    // without a restart the writer copies the residue between two commits, so the WAL starts
    // over (SqliteCheckpointer.h). SQLite's automatic checkpoint, inside the commit, is off.
    int checkpointPages = 1'000;
    // commitLedgerLater() through the ledger log. Off: every such entry waits for a database
    // commit, as when the log cannot be written (tests of that path).
    bool ledgerLog = true;
};

class SqliteStore final : public Store {
public:
    // Opens `path`, creating it (and its parent directories) when missing, and migrates an older
    // schema. On refusal, the message says why and the file is as it was. Any thread; the store
    // may then be used and destroyed from any thread but its own worker.
    static std::variant<std::unique_ptr<SqliteStore>, QString> open(const QString &path,
                                                                    const SqliteStoreOptions &options = {});

    // Commits everything queued, closes the connection and stops the worker thread.
    ~SqliteStore() override;
    SqliteStore(const SqliteStore &) = delete;
    SqliteStore &operator=(const SqliteStore &) = delete;

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
    const QString &path() const { return m_path; }
    // The ledger log's files and the entries the database does not have yet; nothing without a
    // log (SqliteStoreOptions::ledgerLog). Any thread.
    std::optional<LedgerLogFiles::Sizes> ledgerLogSizes() const;

private:
    SqliteStore(QString path, const SqliteStoreOptions &options);
    // Runs `work` on the worker thread and waits for it (directly when already there).
    template <class Work>
    auto onWorker(Work &&work);
    // Opens the ledger log, commits what it kept from an earlier run, then empties it. Returns
    // the refusal, or an empty string.
    QString openLedgerLog();

    QString m_path;
    std::unique_ptr<LedgerLogFiles> m_ledgerLog;  // null: none; outlives the worker's last commit
    QThread m_thread;
    std::unique_ptr<SqliteWorker> m_worker;  // lives on m_thread; deleted after it stopped
};

} // namespace sy::storage
