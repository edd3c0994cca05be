#include "storage/SqliteWorker.h"

#include "storage/DatabaseFile.h"
#include "storage/LedgerLogFiles.h"
#include "storage/Schema.h"

#include <QLoggingCategory>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <atomic>
#include <utility>

Q_LOGGING_CATEGORY(lcStorage, "switchyard.storage")

namespace sy::storage {

namespace {

constexpr char kDriver[] = "QSQLITE";

// The sequences of the ledger entries in `batch` (all of them are done once it committed: written,
// or ignored or rejected by the database).
std::vector<quint64> ledgerSequencesOf(const std::vector<WriteOp> &batch)
{
    std::vector<quint64> sequences;
    for (const WriteOp &op : batch)
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op))
            sequences.push_back(entry->sequence);
    return sequences;
}

QString uniqueConnectionName()
{
    static std::atomic<quint64> counter{0};
    return QStringLiteral("switchyard-storage-%1").arg(counter.fetch_add(1) + 1);
}

} // namespace

SqliteWorker::SqliteWorker(QString path, const SqliteStoreOptions &options)
    : m_path(std::move(path))
    , m_options(options)
    , m_connectionName(uniqueConnectionName())
    , m_backlog(options.maxQueuedRequests)
{
}

SqliteWorker::~SqliteWorker() = default;

QString SqliteWorker::open(bool isNew)
{
    if (!isNew) {
        if (std::optional<QString> refusal = validateExisting())
            return *refusal;
    }
    if (std::optional<QString> error = openReadWrite()) {
        closeConnection();
        return QStringLiteral("cannot open %1: %2").arg(m_path, *error);
    }
    if (sqlite3 *writer = sqliteHandleOf(m_db)) {
        m_checkpointer = std::make_unique<SqliteCheckpointer>(m_path, m_options.checkpointPages, int(m_options.busyTimeout.count()));
        m_checkpointer->attach(writer);
    }
    // Single-shot, armed only when there is work (see scheduleNext): an idle store never wakes.
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] { onWake(CommitScope::Everything); });
    // One first tick: commits what was queued before the open and starts the retention clock.
    m_timer->start(m_options.flushInterval);
    return {};
}

QString SqliteWorker::busyTimeoutOption() const
{
    return QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_options.busyTimeout.count());
}

