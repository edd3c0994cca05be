#include "storage/PostgresStore.h"

#include "storage/PostgresWorker.h"

#include <type_traits>

namespace sy::storage {

template <class Work>
auto PostgresStore::onWorker(Work &&work)
{
    using Result = std::invoke_result_t<Work>;
    if (QThread::currentThread() == &m_thread)
        return work();  // from post()'s work, or a callback: a blocking call would deadlock
    if constexpr (std::is_void_v<Result>) {
        QMetaObject::invokeMethod(m_worker.get(), std::forward<Work>(work), Qt::BlockingQueuedConnection);
    } else {
        Result result{};
        QMetaObject::invokeMethod(
            m_worker.get(), [&result, &work] { result = work(); }, Qt::BlockingQueuedConnection);
        return result;
    }
}

std::variant<std::unique_ptr<PostgresStore>, QString> PostgresStore::open(const PostgresAddress &address,
                                                                          const PostgresStoreOptions &options)
{
    std::unique_ptr<PostgresStore> store(new PostgresStore(address, options));
    const QString refusal = store->onWorker([&store] { return store->m_worker->open(); });
    if (!refusal.isEmpty())
        return refusal;
    return store;
}

PostgresStore::PostgresStore(PostgresAddress address, const PostgresStoreOptions &options)
    : m_address(std::move(address)), m_worker(std::make_unique<PostgresWorker>(m_address, options))
{
    m_thread.setObjectName(QStringLiteral("switchyard-postgres"));
    m_worker->moveToThread(&m_thread);
    m_thread.start();
}

PostgresStore::~PostgresStore()
{
    onWorker([this] { m_worker->close(); });
    m_thread.quit();
    m_thread.wait();
    // Continuations still queued on m_replies are dropped with it: their work saw a store that
    // is going away.
}

void PostgresStore::appendLedger(StoredLedgerEntry entry)
{
    m_worker->enqueue(std::move(entry));
}

bool PostgresStore::commitLedger(StoredLedgerEntry entry)
{
    return onWorker([this, &entry] {
        m_worker->enqueueLedger(std::move(entry));
        return m_worker->commitPending();
    });
}

void PostgresStore::commitLedgerLater(StoredLedgerEntry entry, QObject *context, std::function<void(bool)> done)
{
    // `context` lives until a flush() after this call (Store's contract): valid when posted to.
    m_worker->enqueueCommit(std::move(entry), [context, done = std::move(done)](bool committed) {
        QMetaObject::invokeMethod(context, [done, committed] { done(committed); }, Qt::QueuedConnection);
    });
}

void PostgresStore::appendRequest(StoredRequest request)
{
    m_worker->enqueue(std::move(request));
}

void PostgresStore::saveConfig(QByteArray json)
{
    m_worker->enqueue(ConfigWrite{std::move(json), QDateTime::currentDateTimeUtc()});
}

void PostgresStore::setMeta(const QString &key, const QString &value)
{
    m_worker->enqueue(MetaWrite{key, value});
}

bool PostgresStore::flush()
{
    return onWorker([this] { return m_worker->commitPending(); });
}

std::optional<QByteArray> PostgresStore::loadConfig()
{
    return onWorker([this] { return m_worker->readAfterCommit<std::optional<QByteArray>>(readConfig); });
}

std::optional<QString> PostgresStore::meta(const QString &key)
{
    return onWorker([this, &key] {
        return m_worker->readAfterCommit<std::optional<QString>>(
            [&key](const QSqlDatabase &db) { return readMeta(db, key); });
    });
}

std::vector<StoredLedgerEntry> PostgresStore::ledgerEntries(quint64 afterSequence, int limit)
{
    return onWorker([this, afterSequence, limit] {
        return m_worker->readAfterCommit<std::vector<StoredLedgerEntry>>(
            [afterSequence, limit](const QSqlDatabase &db) { return readLedger(db, afterSequence, limit); });
    });
}

std::vector<StoredRequest> PostgresStore::queryRequests(const StoredRequestFilter &filter)
{
    return onWorker([this, &filter] {
        return m_worker->readAfterCommit<std::vector<StoredRequest>>(
            [&filter](const QSqlDatabase &db) { return readRequests(db, filter); });
    });
}

std::optional<StoredRequest> PostgresStore::request(const QByteArray &id)
{
    return onWorker([this, &id] {
        return m_worker->readAfterCommit<std::optional<StoredRequest>>(
            [&id](const QSqlDatabase &db) { return readRequest(db, id); });
    });
}

void PostgresStore::setRetention(int maxAgeDays, int maxCount)
{
    m_worker->setRetention(RetentionPolicy{maxAgeDays, maxCount});
}

int PostgresStore::applyRetention()
{
    return onWorker([this] {
        m_worker->commitPending();
        return m_worker->applyRetentionNow();
    });
}

StoreStats PostgresStore::stats() const
{
    return m_worker->stats();
}

std::optional<quint64> PostgresStore::requestLogFull() const
{
    return m_worker->requestLogFull();
}

void PostgresStore::post(std::function<std::function<void()>()> work)
{
    QMetaObject::invokeMethod(
        m_worker.get(),
        [this, work = std::move(work)] {
            if (std::function<void()> then = work())
                QMetaObject::invokeMethod(&m_replies, std::move(then), Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

SharedAdmission PostgresStore::reserve(const StoredReservation &reservation)
{
    return onWorker([this, &reservation] { return m_worker->reserve(reservation); });
}

void PostgresStore::releaseReservation(quint64 id)
{
    m_worker->enqueueRelease(id);
}

std::optional<StoredConfigVersion> PostgresStore::configVersion()
{
    return onWorker([this] { return m_worker->configVersion(); });
}

} // namespace sy::storage
