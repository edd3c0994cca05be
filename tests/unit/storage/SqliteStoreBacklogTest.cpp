// The bounds on the request-log part of the write queue: while the database cannot keep up (here
// another connection holds the write lock), the store says it is full from maxQueuedRequests rows
// on (the gateway then refuses new requests), keeps queueing up to twice that many, and drops and
// counts only the rows past that; ledger entries are never dropped and do not count. Once the
// database is back, what was queued is written and the store is no longer full. RequestLogBacklog's
// warnings come at most once per interval, the drop warning with the rows dropped meanwhile.
#include "StorageTestSupport.h"

#include "storage/RequestLogBacklog.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

TEST(SqliteStoreBacklogTest, FullFromTheSoftBoundRowsDroppedOnlyPastTwiceItLedgerEntriesNever)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    SqliteStoreOptions options{20ms, 1'000'000, 1h, 20ms};
    options.maxQueuedRequests = 100;
    auto store = openStore(path, options);
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN EXCLUSIVE")));  // the store's commits fail meanwhile

    for (int i = 0; i < 250; ++i) {
        if (i == 99) {
            EXPECT_EQ(store->requestLogFull(), std::nullopt) << "full below the soft bound";
        }
        if (i == 100) {
            EXPECT_EQ(store->requestLogFull(), std::optional<quint64>(100)) << "not full at the soft bound";
        }
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
        if (i % 50 == 0)
            store->appendLedger(charge(quint64(i / 50 + 1), QStringLiteral("r%1").arg(i)));
    }
    EXPECT_FALSE(store->flush());
    StoreStats stats = store->stats();
    EXPECT_EQ(stats.droppedRequests, 50u);
    EXPECT_EQ(stats.pendingRequests, 200u);
    EXPECT_EQ(stats.pendingWrites, 205u);  // the five charges are all there
    EXPECT_EQ(store->requestLogFull(), std::optional<quint64>(200));

    ASSERT_TRUE(otherWriter.exec(QStringLiteral("COMMIT")));
    ASSERT_TRUE(store->flush()) << store->stats().lastError.toStdString();
    EXPECT_EQ(store->requestLogFull(), std::nullopt) << "still full once the queue was written";
    stats = store->stats();
    EXPECT_EQ(stats.pendingRequests, 0u);
    EXPECT_EQ(stats.pendingWrites, 0u);
    EXPECT_EQ(stats.droppedRequests, 50u);
    const auto logged = store->queryRequests({.limit = StoredRequestFilter::kMaxLimit});
    ASSERT_EQ(logged.size(), 200u);
    EXPECT_EQ(logged.front().id, QByteArray("r199"));  // the first two hundred were kept, the rest dropped
    EXPECT_EQ(logged.back().id, QByteArray("r0"));
    EXPECT_EQ(store->ledgerEntries(0).size(), 5u);

    // Room again: new rows are queued and written.
    store->appendRequest(request("after", baseTime().addSecs(1000)));
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->queryRequests({.limit = 1}).front().id, QByteArray("after"));
    EXPECT_EQ(store->stats().droppedRequests, 50u);
}

TEST(SqliteStoreBacklogTest, WithoutABoundEveryRowWaitsAndTheStoreIsNeverFull)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    SqliteStoreOptions options{1h, 1'000'000, 1h, 20ms};
    options.maxQueuedRequests = 0;
    auto store = openStore(path, options);
    ASSERT_TRUE(store);
    for (int i = 0; i < 300; ++i)
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
    EXPECT_EQ(store->stats().pendingRequests, 300u);
    EXPECT_EQ(store->requestLogFull(), std::nullopt);
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->stats().droppedRequests, 0u);
    EXPECT_EQ(store->queryRequests({.limit = StoredRequestFilter::kMaxLimit}).size(), 300u);
}

TEST(RequestLogBacklogTest, FullFromTheSoftBoundUntilRowsLeaveDroppingOnlyPastTheHardBound)
{
    RequestLogBacklog backlog(2);
    EXPECT_EQ(backlog.hardBound(), 4u);
    const auto now = RequestLogBacklog::Clock::time_point{};
    RequestLogBacklog::Warnings warnings;
    EXPECT_TRUE(backlog.admit(now, warnings));
    EXPECT_EQ(backlog.full(), std::nullopt);
    EXPECT_TRUE(backlog.admit(now, warnings));
    EXPECT_EQ(backlog.full(), std::optional<quint64>(2));
    EXPECT_EQ(warnings.full, 2u);  // reaching the soft bound warns
    EXPECT_TRUE(backlog.admit(now, warnings));
    EXPECT_TRUE(backlog.admit(now, warnings));
    EXPECT_EQ(backlog.full(), std::optional<quint64>(4));
    EXPECT_FALSE(backlog.admit(now, warnings));
    EXPECT_EQ(backlog.dropped(), 1u);
    EXPECT_EQ(backlog.queued(), 4u);

    backlog.left(3);
    EXPECT_EQ(backlog.full(), std::nullopt) << "still full below the soft bound";
    backlog.left(1);
    EXPECT_EQ(backlog.queued(), 0u);
}

TEST(RequestLogBacklogTest, WarnsOncePerIntervalWithTheRowsDroppedSinceTheLastWarning)
{
    RequestLogBacklog backlog(1);  // hard bound 2
    const auto start = RequestLogBacklog::Clock::time_point{};
    RequestLogBacklog::Warnings warnings;
    EXPECT_TRUE(backlog.admit(start, warnings));
    EXPECT_TRUE(backlog.admit(start, warnings));
    EXPECT_FALSE(backlog.admit(start, warnings));
    EXPECT_EQ(warnings.dropped, 1u);  // the first drop warns at once
    warnings = {};
    EXPECT_FALSE(backlog.admit(start + 1s, warnings));
    EXPECT_FALSE(backlog.admit(start + 2s, warnings));
    EXPECT_EQ(warnings.dropped, 0u);
    EXPECT_FALSE(backlog.admit(start + RequestLogBacklog::kWarningInterval, warnings));
    EXPECT_EQ(warnings.dropped, 3u);
    EXPECT_EQ(backlog.dropped(), 4u);

    // The soft bound was reached at `start`: reached again within the interval, no second
    // warning; after it, one.
    backlog.left(2);
    warnings = {};
    EXPECT_TRUE(backlog.admit(start + 5s, warnings));
    EXPECT_EQ(warnings.full, 0u);
    EXPECT_EQ(warnings.dropped, 0u);
    backlog.left(1);
    EXPECT_TRUE(backlog.admit(start + RequestLogBacklog::kWarningInterval, warnings));
    EXPECT_EQ(warnings.full, 1u);
}

} // namespace
} // namespace sy::storage::test