std::optional<QString> SqliteWorker::validateExisting()
{
    // Read-only: whatever the file turns out to be, this connection cannot change it.
    const SidecarFiles sidecars(m_path);
    const QString name = m_connectionName + QStringLiteral("-check");
    std::optional<QString> refusal;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QLatin1String(kDriver), name);
        db.setDatabaseName(m_path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;") + busyTimeoutOption());
        if (!db.open()) {
            refusal = QStringLiteral("cannot read %1: %2").arg(m_path, db.lastError().text());
        } else if (std::optional<QString> damage = checkIntegrity(db)) {
            refusal = QStringLiteral("%1 is damaged (integrity check: %2); it was left unchanged").arg(m_path, *damage);
        } else {
            const auto version = readSchemaVersion(db);
            if (const QString *error = std::get_if<QString>(&version))
                refusal = QStringLiteral("cannot read the schema version of %1: %2; it was left unchanged")
                              .arg(m_path, *error);
            else if (std::get<int>(version) > kSchemaVersion)
                refusal = QStringLiteral("%1 was written by a newer Switchyard (schema version %2, this program"
                                         " knows up to %3); it was left unchanged")
                              .arg(m_path)
                              .arg(std::get<int>(version))
                              .arg(kSchemaVersion);
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    sidecars.removeCreatedSince();
    return refusal;
}

std::optional<QString> SqliteWorker::openReadWrite()
{
    m_db = QSqlDatabase::addDatabase(QLatin1String(kDriver), m_connectionName);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(busyTimeoutOption());
    if (!m_db.open())
        return m_db.lastError().text();
    {
        QSqlQuery query(m_db);
        // WAL before the migration, so a migration interrupted by a crash is rolled back from the
        // WAL like any other transaction.
        if (!query.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !query.next())
            return query.lastError().text();
        if (query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
            qCWarning(lcStorage) << "WAL mode is not available for" << m_path << "- using journal mode"
                                 << query.value(0).toString();
        query.finish();
        if (!query.exec(QStringLiteral("PRAGMA synchronous=NORMAL")))
            return query.lastError().text();
        if (!query.exec(QStringLiteral("PRAGMA foreign_keys=ON")))
            return query.lastError().text();
        // Deleted content is overwritten, not only unlinked: a replaced configuration document
        // (e.g. one whose credentials moved into the OS keychain) leaves no readable copy in
        // freed pages.
        if (!query.exec(QStringLiteral("PRAGMA secure_delete=ON")))
            return query.lastError().text();
        // Statement journals in memory: a multi-row INSERT of the request log journals the pages
        // it changes (for a rollback of that statement alone), and past 64 KiB SQLite spilled
        // them to a temporary file, two pwrite64 per page, about three per logged request.
        if (!query.exec(QStringLiteral("PRAGMA temp_store=MEMORY")))
            return query.lastError().text();
    }
    return migrate(m_db, schemaMigrations());
}

void SqliteWorker::close()
{
    if (m_timer) {
        m_timer->stop();
        delete m_timer;
        m_timer = nullptr;
    }
    if (!m_db.isOpen())
        return;
    if (!commitPending()) {
        std::lock_guard lock(m_mutex);
        qCWarning(lcStorage) << "closing" << m_path << "with" << queuedLocked()
                             << "writes that could not be committed:" << m_stats.lastError;
    }
    closeConnection();
}

void SqliteWorker::closeConnection()
{
    m_checkpointer.reset();  // first: the writer's close is then the last one (it removes the WAL)
    m_writeStatements.finalize();
    m_db.close();
    m_db = QSqlDatabase();  // the last handle must be gone before removeDatabase
    QSqlDatabase::removeDatabase(m_connectionName);
}

void SqliteWorker::enqueue(WriteOp op)
{
    bool wake = false;
    bool arm = false;
    RequestLogBacklog::Warnings warnings;
    {
        std::lock_guard lock(m_mutex);
        const bool isRequest = std::holds_alternative<StoredRequest>(op);
        if (isRequest && !m_backlog.admit(RequestLogBacklog::Clock::now(), warnings)) {
            m_stats.droppedRequests = m_backlog.dropped();
        } else if (isRequest) {
            m_pendingRequests.push_back(std::move(op));
        } else {
            m_pending.push_back(std::move(op));
        }
        const std::size_t queued = queuedLocked();
        if (queued >= std::size_t(m_options.batchSize) && !m_wakePosted) {
            m_wakePosted = true;
            wake = true;
        } else if (queued == 1 && !m_armPosted) {
            // The first write after a quiet spell: the timer may be stopped.
            m_armPosted = true;
            arm = true;
        }
    }
    if (warnings.full)
        qCWarning(lcStorage) << "the database" << m_path << "falls behind:" << warnings.full
                             << "request-log rows wait to be written; new requests are refused until"
                                " fewer than that wait";
    if (warnings.dropped)
        qCWarning(lcStorage) << "the database" << m_path << "falls behind: dropped" << warnings.dropped
                             << "request-log rows since the last warning; the write queue holds at most"
                             << m_backlog.hardBound() << "(ledger entries are never dropped)";
    if (wake)
        QMetaObject::invokeMethod(this, [this] { onWake(CommitScope::Everything); }, Qt::QueuedConnection);
    else if (arm)
        QMetaObject::invokeMethod(this, [this] { scheduleNext(); }, Qt::QueuedConnection);
}

void SqliteWorker::enqueueCommit(StoredLedgerEntry entry, std::function<void(bool)> answered)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        wake = queueLedgerCommit(m_pending, m_answers, m_wakePosted, std::move(entry), std::move(answered));
    }
    // A commit already on its way takes this entry too; one running now leaves it to the next.
    if (wake)
        QMetaObject::invokeMethod(this, [this] { onWake(CommitScope::Ledger); }, Qt::QueuedConnection);
}

