// The bound on the request-log part of the write queue: while the database cannot keep up (here
// another connection holds the write lock), request-log rows past maxQueuedRequests are dropped
// and counted, ledger entries never; once the database is back, what was queued is written.
// RequestLogBacklog's warning comes at most once per interval, with the rows dropped meanwhile.
#include "StorageTestSupport.h"

#include "storage/RequestLogBacklog.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

TEST(SqliteStoreBacklogTest, RequestRowsPastTheBoundAreDroppedAndCountedLedgerEntriesNever)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    SqliteStoreOptions options{20ms, 1'000'000, 1h, 20ms};
    options.maxQueuedRequests = 100;
    auto store = openStore(path, options);
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));  // the store's commits fail meanwhile

    for (int i = 0; i < 250; ++i) {
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
        if (i % 50 == 0)
            store->appendLedger(charge(quint64(i / 50 + 1), QStringLiteral("r%1").arg(i)));
    }
    EXPECT_FALSE(store->flush());
    StoreStats stats = store->stats();
    EXPECT_EQ(stats.droppedRequests, 150u);
    EXPECT_EQ(stats.pendingRequests, 100u);
    EXPECT_EQ(stats.pendingWrites, 105u);  // the five charges are all there

    ASSERT_TRUE(otherWriter.exec(QStringLiteral("COMMIT")));
    ASSERT_TRUE(store->flush()) << store->stats().lastError.toStdString();
    stats = store->stats();
    EXPECT_EQ(stats.pendingRequests, 0u);
    EXPECT_EQ(stats.pendingWrites, 0u);
    EXPECT_EQ(stats.droppedRequests, 150u);
    const auto logged = store->queryRequests({.limit = StoredRequestFilter::kMaxLimit});
    ASSERT_EQ(logged.size(), 100u);
    EXPECT_EQ(logged.front().id, QByteArray("r99"));  // the first hundred were kept, the rest dropped
    EXPECT_EQ(logged.back().id, QByteArray("r0"));
    EXPECT_EQ(store->ledgerEntries(0).size(), 5u);

    // Room again: new rows are queued and written.
    store->appendRequest(request("after", baseTime().addSecs(1000)));
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->queryRequests({.limit = 1}).front().id, QByteArray("after"));
    EXPECT_EQ(store->stats().droppedRequests, 150u);
}

TEST(SqliteStoreBacklogTest, WithoutABoundEveryRowWaits)
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
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->stats().droppedRequests, 0u);
    EXPECT_EQ(store->queryRequests({.limit = StoredRequestFilter::kMaxLimit}).size(), 300u);
}

TEST(RequestLogBacklogTest, WarnsOncePerIntervalWithTheRowsDroppedSinceTheLastWarning)
{
    RequestLogBacklog backlog(2);
    const auto start = RequestLogBacklog::Clock::time_point{};
    quint64 warn = 0;
    EXPECT_TRUE(backlog.admit(start, warn));
    EXPECT_TRUE(backlog.admit(start, warn));
    EXPECT_FALSE(backlog.admit(start, warn));
    EXPECT_EQ(warn, 1u);  // the first drop warns at once
    warn = 0;
    EXPECT_FALSE(backlog.admit(start + 1s, warn));
    EXPECT_FALSE(backlog.admit(start + 2s, warn));
    EXPECT_EQ(warn, 0u);
    EXPECT_FALSE(backlog.admit(start + RequestLogBacklog::kWarningInterval, warn));
    EXPECT_EQ(warn, 3u);
    EXPECT_EQ(backlog.dropped(), 4u);

    backlog.left(1);
    EXPECT_EQ(backlog.queued(), 1u);
    warn = 0;
    EXPECT_TRUE(backlog.admit(start + 20s, warn));
    EXPECT_EQ(warn, 0u);
}

} // namespace
} // namespace sy::storage::test
