#include "storage/PostgresWorker.h"

#include "storage/PostgresSchema.h"
#include "storage/Schema.h"
#include "storage/SqlValues.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QUuid>

#include <atomic>
#include <utility>

Q_LOGGING_CATEGORY(lcPostgres, "switchyard.storage.postgres")

namespace sy::storage {

namespace {

constexpr char kDriver[] = "QPSQL";
// After a failed connection attempt, calls fail at once for this long instead of waiting for the
// server again: a host that does not answer must not hold every request for connect_timeout.
constexpr auto kReconnectPause = std::chrono::milliseconds(500);

QString uniqueConnectionName()
{
    static std::atomic<quint64> counter{0};
    return QStringLiteral("switchyard-postgres-%1").arg(counter.fetch_add(1) + 1);
}

// The server's own words when it gave any (libpq's message), else Qt's.
QString reasonOf(const QSqlError &error)
{
    const QString server = error.databaseText().simplified();
    return server.isEmpty() ? error.text().simplified() : server;
}

QVariant nullText()
{
    return QVariant(QMetaType::fromType<QString>());
}

// A PostgreSQL array literal of reservation keys (no quoting needed: they are uuid:number).
QString textArray(const QStringList &items)
{
    return QLatin1Char('{') + items.join(QLatin1Char(',')) + QLatin1Char('}');
}

} // namespace

PostgresWorker::PostgresWorker(PostgresAddress address, const PostgresStoreOptions &options)
    : m_address(std::move(address))
    , m_options(options)
    , m_connectionName(uniqueConnectionName())
    , m_instanceId(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
}

PostgresWorker::~PostgresWorker() = default;

QString PostgresWorker::reservationKey(quint64 id) const
{
    return m_instanceId + QLatin1Char(':') + QString::number(id);
}

std::optional<QString> PostgresWorker::connect()
{
    m_db = QSqlDatabase::addDatabase(QLatin1String(kDriver), m_connectionName);
    if (!m_db.isValid())
        return QStringLiteral("the PostgreSQL driver of Qt SQL (QPSQL, Debian package libqt6sql6-psql) is not installed");
    m_db.setHostName(m_address.host);
    m_db.setPort(m_address.port);
    m_db.setUserName(m_address.user);
    m_db.setPassword(m_address.password);
    m_db.setDatabaseName(m_address.database);
    m_db.setConnectOptions(m_address.connectOptions);
    if (!m_db.open())
        return reasonOf(m_db.lastError());
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SET statement_timeout = %1").arg(m_options.statementTimeout.count()))
        || !query.exec(QStringLiteral("SET client_min_messages = warning")))
        return reasonOf(query.lastError());
    return std::nullopt;
}

QString PostgresWorker::open()
{
    if (std::optional<QString> error = connect()) {
        closeConnection();
        return QStringLiteral("cannot connect to PostgreSQL at %1: %2").arg(m_address.redacted(), *error);
    }
    if (std::optional<QString> error = migratePostgres(m_db, postgresMigrations())) {
        closeConnection();
        return QStringLiteral("cannot use the PostgreSQL database %1: %2").arg(m_address.redacted(), *error);
    }
    m_connected = true;
    m_timer = new QTimer(this);
    m_timer->setInterval(m_options.flushInterval);
    QObject::connect(m_timer, &QTimer::timeout, this, &PostgresWorker::onTimer);
    m_timer->start();
    return {};
}

bool PostgresWorker::ensureConnected()
{
    if (m_connected)
        return true;
    const auto now = std::chrono::steady_clock::now();
    if (m_lastConnectFailure && now - *m_lastConnectFailure < kReconnectPause)
        return false;
    closeConnection();
    if (std::optional<QString> error = connect()) {
        m_lastConnectFailure = now;
        recordError(QStringLiteral("cannot connect to PostgreSQL at %1: %2").arg(m_address.redacted(), *error));
        closeConnection();
        return false;
    }
    m_lastConnectFailure.reset();
    m_connected = true;
    qCInfo(lcPostgres).noquote() << "connected again to" << m_address.redacted();
    return true;
}

