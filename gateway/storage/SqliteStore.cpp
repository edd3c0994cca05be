#include "storage/SqliteStore.h"

#include "storage/DatabaseFile.h"
#include "storage/LedgerLogRecord.h"
#include "storage/SqliteWorker.h"

#include <QLoggingCategory>
#include <QUuid>

#include <type_traits>

Q_DECLARE_LOGGING_CATEGORY(lcStorage)

namespace sy::storage {

template <class Work>
auto SqliteStore::onWorker(Work &&work)
{
    using Result = std::invoke_result_t<Work>;
    if (QThread::currentThread() == &m_thread)
        return work();  // already on the worker (e.g. from a callback): a blocking call would deadlock
    if constexpr (std::is_void_v<Result>) {
        QMetaObject::invokeMethod(m_worker.get(), std::forward<Work>(work), Qt::BlockingQueuedConnection);
    } else {
        Result result{};
        QMetaObject::invokeMethod(
            m_worker.get(), [&result, &work] { result = work(); }, Qt::BlockingQueuedConnection);
        return result;
    }
}

std::variant<std::unique_ptr<SqliteStore>, QString> SqliteStore::open(const QString &path,
                                                                      const SqliteStoreOptions &options)
{
    const auto prepared = prepareDatabaseFile(path);
    if (const QString *refusal = std::get_if<QString>(&prepared))
        return *refusal;
    std::unique_ptr<SqliteStore> store(new SqliteStore(path, options));
    const bool isNew = std::get<PreparedFile>(prepared).isNew;
    const QString refusal = store->onWorker([&store, isNew] { return store->m_worker->open(isNew); });
    if (!refusal.isEmpty())
        return refusal;  // the store's destructor stops the thread; no connection is open
    if (options.ledgerLog) {
        if (const QString logRefusal = store->openLedgerLog(); !logRefusal.isEmpty())
            return logRefusal;
    }
    return store;
}

QString SqliteStore::openLedgerLog()
{
    const QString idKey = QString::fromLatin1(kMetaLedgerLogId);
    std::optional<QString> stored = meta(idKey);
    if (!stored || !ledgerLogIdIsValid(stored->toLatin1())) {
        // Made by the schema's migration; a row removed or changed by hand is made again here,
        // committed before the first entry names it.
        stored = QUuid::createUuid().toString(QUuid::Id128).toLower();
        setMeta(idKey, *stored);
        if (!flush())
            return QStringLiteral("cannot write to %1: %2").arg(m_path, stats().lastError);
    }
    auto opened = LedgerLogFiles::open(m_path, stored->toLatin1());
    if (const QString *refusal = std::get_if<QString>(&opened))
        return *refusal;
    LedgerLogFiles::Opened &log = std::get<LedgerLogFiles::Opened>(opened);
    if (log.foreignEntries > 0)
        qCWarning(lcStorage) << "ignored" << log.foreignEntries << "ledger entries in" << LedgerLogFiles::paths(m_path)
                           << "written for another database than" << m_path;
    if (!log.recovered.empty()) {
        qCInfo(lcStorage) << "committing" << log.recovered.size() << "ledger entries the ledger log kept from the"
                        << "last run (from sequence" << log.recovered.front().sequence << "to"
                        << log.recovered.back().sequence << ")" << (log.damagedTail ? "; its last write was cut short" : "");
        for (StoredLedgerEntry &entry : log.recovered)
            m_worker->enqueue(std::move(entry));
        if (!flush())
            return QStringLiteral("cannot commit the ledger entries kept in %1 to %2 (they are kept): %3")
                .arg(LedgerLogFiles::paths(m_path).join(QStringLiteral(", ")), m_path, stats().lastError);
    }
    if (const QString refusal = log.files->reset(); !refusal.isEmpty())
        return refusal;
    m_ledgerLog = std::move(log.files);
    onWorker([this] { m_worker->setLedgerLog(m_ledgerLog.get()); });
    return {};
}

SqliteStore::SqliteStore(QString path, const SqliteStoreOptions &options)
    : m_path(std::move(path)), m_worker(std::make_unique<SqliteWorker>(m_path, options))
{
    m_thread.setObjectName(QStringLiteral("switchyard-storage"));
    m_worker->moveToThread(&m_thread);
    m_thread.start();
}

SqliteStore::~SqliteStore()
{
    onWorker([this] { m_worker->close(); });  // commits what is queued
    m_thread.quit();
    m_thread.wait();
    // Like SQLite's -wal at the last close: a clean close leaves no log beside the database.
    if (m_ledgerLog)
        m_ledgerLog->removeIfAllCommitted();
    // m_worker is deleted by its unique_ptr now that its thread no longer runs: its timer was
    // stopped and deleted on that thread by close().
}

void SqliteStore::appendLedger(StoredLedgerEntry entry)
{
    m_worker->enqueue(std::move(entry));
}

bool SqliteStore::commitLedger(StoredLedgerEntry entry)
{
    return onWorker([this, &entry] {
        m_worker->enqueue(std::move(entry));
        return m_worker->commitPending();
    });
}

void SqliteStore::commitLedgerLater(StoredLedgerEntry entry, QObject *context, std::function<void(bool)> done)
{
    if (m_ledgerLog && m_ledgerLog->append(entry)) {
        m_worker->enqueue(std::move(entry));  // to the database with the next batch
        if (QThread::currentThread() == context->thread())
            done(true);
        else
            QMetaObject::invokeMethod(context, [done = std::move(done)] { done(true); }, Qt::QueuedConnection);
        return;
    }
    // The store's contract: `context` lives until a flush() after this call returned, so the
    // pointer is still valid when the worker posts the answer (the event is dropped if `context`
    // is destroyed before it runs).
    m_worker->enqueueCommit(std::move(entry), [context, done = std::move(done)](bool committed) {
        QMetaObject::invokeMethod(context, [done, committed] { done(committed); }, Qt::QueuedConnection);
    });
}

void SqliteStore::appendRequest(StoredRequest request)
{
    m_worker->enqueue(std::move(request));
}

void SqliteStore::saveConfig(QByteArray json)
{
    m_worker->enqueue(ConfigWrite{std::move(json), QDateTime::currentDateTimeUtc()});
}

void SqliteStore::setMeta(const QString &key, const QString &value)
{
    m_worker->enqueue(MetaWrite{key, value});
}

bool SqliteStore::flush()
{
    return onWorker([this] { return m_worker->commitPending(); });
}

std::optional<QByteArray> SqliteStore::loadConfig()
{
    return onWorker([this] { return m_worker->readAfterCommit<std::optional<QByteArray>>(readConfig); });
}

std::optional<QString> SqliteStore::meta(const QString &key)
{
    return onWorker([this, &key] {
        return m_worker->readAfterCommit<std::optional<QString>>(
            [&key](const QSqlDatabase &db) { return readMeta(db, key); });
    });
}

std::vector<StoredLedgerEntry> SqliteStore::ledgerEntries(quint64 afterSequence, int limit)
{
    return onWorker([this, afterSequence, limit] {
        return m_worker->readAfterCommit<std::vector<StoredLedgerEntry>>(
            [afterSequence, limit](const QSqlDatabase &db) { return readLedger(db, afterSequence, limit); });
    });
}

std::vector<StoredRequest> SqliteStore::queryRequests(const StoredRequestFilter &filter)
{
    return onWorker([this, &filter] {
        return m_worker->readAfterCommit<std::vector<StoredRequest>>(
            [&filter](const QSqlDatabase &db) { return readRequests(db, filter); });
    });
}

std::optional<StoredRequest> SqliteStore::request(const QByteArray &id)
{
    return onWorker([this, &id] {
        return m_worker->readAfterCommit<std::optional<StoredRequest>>(
            [&id](const QSqlDatabase &db) { return readRequest(db, id); });
    });
}

void SqliteStore::setRetention(int maxAgeDays, int maxCount)
{
    m_worker->setRetention(RetentionPolicy{maxAgeDays, maxCount});
}

int SqliteStore::applyRetention()
{
    return onWorker([this] {
        m_worker->commitPending();
        return m_worker->applyRetentionNow();
    });
}

StoreStats SqliteStore::stats() const
{
    return m_worker->stats();
}

std::optional<LedgerLogFiles::Sizes> SqliteStore::ledgerLogSizes() const
{
    if (!m_ledgerLog)
        return std::nullopt;
    return m_ledgerLog->sizes();
}

std::optional<quint64> SqliteStore::requestLogFull() const
{
    return m_worker->requestLogFull();
}

} // namespace sy::storage
