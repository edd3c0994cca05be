// What goes into each table comes back unchanged: ledger entries, requests (and every filter of
// the request log), the configuration document and meta values; a reopened file shows it all.
#include "StorageTestSupport.h"
#include "storage/Schema.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

class SqliteStoreRoundTripTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_store = openStore(path());
        ASSERT_TRUE(m_store);
    }
    QString path() const { return m_dir.filePath(QStringLiteral("switchyard.db")); }

    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

TEST_F(SqliteStoreRoundTripTest, LedgerEntriesComeBackInSequenceOrder)
{
    StoredLedgerEntry first = topUp(1, 25'000'000'000, QStringLiteral("opening top-up"));
    StoredLedgerEntry second = charge(2, QStringLiteral("req_a"), 1'234'567);
    second.at = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7, 890), Qt::UTC);
    second.note = QStringLiteral("ünïcode ₽ note");
    StoredLedgerEntry third = charge(3, QStringLiteral("req_b"), 0);
    m_store->appendLedger(first);
    m_store->appendLedger(third);  // queued out of order: read back by sequence
    m_store->appendLedger(second);

    EXPECT_EQ(m_store->ledgerEntries(0), (std::vector<StoredLedgerEntry>{first, second, third}));
    EXPECT_EQ(m_store->ledgerEntries(2), (std::vector<StoredLedgerEntry>{third}));
    EXPECT_TRUE(m_store->ledgerEntries(3).empty());
}

TEST_F(SqliteStoreRoundTripTest, LedgerEntriesComeInPagesOfTheLimit)
{
    std::vector<StoredLedgerEntry> all;
    for (quint64 sequence = 1; sequence <= 7; ++sequence) {
        all.push_back(charge(sequence, QStringLiteral("req_%1").arg(sequence), qint64(sequence)));
        m_store->appendLedger(all.back());
    }
    EXPECT_EQ(m_store->ledgerEntries(0, 3), (std::vector<StoredLedgerEntry>{all[0], all[1], all[2]}));
    EXPECT_EQ(m_store->ledgerEntries(3, 3), (std::vector<StoredLedgerEntry>{all[3], all[4], all[5]}));
    EXPECT_EQ(m_store->ledgerEntries(6, 3), (std::vector<StoredLedgerEntry>{all[6]}));
    EXPECT_EQ(m_store->ledgerEntries(2, 0), (std::vector<StoredLedgerEntry>(all.begin() + 2, all.end())));  // 0: all
}

TEST_F(SqliteStoreRoundTripTest, RequestComesBackByIdAndASecondWriteReplacesIt)
{
    StoredRequest original = request("req_1", baseTime(), QStringLiteral("team-key"), QStringLiteral("claude"), 502, true);
    original.json = QByteArray(R"({"id":"req_1","route":{"attempts":[{"status":"error"}]},"note":"ü"})");
    m_store->appendRequest(original);
    EXPECT_EQ(m_store->request("req_1"), original);
    EXPECT_EQ(m_store->request("req_unknown"), std::nullopt);

    StoredRequest updated = original;
    updated.status = 200;
    updated.json = R"({"id":"req_1"})";
    m_store->appendRequest(updated);
    EXPECT_EQ(m_store->request("req_1"), updated);
    EXPECT_EQ(m_store->queryRequests({}).size(), 1u);
}