void PostgresWorker::checkConnection()
{
    if (!m_connected)
        return;
    QSqlQuery probe(m_db);
    if (probe.exec(QStringLiteral("SELECT 1")))
        return;
    qCWarning(lcPostgres).noquote() << "lost the connection to" << m_address.redacted() << ":"
                                    << reasonOf(probe.lastError());
    probe = QSqlQuery();
    m_connected = false;
    closeConnection();
}

void PostgresWorker::closeConnection()
{
    if (m_db.isValid())
        m_db.close();
    m_db = QSqlDatabase();
    if (QSqlDatabase::contains(m_connectionName))
        QSqlDatabase::removeDatabase(m_connectionName);
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
    m_connected = false;
    closeConnection();
}

void PostgresWorker::enqueue(WriteOp op)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        m_pending.push_back(std::move(op));
        if (m_pending.size() >= std::size_t(m_options.batchSize) && !m_wakePosted) {
            m_wakePosted = true;
            wake = true;
        }
    }
    if (wake)
        QMetaObject::invokeMethod(this, [this] { onTimer(); }, Qt::QueuedConnection);
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
    return stats;
}

std::optional<QString> PostgresWorker::writeBatch(const std::vector<WriteOp> &batch, BatchOutcome &outcome)
{
    if (!m_db.transaction())
        return reasonOf(m_db.lastError());
    QSqlQuery book(m_db);
    QSqlQuery insertRequest(m_db);
    QSqlQuery saveConfig(m_db);
    QSqlQuery setMeta(m_db);
    bool booksPrepared = false, requestsPrepared = false, configPrepared = false, metaPrepared = false;
    std::optional<QString> error;
    auto run = [&error](QSqlQuery &query) {
        if (!query.exec())
            error = reasonOf(query.lastError());
        return !error;
    };
    std::vector<quint64> ended;
    for (const WriteOp &op : batch) {
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
            if (entry->kind != QLatin1String(kLedgerCharge) && entry->kind != QLatin1String(kLedgerTopUp)) {
                qCWarning(lcPostgres) << "rejected ledger entry" << entry->sequence << "of unknown kind" << entry->kind;
                ++outcome.rejected;
                continue;
            }
            if (!booksPrepared && !(booksPrepared = book.prepare(QStringLiteral(
                                        "SELECT sy_book(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")))) {
                error = reasonOf(book.lastError());
                break;
            }
            book.addBindValue(m_instanceId + QLatin1Char(':') + QString::number(entry->sequence));
            book.addBindValue(toStoredTime(entry->at));
            book.addBindValue(entry->kind);
            book.addBindValue(nullIfEmpty(entry->requestId));
            book.addBindValue(entry->keyName);
            book.addBindValue(entry->modelId);
            book.addBindValue(entry->channelId);
            book.addBindValue(entry->promptTokens);
            book.addBindValue(entry->completionTokens);
            book.addBindValue(entry->amountNanos);
            book.addBindValue(entry->note);
            book.addBindValue(entry->reservation ? QVariant(reservationKey(entry->reservation)) : nullText());
            if (!run(book) || !book.next()) {
                error = error.value_or(reasonOf(book.lastError()));
                break;
            }
            if (book.value(0).toLongLong() == 0) {
                if (outcome.ignoredSamples.size() < 5)
                    outcome.ignoredSamples << QStringLiteral("entry %1, request %2").arg(entry->sequence).arg(entry->requestId);
                ++outcome.ignoredLedgerEntries;
            }
            book.finish();
            if (entry->reservation)
                ended.push_back(entry->reservation);
        } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
            if (!requestsPrepared
                && !(requestsPrepared = insertRequest.prepare(QStringLiteral(
                         "INSERT INTO request_log(id, at, key_name, model, status, failed_over, record, content)"
                         " VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at,"
                         " key_name = EXCLUDED.key_name, model = EXCLUDED.model, status = EXCLUDED.status,"
                         " failed_over = EXCLUDED.failed_over, record = EXCLUDED.record, content = EXCLUDED.content")))) {
                error = reasonOf(insertRequest.lastError());
                break;
            }
            insertRequest.addBindValue(QString::fromUtf8(request->id));
            insertRequest.addBindValue(toStoredTime(request->at));
            insertRequest.addBindValue(request->keyName);
            insertRequest.addBindValue(request->model);
            insertRequest.addBindValue(request->status);
            insertRequest.addBindValue(int(request->failedOver));
            insertRequest.addBindValue(QString::fromUtf8(request->json));
            insertRequest.addBindValue(request->content.isEmpty() ? nullText() : QVariant(QString::fromUtf8(request->content)));
            if (!run(insertRequest))
                break;
        } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
            if (!configPrepared
                && !(configPrepared = saveConfig.prepare(QStringLiteral(
                         "INSERT INTO config(id, document, updated_at, version, writer) VALUES(1, ?, ?, 1, ?)"
                         " ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document,"
                         " updated_at = EXCLUDED.updated_at, version = config.version + 1, writer = EXCLUDED.writer")))) {
                error = reasonOf(saveConfig.lastError());
                break;
            }
            saveConfig.addBindValue(config->json.isEmpty() ? QStringLiteral("") : QString::fromUtf8(config->json));
            saveConfig.addBindValue(toStoredTime(config->at));
            saveConfig.addBindValue(m_instanceId);
            if (!run(saveConfig))
                break;
        } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
            if (meta->key == QLatin1String(kMetaSchemaVersion) || meta->key.isEmpty()) {
                qCWarning(lcPostgres) << "rejected meta write of reserved key" << meta->key;
                ++outcome.rejected;
                continue;
            }
            if (!metaPrepared
                && !(metaPrepared = setMeta.prepare(QStringLiteral(
                         "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")))) {
                error = reasonOf(setMeta.lastError());
                break;
            }
            setMeta.addBindValue(meta->key);
            setMeta.addBindValue(meta->value);
            if (!run(setMeta))
                break;
        }
    }
    if (!error && !m_db.commit())
        error = reasonOf(m_db.lastError());
    if (error) {
        m_db.rollback();
        return error;
    }
    for (quint64 id : ended)
        m_held.remove(id);
    return std::nullopt;
}

