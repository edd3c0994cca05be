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

} // namespace
} // namespace sy::storage::test