TEST_F(SqliteStoreRoundTripTest, RequestFiltersSelectAndOrderNewestFirst)
{
    const QDateTime t = baseTime();
    m_store->appendRequest(request("r1", t.addSecs(1), "alice", "gpt", 200, false));
    m_store->appendRequest(request("r2", t.addSecs(2), "bob", "gpt", 429, false));
    m_store->appendRequest(request("r3", t.addSecs(3), "alice", "claude", 200, true));
    m_store->appendRequest(request("r4", t.addSecs(4), "alice", "gpt", 502, true));
    m_store->appendRequest(request("r5", t.addSecs(5), "bob", "claude", 200, false));

    auto ids = [this](StoredRequestFilter filter) {
        QList<QByteArray> result;
        for (const StoredRequest &r : m_store->queryRequests(filter))
            result << r.id;
        return result;
    };
    EXPECT_EQ(ids({}), (QList<QByteArray>{"r5", "r4", "r3", "r2", "r1"}));
    EXPECT_EQ(ids({.keyName = "alice"}), (QList<QByteArray>{"r4", "r3", "r1"}));
    EXPECT_EQ(ids({.model = "claude"}), (QList<QByteArray>{"r5", "r3"}));
    EXPECT_EQ(ids({.status = 200}), (QList<QByteArray>{"r5", "r3", "r1"}));
    EXPECT_EQ(ids({.failedOnly = true}), (QList<QByteArray>{"r4", "r2"}));
    EXPECT_EQ(ids({.failedOver = true}), (QList<QByteArray>{"r4", "r3"}));
    EXPECT_EQ(ids({.failedOver = false}), (QList<QByteArray>{"r5", "r2", "r1"}));
    EXPECT_EQ(ids({.keyName = "alice", .model = "gpt", .failedOnly = true}), (QList<QByteArray>{"r4"}));
    EXPECT_EQ(ids({.limit = 2}), (QList<QByteArray>{"r5", "r4"}));
    // The next page: everything older than the oldest of the previous page.
    EXPECT_EQ(ids({.limit = 2, .beforeAt = t.addSecs(4)}), (QList<QByteArray>{"r3", "r2"}));
    EXPECT_EQ(ids({.keyName = "nobody"}), QList<QByteArray>{});
}

TEST_F(SqliteStoreRoundTripTest, ConfigurationIsAbsentUntilSavedThenTheLastOneWins)
{
    EXPECT_EQ(m_store->loadConfig(), std::nullopt);
    m_store->saveConfig(R"({"version":1})");
    m_store->saveConfig(R"({"version":2,"channels":[{"id":"a","credentials":["sk-1"]}]})");
    EXPECT_EQ(m_store->loadConfig(), QByteArray(R"({"version":2,"channels":[{"id":"a","credentials":["sk-1"]}]})"));
    RawDatabase raw(path());
    EXPECT_EQ(raw.count(QStringLiteral("config")), 1);
    EXPECT_FALSE(raw.scalar(QStringLiteral("SELECT updated_at FROM config")).isEmpty());
}

TEST_F(SqliteStoreRoundTripTest, MetaValuesRoundTripAndTheSchemaVersionIsReserved)
{
    EXPECT_EQ(m_store->meta(QString::fromLatin1(kMetaAdminTokenSha256)), std::nullopt);
    m_store->setMeta(QString::fromLatin1(kMetaOpeningBalanceNanos), QStringLiteral("25000000000"));
    m_store->setMeta(QString::fromLatin1(kMetaAdminTokenSha256), QStringLiteral("ab12"));
    m_store->setMeta(QString::fromLatin1(kMetaAdminTokenSha256), QStringLiteral("cd34"));
    m_store->setMeta(QString::fromLatin1(kMetaSchemaVersion), QStringLiteral("99"));

    EXPECT_EQ(m_store->meta(QString::fromLatin1(kMetaOpeningBalanceNanos)), QStringLiteral("25000000000"));
    EXPECT_EQ(m_store->meta(QString::fromLatin1(kMetaAdminTokenSha256)), QStringLiteral("cd34"));
    EXPECT_EQ(m_store->meta(QString::fromLatin1(kMetaSchemaVersion)), QString::number(kSchemaVersion));
    EXPECT_EQ(m_store->stats().rejectedWrites, 1u);
}

TEST_F(SqliteStoreRoundTripTest, ReopenedFileShowsEverythingWrittenBeforeClose)
{
    m_store->saveConfig(R"({"currency":"USD"})");
    m_store->setMeta(QString::fromLatin1(kMetaOpeningBalanceNanos), QStringLiteral("100"));
    m_store->appendLedger(topUp(1, 100));
    m_store->appendLedger(charge(2, QStringLiteral("req_x")));
    m_store->appendRequest(request("req_x", baseTime()));
    m_store.reset();  // no flush: destruction commits the queue

    m_store = openStore(path());
    ASSERT_TRUE(m_store);
    EXPECT_EQ(m_store->loadConfig(), QByteArray(R"({"currency":"USD"})"));
    EXPECT_EQ(m_store->meta(QString::fromLatin1(kMetaOpeningBalanceNanos)), QStringLiteral("100"));
    EXPECT_EQ(m_store->ledgerEntries(0), (std::vector<StoredLedgerEntry>{topUp(1, 100), charge(2, QStringLiteral("req_x"))}));
    EXPECT_EQ(m_store->request("req_x"), request("req_x", baseTime()));
}

} // namespace
} // namespace sy::storage::test
