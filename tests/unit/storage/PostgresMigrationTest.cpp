// The shared database's schema upgrades in place: a version 1 database keeps its request log and
// ends with version 2's indexes (the partial ones for failures and failovers, request_log_at on
// (at, id)), every admin filter answering as before; and gateways that start while another one
// migrates, for longer than their statement timeout, wait for it and find the new version
// instead of failing or migrating again.
#include "PostgresTestSupport.h"

#include "storage/PostgresSchema.h"
#include "storage/Schema.h"
#include "support/Waits.h"

#include <thread>

namespace sy::storage::test {
namespace {

class PostgresMigrationTest : public PostgresDatabaseTest {
protected:
    // The test's database at schema version 1, as the previous program left it.
    void createVersion1() const
    {
        PostgresConnection connection(addressOf(m_database), std::chrono::seconds(30));
        ASSERT_EQ(connection.open(), std::nullopt);
        const std::vector<Migration> first(postgresMigrations().begin(), postgresMigrations().begin() + 1);
        ASSERT_EQ(first.back().version, 1);
        ASSERT_EQ(migratePostgres(connection.db(), first), std::nullopt);
    }
    QString indexes() const
    {
        return psql(QStringLiteral("SELECT indexdef FROM pg_indexes WHERE tablename = 'request_log' ORDER BY indexname"));
    }
    QString schemaVersion() const { return psql(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")); }
};

QList<QByteArray> ids(PostgresStore &store, const StoredRequestFilter &filter)
{
    QList<QByteArray> out;
    for (const StoredRequest &r : store.queryRequests(filter))
        out << r.id;
    return out;
}

TEST_F(PostgresMigrationTest, AVersion1DatabaseKeepsItsRequestsAndEndsWithTheNewIndexes)
{
    createVersion1();
    // SqliteRequestQueriesTest's 60 rows, one a second.
    fillRequestLog(m_database, 0, 60, QStringLiteral("'r' || g"), storedTimeSql(QStringLiteral("g * 1000")));
    ASSERT_EQ(psql(QStringLiteral("SELECT count(*) FROM request_log")), QStringLiteral("60"));
    ASSERT_EQ(schemaVersion(), QStringLiteral("1"));

    auto store = open();
    ASSERT_TRUE(store);
    EXPECT_EQ(schemaVersion(), QStringLiteral("2"));
    EXPECT_EQ(indexes(), QStringLiteral("CREATE INDEX request_log_at ON public.request_log USING btree (at, id)\n"
                                        "CREATE INDEX request_log_failed_at ON public.request_log USING btree (at)"
                                        " WHERE (status >= 400)\n"
                                        "CREATE INDEX request_log_failed_over_at ON public.request_log USING btree (at)"
                                        " WHERE (failed_over = 1)\n"
                                        "CREATE INDEX request_log_key_at ON public.request_log USING btree (key_name, at)\n"
                                        "CREATE INDEX request_log_model_at ON public.request_log USING btree (model, at)\n"
                                        "CREATE UNIQUE INDEX request_log_pkey ON public.request_log USING btree (id)"));

    // What SqliteRequestQueriesTest expects of the same rows.
    EXPECT_EQ(ids(*store, {.limit = 3}), (QList<QByteArray>{"r59", "r58", "r57"}));
    EXPECT_EQ(ids(*store, {.status = 502}), (QList<QByteArray>{"r43", "r23", "r3"}));
    EXPECT_EQ(ids(*store, {.failedOnly = true}), (QList<QByteArray>{"r47", "r43", "r27", "r23", "r7", "r3"}));
    EXPECT_EQ(ids(*store, {.failedOnly = true, .beforeAt = baseTime().addSecs(27)}), (QList<QByteArray>{"r23", "r7", "r3"}));
    EXPECT_EQ(ids(*store, {.failedOver = true}), (QList<QByteArray>{"r49", "r34", "r19", "r4"}));
    EXPECT_EQ(ids(*store, {.status = 200, .limit = 2}), (QList<QByteArray>{"r59", "r58"}));
    EXPECT_EQ(ids(*store, {.failedOver = false, .limit = 2}), (QList<QByteArray>{"r59", "r58"}));
    EXPECT_EQ(ids(*store, {.keyName = QStringLiteral("alice"), .failedOnly = true}),
              (QList<QByteArray>{"r47", "r43", "r27", "r23", "r7", "r3"}));
    EXPECT_EQ(ids(*store, {.keyName = QStringLiteral("bob"), .failedOver = true}), (QList<QByteArray>{"r34", "r4"}));
    EXPECT_EQ(ids(*store, {.model = QStringLiteral("claude"), .status = 502}), (QList<QByteArray>{"r3"}));
    EXPECT_EQ(ids(*store, {.limit = StoredRequestFilter::kMaxLimit}).size(), 60);
}

TEST_F(PostgresMigrationTest, GatewaysStartingDuringALongMigrationWaitForItAndDoNotMigrateAgain)
{
    createVersion1();
    fillRequestLog(m_database, 0, 60, QStringLiteral("'r' || g"), storedTimeSql(QStringLiteral("g * 1000")));
    constexpr std::chrono::milliseconds kTimeout{300};
    // The migration of another gateway, whose last step takes 1.5 s: five times the statement
    // timeout of every connection here.
    std::vector<Migration> slow = postgresMigrations();
    slow.back().statements << QStringLiteral("SELECT pg_sleep(1.5)");
    std::optional<QString> slowOutcome = QStringLiteral("not run");
    std::thread other([&] {
        PostgresConnection connection(addressOf(m_database), kTimeout);
        if (const auto error = connection.open()) {
            slowOutcome = *error;
            return;
        }
        slowOutcome = migratePostgres(connection.db(), slow);
    });
    // Once it holds the migrations' lock, this gateway starts.
    const bool locked = sy::test::waitUntil([&] {
        return psql(QStringLiteral("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")) == QLatin1String("1");
    });
    PostgresStoreOptions options;
    options.statementTimeout = kTimeout;
    auto store = locked ? open(options) : nullptr;
    other.join();
    ASSERT_TRUE(locked) << "the other gateway's migration never held its lock: " << slowOutcome.value_or(QString()).toStdString();

    EXPECT_FALSE(slowOutcome) << slowOutcome->toStdString();
    // Opened after the other's commit, finding version 2: migrating again would have failed
    // (its indexes exist).
    EXPECT_TRUE(store);
    EXPECT_EQ(schemaVersion(), QStringLiteral("2"));
    EXPECT_EQ(psql(QStringLiteral("SELECT count(*) FROM pg_indexes WHERE tablename = 'request_log'")), QStringLiteral("6"));
    EXPECT_EQ(psql(QStringLiteral("SELECT count(*) FROM request_log")), QStringLiteral("60"));
}

} // namespace
} // namespace sy::storage::test
