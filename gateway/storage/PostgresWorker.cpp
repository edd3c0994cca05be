#include "storage/PostgresWorker.h"

#include "storage/PostgresBatch.h"
#include "storage/PostgresSchema.h"
#include "storage/Schema.h"

#include <QLoggingCategory>
#include <QScopeGuard>
#include <QUuid>

#include <algorithm>
#include <utility>

Q_LOGGING_CATEGORY(lcPostgres, "switchyard.storage.postgres")

namespace sy::storage {

PostgresWorker::PostgresWorker(PostgresAddress address, const PostgresStoreOptions &options)
    : m_address(std::move(address))
    , m_options(options)
    , m_self{QUuid::createUuid().toString(QUuid::WithoutBraces)}
    , m_backlog(options.maxQueuedRequests)
    , m_connection(m_address, options.statementTimeout)
{
}

PostgresWorker::~PostgresWorker() = default;

QString PostgresWorker::open()
{
    if (std::optional<QString> error = m_connection.open())
        return QStringLiteral("cannot connect to PostgreSQL at %1: %2").arg(m_address.redacted(), *error);
    if (std::optional<QString> error = migratePostgres(m_connection.db(), postgresMigrations())) {
        m_connection.close();
        return QStringLiteral("cannot use the PostgreSQL database %1: %2").arg(m_address.redacted(), *error);
    }
    m_connection.markUp();
    m_timer = new QTimer(this);
    m_timer->setInterval(m_options.flushInterval);
    QObject::connect(m_timer, &QTimer::timeout, this, &PostgresWorker::onTimer);
    m_timer->start();
    return {};
}

bool PostgresWorker::ensureConnected()
{
    const std::optional<QString> error = m_connection.ensure();
    if (error && !error->isEmpty())
        recordError(*error);
    return !error;
}

void PostgresWorker::failed(const QString &error)
{
    recordError(error);
    m_connection.check(error);
}

void PostgresWorker::close()
{
    if (m_timer) {
        m_timer->stop();
        delete m_timer;
        m_timer = nullptr;
    }
    if (!commitPending()) {
        std::lock_guard lock(m_mutex);
        qCWarning(lcPostgres) << "closing with" << m_pending.size() << "writes that could not be committed:"
                              << m_stats.lastError;
    }
    // What this gateway still holds goes back now rather than when its lease runs out.
    for (quint64 id : std::as_const(m_held))
        enqueueRelease(id);
    releasePending();
    m_connection.close();
}

void PostgresWorker::enqueue(WriteOp op)
{
    bool wake = false;
    RequestLogBacklog::Warnings warnings;
    {
        std::lock_guard lock(m_mutex);
        if (std::holds_alternative<StoredRequest>(op)
            && !m_backlog.admit(RequestLogBacklog::Clock::now(), warnings)) {
            m_stats.droppedRequests = m_backlog.dropped();
        } else {
            m_pending.push_back(std::move(op));
        }
        if (m_pending.size() >= std::size_t(m_options.batchSize) && !m_wakePosted) {
            m_wakePosted = true;
            wake = true;
        }
    }
    if (warnings.full)
        qCWarning(lcPostgres) << "the database falls behind:" << warnings.full
                              << "request-log rows wait to be written; new requests are refused until"
                                 " fewer than that wait";
    if (warnings.dropped)
        qCWarning(lcPostgres) << "the database falls behind: dropped" << warnings.dropped
                              << "request-log rows since the last warning; the write queue holds at most"
                              << m_backlog.hardBound() << "(ledger entries are never dropped)";
    if (wake)
        QMetaObject::invokeMethod(this, [this] { onTimer(); }, Qt::QueuedConnection);
}

void PostgresWorker::enqueueLedger(StoredLedgerEntry entry)
{
    {
        std::lock_guard lock(m_mutex);
        if (holdsLedgerEntry(m_pending, entry.sequence))
            return;
    }
    enqueue(std::move(entry));
}

void PostgresWorker::enqueueCommit(StoredLedgerEntry entry, std::function<void(bool)> answered)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        wake = queueLedgerCommit(m_pending, m_answers, m_wakePosted, std::move(entry), std::move(answered));
    }
    // A commit already on its way takes this entry too; one running now leaves it to the next.
    if (wake)
        QMetaObject::invokeMethod(this, [this] { commitPending(); }, Qt::QueuedConnection);
}