void SqliteWorker::setRetention(RetentionPolicy policy)
{
    bool arm = false;
    {
        std::lock_guard lock(m_mutex);
        if (policy.maxAgeDays != m_retention.maxAgeDays || policy.maxCount != m_retention.maxCount) {
            m_retentionChanged = true;
            arm = !std::exchange(m_armPosted, true);
        }
        m_retention = policy;
    }
    if (arm)
        QMetaObject::invokeMethod(this, [this] { scheduleNext(); }, Qt::QueuedConnection);
}

void SqliteWorker::scheduleNext()
{
    bool flushDue = false;
    {
        std::lock_guard lock(m_mutex);
        m_armPosted = false;
        flushDue = queuedLocked() > 0 || m_retentionChanged;
    }
    if (!m_timer)
        return;
    std::chrono::milliseconds due;
    if (flushDue) {
        due = m_options.flushInterval;
    } else if (m_wroteSinceRetention) {
        // Retention follows writes: one pass once its interval has passed since the last one,
        // then nothing until the next write. Rows that age past max_age while nothing is written
        // are removed with the next write's pass.
        const auto now = std::chrono::steady_clock::now();
        const auto next = m_lastRetention ? *m_lastRetention + m_options.retentionInterval : now;
        due = std::max(std::chrono::milliseconds(0),
                       std::chrono::duration_cast<std::chrono::milliseconds>(next - now));
    } else {
        return;
    }
    if (!m_timer->isActive() || std::chrono::milliseconds(m_timer->remainingTime()) > due)
        m_timer->start(due);
}

StoreStats SqliteWorker::stats() const
{
    std::lock_guard lock(m_mutex);
    StoreStats stats = m_stats;
    stats.pendingWrites = queuedLocked() + m_inFlight;
    stats.pendingRequests = m_backlog.queued();
    return stats;
}