bool PostgresWorker::commitPending()
{
    std::vector<WriteOp> batch;
    {
        std::lock_guard lock(m_mutex);
        m_wakePosted = false;
        batch.swap(m_pending);
        m_inFlight = batch.size();
    }
    if (batch.empty())
        return true;
    BatchOutcome outcome;
    std::optional<QString> error;
    if (!ensureConnected())
        error = QStringLiteral("not connected to %1").arg(m_address.redacted());
    else if ((error = writeBatch(batch, outcome)))
        checkConnection();
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
        return false;
    }
    if (outcome.ignoredLedgerEntries > 0)
        qCInfo(lcPostgres).noquote() << "ledger entries already booked:" << outcome.ignoredSamples.join(QStringLiteral("; "));
    ++m_stats.transactions;
    m_stats.committedWrites += batch.size() - outcome.rejected;
    m_stats.ignoredLedgerEntries += outcome.ignoredLedgerEntries;
    m_stats.rejectedWrites += outcome.rejected;
    return true;
}

SharedAdmission PostgresWorker::reserve(const StoredReservation &r)
{
    if (!ensureConnected())
        return SharedAdmission::Unavailable;
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT sy_reserve(?, ?, ?, ?, ?, ?, ?, ?)"));
    query.addBindValue(reservationKey(r.id));
    query.addBindValue(m_instanceId);
    query.addBindValue(r.keyName);
    query.addBindValue(qint64(r.estimateNanos));
    query.addBindValue(r.openingBalanceNanos.has_value());
    query.addBindValue(qint64(r.openingBalanceNanos.value_or(0)));
    query.addBindValue(r.spendLimitNanos ? QVariant(qint64(*r.spendLimitNanos)) : QVariant(QMetaType::fromType<qint64>()));
    query.addBindValue(int(m_address.reservationLease.count()));
    if (!query.exec() || !query.next()) {
        recordError(reasonOf(query.lastError()));
        query = QSqlQuery();
        checkConnection();
        return SharedAdmission::Unavailable;
    }
    const QString verdict = query.value(0).toString();
    if (verdict == QLatin1String("admitted")) {
        m_held.insert(r.id);
        return SharedAdmission::Admitted;
    }
    if (verdict == QLatin1String("spend_limit_reached"))
        return SharedAdmission::SpendLimitReached;
    return SharedAdmission::InsufficientBalance;
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
    QStringList keys;
    for (quint64 id : ids) {
        m_held.remove(id);  // no longer renewed, released or not
        keys << reservationKey(id);
    }
    bool ok = ensureConnected();
    if (ok) {
        QSqlQuery query(m_db);
        query.prepare(QStringLiteral("DELETE FROM reservations WHERE id = ANY(?::text[])"));
        query.addBindValue(textArray(keys));
        ok = query.exec();
        if (!ok) {
            recordError(reasonOf(query.lastError()));
            query = QSqlQuery();
            checkConnection();
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
    m_lastRenewal = now;
    QSqlQuery query(m_db);
    bool ok = true;
    if (!m_held.isEmpty()) {
        QStringList keys;
        for (quint64 id : std::as_const(m_held))
            keys << reservationKey(id);
        query.prepare(QStringLiteral("UPDATE reservations SET expires_at = clock_timestamp() + ? * INTERVAL '1 millisecond'"
                                     " WHERE id = ANY(?::text[])"));
        query.addBindValue(int(m_address.reservationLease.count()));
        query.addBindValue(textArray(keys));
        ok = query.exec();
    }
    // Expired reservations (of gateways that died) no longer count; any gateway clears them.
    if (ok)
        ok = query.exec(QStringLiteral("DELETE FROM reservations WHERE expires_at < clock_timestamp() - INTERVAL '1 minute'"));
    if (!ok) {
        recordError(reasonOf(query.lastError()));
        query = QSqlQuery();
        checkConnection();
    }
}

std::optional<StoredConfigVersion> PostgresWorker::configVersion()
{
    commitPending();  // this gateway's own edit first: the version read is then the latest word
    if (!ensureConnected())
        return std::nullopt;
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SELECT version, writer FROM config WHERE id = 1"))) {
        recordError(reasonOf(query.lastError()));
        query = QSqlQuery();
        checkConnection();
        return std::nullopt;
    }
    if (!query.next())
        return StoredConfigVersion{};
    return StoredConfigVersion{query.value(0).toLongLong(), query.value(1).toString() == m_instanceId};
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
    int deleted = 0;
    std::optional<QString> error;
    if (!m_db.transaction())
        error = reasonOf(m_db.lastError());
    {
        QSqlQuery query(m_db);
        if (!error && policy.maxAgeDays > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE at < ?"));
            query.addBindValue(toStoredTime(QDateTime::currentDateTimeUtc().addDays(-policy.maxAgeDays)));
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = reasonOf(query.lastError());
        }
        if (!error && policy.maxCount > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE id IN (SELECT id FROM request_log"
                                         " ORDER BY at DESC, id DESC OFFSET ?)"));
            query.addBindValue(policy.maxCount);
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = reasonOf(query.lastError());
        }
    }
    if (!error && !m_db.commit())
        error = reasonOf(m_db.lastError());
    if (error) {
        m_db.rollback();
        recordError(*error);
        checkConnection();
        return 0;
    }
    std::lock_guard lock(m_mutex);
    m_stats.retentionDeleted += quint64(deleted);
    return deleted;
}

void PostgresWorker::onTimer()
{
    commitPending();
    releasePending();
    renewLeases();
    const auto now = std::chrono::steady_clock::now();
    bool changed = false;
    {
        std::lock_guard lock(m_mutex);
        changed = std::exchange(m_retentionChanged, false);
    }
    if (changed || !m_lastRetention || now - *m_lastRetention >= m_options.retentionInterval) {
        m_lastRetention = now;
        applyRetentionNow();
    }
}

void PostgresWorker::recordError(const QString &error)
{
    std::lock_guard lock(m_mutex);
    if (m_stats.lastError != error)  // once per outage, not at every retry
        qCWarning(lcPostgres).noquote() << "database error:" << error;
    m_stats.lastError = error;
}

} // namespace sy::storage