bool PostgresWorker::ledgerPending() const
{
    std::lock_guard lock(m_mutex);
    return std::any_of(m_pending.begin(), m_pending.end(),
                       [](const WriteOp &op) { return std::holds_alternative<StoredLedgerEntry>(op); });
}

void PostgresWorker::enqueueRelease(quint64 id)
{
    std::lock_guard lock(m_mutex);
    m_releases.push_back(id);
}

void PostgresWorker::setRetention(RetentionPolicy policy)
{
    std::lock_guard lock(m_mutex);
    if (policy.maxAgeDays != m_retention.maxAgeDays || policy.maxCount != m_retention.maxCount)
        m_retentionChanged = true;
    m_retention = policy;
}

StoreStats PostgresWorker::stats() const
{
    std::lock_guard lock(m_mutex);
    StoreStats stats = m_stats;
    stats.pendingWrites = m_pending.size() + m_inFlight;
    stats.pendingRequests = m_backlog.queued();
    return stats;
}

bool PostgresWorker::commitPending()
{
    std::vector<WriteOp> batch;
    std::vector<std::function<void(bool)>> answers;
    {
        std::lock_guard lock(m_mutex);
        m_wakePosted = false;
        batch.swap(m_pending);
        answers.swap(m_answers);
        m_inFlight = batch.size();
    }
    if (batch.empty())
        return true;
    std::optional<bool> committed;
    // At the end, after the lock below is released: an answer may queue more writes.
    const auto answerAtTheEnd = qScopeGuard([&answers, &committed] {
        for (const std::function<void(bool)> &answered : answers)
            answered(committed.value_or(false));
    });
    BatchOutcome outcome;
    std::vector<quint64> ended;
    std::optional<QString> error;
    if (!ensureConnected())
        error = QStringLiteral("not connected to %1").arg(m_address.redacted());
    else if ((error = writePostgresBatch(m_connection.db(), m_self, batch, outcome, ended)))
        m_connection.check(*error);
    for (quint64 id : ended)
        m_held.remove(id);
    std::lock_guard lock(m_mutex);
    m_inFlight = 0;
    if (error) {
        ++m_stats.failedTransactions;
        // Once per outage, not at every retry of the timer.
        if (m_stats.lastError != *error)
            qCWarning(lcPostgres) << "write of" << batch.size() << "items failed and will be retried:" << *error;
        m_stats.lastError = *error;
        batch.insert(batch.end(), std::make_move_iterator(m_pending.begin()), std::make_move_iterator(m_pending.end()));
        m_pending = std::move(batch);
        committed = false;
        return false;
    }
    committed = true;
    const auto logRows = std::size_t(std::count_if(batch.begin(), batch.end(), [](const WriteOp &op) {
        return std::holds_alternative<StoredRequest>(op);
    }));
    m_logRowsSinceRetention += logRows;
    m_backlog.left(logRows);
    if (outcome.ignoredLedgerEntries > 0)
        qCInfo(lcPostgres).noquote() << "ledger entries already booked:" << outcome.ignoredSamples.join(QStringLiteral("; "));
    ++m_stats.transactions;
    m_stats.committedWrites += batch.size() - outcome.rejected;
    m_stats.ignoredLedgerEntries += outcome.ignoredLedgerEntries;
    m_stats.rejectedWrites += outcome.rejected;
    return true;
}

SharedAdmission PostgresWorker::reserve(const StoredReservation &reservation)
{
    // When this fails because the server is away, so does the admission below.
    if (ledgerPending())
        commitPending();
    // A connection the server dropped while it was idle (a restart since the last statement) is
    // found out only by a statement: the admission is then asked once more, on a new connection.
    // Asking again is safe: sy_reserve keeps a reservation of the same id that an answer lost on
    // the way had made.
    for (int attempt = 1;; ++attempt) {
        const bool wasUp = m_connection.isUp();
        if (!ensureConnected())
            return SharedAdmission::Unavailable;
        const auto verdict = reserveShared(m_connection.db(), m_self, reservation, m_address.reservationLease);
        if (const QString *error = std::get_if<QString>(&verdict)) {
            failed(*error);
            if (attempt == 1 && wasUp && !m_connection.isUp())
                continue;
            return SharedAdmission::Unavailable;
        }
        const SharedAdmission admission = std::get<SharedAdmission>(verdict);
        if (admission == SharedAdmission::Admitted)
            m_held.insert(reservation.id);
        return admission;
    }
}

