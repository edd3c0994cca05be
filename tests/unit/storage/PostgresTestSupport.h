#pragma once
// Helpers of the storage tests that need a real PostgreSQL 15 (tests/support/PostgresServer):
// a fixture with one server per test suite and a fresh database per test (skipped when no server
// can run here), stores and connections of the test's own on that database, and a request log
// filled by the server itself (generate_series), so that tests of plans and passes get tables of
// a realistic size in a moment.
#include "StorageTestSupport.h"
#include "storage/PostgresConnection.h"
#include "storage/PostgresStore.h"
#include "support/PostgresServer.h"

#include <QUuid>

namespace sy::storage::test {

class PostgresDatabaseTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (!sy::test::PostgresServer::unavailableReason().isEmpty())
            return;
        s_server = new sy::test::PostgresServer;
        if (!s_server->start())
            ADD_FAILURE() << "PostgreSQL did not start: " << s_server->error().toStdString();
    }
    static void TearDownTestSuite()
    {
        delete s_server;
        s_server = nullptr;
    }
    void SetUp() override
    {
        if (const QString reason = sy::test::PostgresServer::unavailableReason(); !reason.isEmpty())
            GTEST_SKIP() << reason.toStdString();
        ASSERT_TRUE(s_server && s_server->isRunning());
        m_database = newDatabaseName();
        ASSERT_TRUE(s_server->createDatabase(m_database)) << s_server->error().toStdString();
    }

    static QString newDatabaseName()
    {
        return QStringLiteral("t_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    }
    static PostgresAddress addressOf(const QString &database)
    {
        auto address = parsePostgresUrl(s_server->url(database));
        if (auto *error = std::get_if<QString>(&address)) {
            ADD_FAILURE() << error->toStdString();
            return {};
        }
        return std::get<PostgresAddress>(address);
    }
    std::unique_ptr<PostgresStore> open(const PostgresStoreOptions &options = {}) const
    {
        auto opened = PostgresStore::open(addressOf(m_database), options);
        if (auto *refusal = std::get_if<QString>(&opened)) {
            ADD_FAILURE() << "open refused: " << refusal->toStdString();
            return nullptr;
        }
        return std::move(std::get<std::unique_ptr<PostgresStore>>(opened));
    }
    // psql in the test's database; the statement's failure is a test failure.
    QString psql(const QString &sql) const { return psqlIn(m_database, sql); }
    static QString psqlIn(const QString &database, const QString &sql)
    {
        const std::optional<QString> out = s_server->psql(database, sql);
        if (!out)
            ADD_FAILURE() << sql.left(200).toStdString() << ": " << s_server->error().toStdString();
        return out.value_or(QString());
    }

    // `rows` request-log rows in `database`, numbered g from `first`: id `id` and time `at` (SQL
    // expressions of g), `padding` bytes in the record, status 502 when g % 20 = 3, 429 when
    // g % 20 = 7, else 200; failed over when g % 15 = 4; key alice (odd g) or bob, model claude
    // (g % 3 = 0) or gpt: for g < 60 the rows SqliteRequestQueriesTest writes.
    static void fillRequestLog(const QString &database, int first, int rows, const QString &id, const QString &at,
                               int padding = 0)
    {
        psqlIn(database,
               QStringLiteral("INSERT INTO request_log(id, at, key_name, model, status, failed_over, record)"
                              " SELECT %1, %2, CASE WHEN g % 2 = 1 THEN 'alice' ELSE 'bob' END,"
                              " CASE WHEN g % 3 = 0 THEN 'claude' ELSE 'gpt' END,"
                              " CASE WHEN g % 20 = 3 THEN 502 WHEN g % 20 = 7 THEN 429 ELSE 200 END,"
                              " CASE WHEN g % 15 = 4 THEN 1 ELSE 0 END,"
                              " '{\"id\":\"' || %1 || '\",\"padding\":\"' || repeat('x', %5) || '\"}'"
                              " FROM generate_series(%3, %4) g")
                   .arg(id, at)
                   .arg(first)
                   .arg(first + rows - 1)
                   .arg(padding));
    }
    // baseTime() + `milliseconds` (an SQL expression) in the store's time format.
    static QString storedTimeSql(const QString &milliseconds)
    {
        return QStringLiteral("to_char(timestamp '%1' + (%2) * interval '1 millisecond', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")
            .arg(baseTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), milliseconds);
    }

    static inline sy::test::PostgresServer *s_server = nullptr;
    QString m_database;
};

} // namespace sy::storage::test