bool SqliteWorker::commitPending(CommitScope scope)
{
    std::vector<WriteOp> batch;
    std::vector<std::function<void(bool)>> answers;
    {
        std::lock_guard lock(m_mutex);
        m_wakePosted = false;
        const bool everything = scope == CommitScope::Everything || queuedLocked() >= std::size_t(m_options.batchSize);
        batch.swap(m_pending);
        if (everything) {
            batch.insert(batch.end(), std::make_move_iterator(m_pendingRequests.begin()),
                         std::make_move_iterator(m_pendingRequests.end()));
            m_pendingRequests.clear();
        }
        answers.swap(m_answers);
        m_inFlight = batch.size();
    }
    if (batch.empty())
        return true;
    const auto result = m_db.isOpen() ? writeBatch(m_db, batch, m_writeStatements)
                                      : std::variant<BatchOutcome, QString>(QStringLiteral("database is closed"));
    // At the end, after the lock below is released: an answer may queue more writes.
    const auto answerAtTheEnd = qScopeGuard([&answers, committed = std::holds_alternative<BatchOutcome>(result)] {
        for (const std::function<void(bool)> &answered : answers)
            answered(committed);
    });
    if (m_ledgerLog && std::holds_alternative<BatchOutcome>(result))
        m_ledgerLog->committed(ledgerSequencesOf(batch));
    std::lock_guard lock(m_mutex);
    m_inFlight = 0;
    if (const QString *error = std::get_if<QString>(&result)) {
        ++m_stats.failedTransactions;
        m_stats.lastError = *error;
        qCWarning(lcStorage) << "write of" << batch.size() << "items to" << m_path
                             << "failed and will be retried:" << *error;
        // Back to the front, so the order of writes is kept (request-log rows taken by this
        // commit go in front of the other writes: the next commit, whichever, takes them).
        batch.insert(batch.end(), std::make_move_iterator(m_pending.begin()),
                     std::make_move_iterator(m_pending.end()));
        m_pending = std::move(batch);
        // Retried at the next flush tick, whoever called this commit.
        if (!std::exchange(m_armPosted, true))
            QMetaObject::invokeMethod(this, [this] { scheduleNext(); }, Qt::QueuedConnection);
        return false;
    }
    const BatchOutcome &outcome = std::get<BatchOutcome>(result);
    if (outcome.ignoredLedgerEntries > 0)
        qCWarning(lcStorage).noquote() << "ignored" << outcome.ignoredLedgerEntries
                                       << "ledger entries already booked (a charge for the same request,"
                                          " or the same sequence):"
                                       << outcome.ignoredSamples.join(QStringLiteral("; "));
    // A configuration write leaves the previous document in earlier WAL frames: copy the WAL
    // into the database and empty it, so the file holds only the new one. Configuration writes
    // are rare (edits), so the cost does not matter.
    const bool wroteConfig = std::any_of(batch.begin(), batch.end(),
                                         [](const WriteOp &op) { return std::holds_alternative<ConfigWrite>(op); });
    if (wroteConfig) {
        QSqlQuery checkpoint(m_db);
        if (!checkpoint.exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")))
            qCWarning(lcStorage) << "checkpoint of" << m_path << "failed:" << checkpoint.lastError().text();
    }
    m_wroteSinceRetention = true;
    const auto logRows = std::size_t(std::count_if(batch.begin(), batch.end(), [](const WriteOp &op) {
        return std::holds_alternative<StoredRequest>(op);
    }));
    m_logRowsSinceRetention += logRows;
    m_backlog.left(logRows);
    ++m_stats.transactions;
    m_stats.committedWrites += batch.size() - outcome.rejected;
    m_stats.ignoredLedgerEntries += outcome.ignoredLedgerEntries;
    m_stats.rejectedWrites += outcome.rejected;
    return true;  // items queued meanwhile by other threads belong to the next commit
}

void SqliteWorker::onWake(CommitScope scope)
{
    commitPending(scope);
    // After the commit's answers went out, so none waits for it (SqliteCheckpointer.h).
    if (m_checkpointer) {
        bool queueEmpty = false;
        {
            std::lock_guard lock(m_mutex);
            queueEmpty = queuedLocked() == 0;
            // As of this commit (a checkpoint still running is counted after the next one).
            m_stats.walCheckpoints = quint64(m_checkpointer->checkpoints() + m_checkpointer->writerCheckpoints());
        }
        m_checkpointer->checkpointResidueIfDue(queueEmpty);
    }
    maybeApplyRetention();
    scheduleNext();
}

void SqliteWorker::maybeApplyRetention()
{
    const auto now = std::chrono::steady_clock::now();
    bool changed = false;
    int maxCount = 0;
    {
        std::lock_guard lock(m_mutex);
        changed = std::exchange(m_retentionChanged, false);
        maxCount = m_retention.maxCount;
    }
    // Past the count cap by a tenth of it (at least 1,000 rows), the pass runs now rather than at
    // the interval: under sustained load the log would otherwise grow by a minute of requests
    // past the cap, and one pass would then delete them all at once (secure_delete overwrites
    // every freed page) while every insert paid for the bigger table and indexes.
    const bool overCap = maxCount > 0 && m_logRowsSinceRetention >= std::size_t(std::max(1000, maxCount / 10));
    if (!changed && !overCap && m_lastRetention && now - *m_lastRetention < m_options.retentionInterval)
        return;
    m_lastRetention = now;
    m_wroteSinceRetention = false;
    m_logRowsSinceRetention = 0;
    applyRetentionNow();
}

int SqliteWorker::applyRetentionNow()
{
    RetentionPolicy policy;
    {
        std::lock_guard lock(m_mutex);
        policy = m_retention;
    }
    if (!m_db.isOpen())
        return 0;
    const QDateTime nowUtc = m_options.wallClock ? m_options.wallClock().toUTC() : QDateTime::currentDateTimeUtc();
    const auto result = trimRequestLog(m_db, policy, nowUtc);
    if (const QString *error = std::get_if<QString>(&result)) {
        recordError(*error);
        return 0;
    }
    std::lock_guard lock(m_mutex);
    m_stats.retentionDeleted += quint64(std::get<int>(result));
    return std::get<int>(result);
}

void SqliteWorker::recordError(const QString &error)
{
    qCWarning(lcStorage) << "database error on" << m_path << ":" << error;
    std::lock_guard lock(m_mutex);
    m_stats.lastError = error;
}

} // namespace sy::storage