bool PostgresWorker::releasePending()
{
    std::vector<quint64> ids;
    {
        std::lock_guard lock(m_mutex);
        ids.swap(m_releases);
    }
    if (ids.empty())
        return true;
    for (quint64 id : ids)
        m_held.remove(id);  // no longer renewed, released or not
    bool ok = ensureConnected();
    if (ok) {
        if (std::optional<QString> error = deleteReservations(m_connection.db(), m_self, ids)) {
            failed(*error);
            ok = false;
        }
    }
    if (!ok) {
        std::lock_guard lock(m_mutex);
        m_releases.insert(m_releases.begin(), ids.begin(), ids.end());
    }
    return ok;
}

void PostgresWorker::renewLeases()
{
    const auto now = std::chrono::steady_clock::now();
    if (m_lastRenewal && now - *m_lastRenewal < m_address.reservationLease / 3)
        return;
    if (!ensureConnected())
        return;
    // Only a renewal that happened counts: one that failed is tried again at the next tick.
    if (std::optional<QString> error = renewReservations(m_connection.db(), m_self, m_held.values(), m_address.reservationLease))
        failed(*error);
    else
        m_lastRenewal = now;
}

std::optional<StoredConfigVersion> PostgresWorker::configVersion()
{
    commitPending();  // this gateway's own edit first: the version read is then the latest word
    if (!ensureConnected())
        return std::nullopt;
    auto version = readConfigVersion(m_connection.db(), m_self);
    if (const QString *error = std::get_if<QString>(&version)) {
        failed(*error);
        return std::nullopt;
    }
    return std::get<StoredConfigVersion>(version);
}

int PostgresWorker::applyRetentionNow()
{
    RetentionPolicy policy;
    {
        std::lock_guard lock(m_mutex);
        policy = m_retention;
    }
    if ((policy.maxAgeDays <= 0 && policy.maxCount <= 0) || !ensureConnected())
        return 0;
    const auto deleted = trimSharedRequestLog(m_connection.db(), policy, QDateTime::currentDateTimeUtc());
    if (const QString *error = std::get_if<QString>(&deleted)) {
        failed(*error);
        return 0;
    }
    std::lock_guard lock(m_mutex);
    m_stats.retentionDeleted += quint64(std::get<int>(deleted));
    return std::get<int>(deleted);
}

void PostgresWorker::onTimer()
{
    commitPending();
    releasePending();
    renewLeases();
    maybeApplyRetention();
}

void PostgresWorker::maybeApplyRetention()
{
    const auto now = std::chrono::steady_clock::now();
    bool changed = false;
    int maxCount = 0;
    {
        std::lock_guard lock(m_mutex);
        changed = std::exchange(m_retentionChanged, false);
        maxCount = m_retention.maxCount;
    }
    // As SqliteWorker: past the count cap by a tenth of it (at least 1,000 rows) the pass runs
    // now, not only at the interval, so the table stays within a tenth of its cap under load and
    // each pass deletes about that much. The rows counted are this gateway's: with several
    // gateways on one database the table may pass its cap by a tenth per gateway.
    const bool overCap = maxCount > 0 && m_logRowsSinceRetention >= std::size_t(std::max(1000, maxCount / 10));
    if (!changed && !overCap && m_lastRetention && now - *m_lastRetention < m_options.retentionInterval)
        return;
    m_lastRetention = now;
    m_logRowsSinceRetention = 0;
    applyRetentionNow();
}

void PostgresWorker::recordError(const QString &error)
{
    std::lock_guard lock(m_mutex);
    if (m_stats.lastError != error)  // once per outage, not at every retry
        qCWarning(lcPostgres).noquote() << "database error:" << error;
    m_stats.lastError = error;
}

} // namespace sy::storage
