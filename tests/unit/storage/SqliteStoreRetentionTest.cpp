// Retention of the request log: by age, by count, both, applied on demand and periodically by
// the storage thread; the ledger is never trimmed.
#include "StorageTestSupport.h"

#include "support/Waits.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

QList<QByteArray> loggedIds(Store &store)
{
    QList<QByteArray> ids;
    for (const StoredRequest &r : store.queryRequests({.limit = StoredRequestFilter::kMaxLimit}))
        ids << r.id;
    return ids;
}

class SqliteStoreRetentionTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_store = openStore(m_dir.filePath(QStringLiteral("switchyard.db")), SqliteStoreOptions{1h, 500, 1h});
        ASSERT_TRUE(m_store);
    }
    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

TEST_F(SqliteStoreRetentionTest, CountKeepsTheNewest)
{
    for (int i = 0; i < 10; ++i)
        m_store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
    m_store->appendLedger(charge(1, QStringLiteral("r0")));
    m_store->setRetention(0, 3);

    EXPECT_EQ(m_store->applyRetention(), 7);
    EXPECT_EQ(loggedIds(*m_store), (QList<QByteArray>{"r9", "r8", "r7"}));
    EXPECT_EQ(m_store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(m_store->stats().retentionDeleted, 7u);
    EXPECT_EQ(m_store->applyRetention(), 0);
}

TEST_F(SqliteStoreRetentionTest, AgeDropsWhatIsOlderThanTheLimit)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_store->appendRequest(request("ancient", now.addDays(-90)));
    m_store->appendRequest(request("old", now.addDays(-31)));
    m_store->appendRequest(request("recent", now.addDays(-29)));
    m_store->appendRequest(request("fresh", now.addSecs(-5)));
    m_store->setRetention(30, 0);

    EXPECT_EQ(m_store->applyRetention(), 2);
    EXPECT_EQ(loggedIds(*m_store), (QList<QByteArray>{"fresh", "recent"}));
}

TEST_F(SqliteStoreRetentionTest, BothBoundsApply)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_store->appendRequest(request("old", now.addDays(-10)));
    for (int i = 0; i < 5; ++i)
        m_store->appendRequest(request("new" + QByteArray::number(i), now.addSecs(-100 + i)));
    m_store->setRetention(7, 2);

    EXPECT_EQ(m_store->applyRetention(), 4);
    EXPECT_EQ(loggedIds(*m_store), (QList<QByteArray>{"new4", "new3"}));
}

TEST_F(SqliteStoreRetentionTest, NoBoundsKeepEverything)
{
    m_store->appendRequest(request("r", baseTime().addYears(-5)));
    m_store->setRetention(0, 0);
    EXPECT_EQ(m_store->applyRetention(), 0);
    EXPECT_EQ(loggedIds(*m_store).size(), 1);
}

// The age bound measured from an injected wall clock: exactly `days` old is kept, a millisecond
// more is not; moving the clock on makes the next application drop more.
TEST(SqliteStoreRetentionClockTest, AgeBoundIsExactAgainstAFakeWallClock)
{
    QTemporaryDir dir;
    auto now = std::make_shared<QDateTime>(baseTime());
    SqliteStoreOptions options{1h, 500, 1h};
    options.wallClock = [now] { return *now; };
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), options);
    ASSERT_TRUE(store);
    store->appendRequest(request("at-limit", baseTime().addDays(-3)));
    store->appendRequest(request("just-over", baseTime().addDays(-3).addMSecs(-1)));
    store->appendRequest(request("day-old", baseTime().addDays(-1)));
    store->appendRequest(request("now", baseTime()));
    store->setRetention(3, 0);

    EXPECT_EQ(store->applyRetention(), 1);
    EXPECT_EQ(loggedIds(*store), (QList<QByteArray>{"now", "day-old", "at-limit"}));

    *now = baseTime().addDays(2).addSecs(1);  // "day-old" is now 3 days and 1 s old
    EXPECT_EQ(store->applyRetention(), 2);
    EXPECT_EQ(loggedIds(*store), (QList<QByteArray>{"now"}));
}

TEST(SqliteStoreRetentionClockTest, CountBoundBreaksTiesById)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), SqliteStoreOptions{1h, 500, 1h});
    ASSERT_TRUE(store);
    for (const QByteArray id : {"a", "b", "c"})
        store->appendRequest(request(id, baseTime()));
    store->setRetention(0, 2);
    EXPECT_EQ(store->applyRetention(), 1);
    EXPECT_EQ(loggedIds(*store), (QList<QByteArray>{"c", "b"}));
}

// A change of the bounds is applied at the store's next flush tick, not after the (here one hour)
// retention interval.
TEST(SqliteStorePeriodicRetentionTest, ChangedBoundsApplyAtTheNextTick)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, SqliteStoreOptions{20ms, 500, 1h});
    ASSERT_TRUE(store);
    for (int i = 0; i < 6; ++i)
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
    RawDatabase raw(path);
    // A tick committed the appends and ran the (unbounded) retention: the hour has started.
    ASSERT_TRUE(sy::test::waitUntil([&] { return store->stats().transactions >= 1; }, 5s));
    store->setRetention(0, 2);
    EXPECT_TRUE(sy::test::waitUntil([&] { return raw.count(QStringLiteral("request_log")) == 2; }, 5s))
        << raw.count(QStringLiteral("request_log"));
    EXPECT_EQ(store->stats().retentionDeleted, 4u);
}

TEST(SqliteStorePeriodicRetentionTest, StorageThreadAppliesRetentionAfterFlushes)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, SqliteStoreOptions{20ms, 500, 0ms});
    ASSERT_TRUE(store);
    store->setRetention(0, 4);
    for (int i = 0; i < 12; ++i)
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));

    RawDatabase raw(path);
    // Commits may split the appends; once all are in, only the four newest are left.
    const QString kept = QStringLiteral("SELECT group_concat(id) FROM (SELECT id FROM request_log ORDER BY at)");
    EXPECT_TRUE(sy::test::waitUntil([&] { return raw.scalar(kept) == QStringLiteral("r8,r9,r10,r11"); }, 5s))
        << raw.scalar(kept).toStdString();
}

// Under sustained load the count bound is kept between the periodic passes: once a tenth of the
// cap (at least 1,000 rows) has been written since the last pass, the next commit's tick trims,
// though the interval (an hour here) is far from over.
TEST(SqliteStoreRetentionLoadTest, CountBoundHoldsBetweenPeriodicPassesUnderLoad)
{
    using sy::test::waitUntil;
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), SqliteStoreOptions{20ms, 500, 1h});
    ASSERT_TRUE(store);
    store->setRetention(0, 100);
    store->appendRequest(request("first", baseTime()));
    ASSERT_TRUE(waitUntil([&] { return store->stats().pendingWrites == 0 && store->stats().transactions > 0; }, 10s));
    // The first tick ran the first pass; from here the interval alone would wait an hour.
    for (int i = 0; i < 3000; ++i)
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i + 1)));
    // Passes ran along the way: at most the cap plus one threshold's rows are left, the newest kept.
    EXPECT_TRUE(waitUntil([&] { return store->stats().pendingWrites == 0 && store->stats().retentionDeleted >= 1900; }, 20s))
        << store->stats().retentionDeleted << " rows deleted";
    const QList<QByteArray> kept = loggedIds(*store);
    EXPECT_LE(kept.size(), 1100);
    ASSERT_FALSE(kept.isEmpty());
    EXPECT_EQ(kept.front(), QByteArray("r2999"));
}

} // namespace
} // namespace sy::storage::test
