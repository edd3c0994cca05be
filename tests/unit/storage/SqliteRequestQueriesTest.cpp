// The admin API's request-log queries stay on an index (SQLite's EXPLAIN QUERY PLAN on the
// store's file): each filter walks the index made for it newest first, or request_log_at for the
// values most rows have (status 200, not failed over), and none sorts the whole table. Also:
// every filter still returns what it asks for.
#include "StorageTestSupport.h"

#include "storage/SqliteReads.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

class SqliteRequestQueriesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_store = openStore(path(), SqliteStoreOptions{1h, 500, 1h});
        ASSERT_TRUE(m_store);
        // Mostly answered requests, a few failures and failovers, two keys and two models.
        for (int i = 0; i < 60; ++i) {
            const int status = i % 20 == 3 ? 502 : i % 20 == 7 ? 429 : 200;
            m_store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i),
                                           i % 2 ? QStringLiteral("alice") : QStringLiteral("bob"),
                                           i % 3 ? QStringLiteral("gpt") : QStringLiteral("claude"), status, i % 15 == 4));
        }
        ASSERT_TRUE(m_store->flush());
    }
    QString path() const { return m_dir.filePath(QStringLiteral("switchyard.db")); }

    // The plan's detail lines, joined by newlines.
    QString planOf(const StoredRequestFilter &filter)
    {
        RawDatabase raw(path());
        const RequestQuery query = requestQuery(filter);
        QSqlQuery explain(raw.database());
        if (!explain.prepare(QStringLiteral("EXPLAIN QUERY PLAN ") + query.sql)) {
            ADD_FAILURE() << explain.lastError().text().toStdString();
            return {};
        }
        for (const QVariant &value : query.values)
            explain.addBindValue(value);
        if (!explain.exec()) {
            ADD_FAILURE() << explain.lastError().text().toStdString();
            return {};
        }
        QStringList lines;
        while (explain.next())
            lines << explain.value(3).toString();
        return lines.join(QLatin1Char('\n'));
    }
    QList<QByteArray> ids(const StoredRequestFilter &filter)
    {
        QList<QByteArray> out;
        for (const StoredRequest &r : m_store->queryRequests(filter))
            out << r.id;
        return out;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

void expectIndex(const QString &plan, const char *index)
{
    EXPECT_TRUE(plan.contains(QStringLiteral("USING INDEX %1").arg(QLatin1String(index)))) << plan.toStdString();
    // Only ties of `at` are sorted (RIGHT PART OF ORDER BY), never the whole result.
    EXPECT_FALSE(plan.contains(QLatin1String("TEMP B-TREE FOR ORDER BY"))) << plan.toStdString();
}

TEST_F(SqliteRequestQueriesTest, EveryFilterUsesAnIndexInNewestFirstOrder)
{
    expectIndex(planOf({}), "request_log_at");
    expectIndex(planOf({.keyName = QStringLiteral("alice")}), "request_log_key_at");
    expectIndex(planOf({.model = QStringLiteral("gpt")}), "request_log_model_at");
    expectIndex(planOf({.status = 200}), "request_log_at");
    expectIndex(planOf({.status = 502}), "request_log_failed_at");
    expectIndex(planOf({.failedOnly = true}), "request_log_failed_at");
    expectIndex(planOf({.failedOnly = true, .beforeAt = baseTime().addSecs(30)}), "request_log_failed_at");
    expectIndex(planOf({.failedOver = true}), "request_log_failed_over_at");
    expectIndex(planOf({.failedOver = false}), "request_log_at");
    expectIndex(planOf({.beforeAt = baseTime().addSecs(30)}), "request_log_at");
    expectIndex(planOf({.keyName = QStringLiteral("bob"), .failedOnly = true}), "request_log_key_at");
}

TEST_F(SqliteRequestQueriesTest, EveryFilterReturnsWhatItAsksFor)
{
    EXPECT_EQ(ids({.status = 502}), (QList<QByteArray>{"r43", "r23", "r3"}));
    EXPECT_EQ(ids({.failedOnly = true}), (QList<QByteArray>{"r47", "r43", "r27", "r23", "r7", "r3"}));
    EXPECT_EQ(ids({.failedOnly = true, .beforeAt = baseTime().addSecs(27)}), (QList<QByteArray>{"r23", "r7", "r3"}));
    EXPECT_EQ(ids({.failedOver = true}), (QList<QByteArray>{"r49", "r34", "r19", "r4"}));
    EXPECT_EQ(ids({.status = 200, .limit = 2}), (QList<QByteArray>{"r59", "r58"}));
    EXPECT_EQ(ids({.failedOver = false, .limit = 2}), (QList<QByteArray>{"r59", "r58"}));
    EXPECT_EQ(ids({.keyName = QStringLiteral("alice"), .failedOnly = true}), (QList<QByteArray>{"r47", "r43", "r27", "r23", "r7", "r3"}));
    EXPECT_EQ(ids({.keyName = QStringLiteral("bob"), .failedOver = true}), (QList<QByteArray>{"r34", "r4"}));
    EXPECT_EQ(ids({.model = QStringLiteral("claude"), .status = 502}), (QList<QByteArray>{"r3"}));
}

} // namespace
} // namespace sy::storage::test
