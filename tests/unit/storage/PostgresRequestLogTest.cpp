// The request log on PostgreSQL, with tables of a realistic size: a retention pass by count
// keeps exactly the newest rows by time, then id, and reads the request_log_at index, not the
// table (the statement it replaced read every row on each pass); and each admin filter's query,
// as the store prepares it, is planned on an index in newest-first order, never as a scan and
// sort of the table.
#include "PostgresTestSupport.h"

#include "storage/PostgresSchema.h"
#include "storage/PostgresStatements.h"
#include "storage/Schema.h"
#include "storage/SqliteReads.h"

#include <QRegularExpression>

#include <algorithm>

namespace sy::storage::test {
namespace {

class PostgresRequestLogTest : public PostgresDatabaseTest {
protected:
    // The plan of `filter`'s query as the store runs it: QPSQL prepares the statement on the server
    // and executes it with the values, once (a custom plan, for these very values).
    QString planOf(const StoredRequestFilter &filter) const
    {
        const RequestQuery query = requestQuery(filter);
        QString sql = query.sql;
        for (qsizetype at = sql.indexOf(QLatin1Char('?')), n = 1; at >= 0; at = sql.indexOf(QLatin1Char('?'), at), ++n)
            sql.replace(at, 1, QLatin1Char('$') + QString::number(n));
        QStringList values;
        for (const QVariant &value : query.values) {
            if (value.typeId() == QMetaType::QString)
                values << QLatin1Char('\'') + value.toString().replace(QLatin1Char('\''), QLatin1String("''")) + QLatin1Char('\'');
            else
                values << value.toString();
        }
        return psql(QStringLiteral("PREPARE q AS %1; EXPLAIN (COSTS OFF) EXECUTE q(%2)").arg(sql, values.join(QLatin1Char(','))));
    }
};

// What this connection's statements read of the table so far: its blocks (from the server's
// buffers or its files) and how often they scanned it whole. The connection's counts reach the
// statistics views when it goes idle after asking for it (pg_stat_force_next_flush), so they are
// read on that same connection.
struct TableReads {
    qint64 blocks = 0;
    qint64 scans = 0;
};

TableReads tableReads(QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT pg_stat_force_next_flush()"))
        || !query.exec(QStringLiteral("SELECT heap_blks_read + heap_blks_hit, seq_scan FROM pg_statio_user_tables"
                                      " JOIN pg_stat_user_tables USING (relid) WHERE relid = 'request_log'::regclass"))
        || !query.next()) {
        ADD_FAILURE() << query.lastError().text().toStdString();
        return {};
    }
    return {query.value(0).toLongLong(), query.value(1).toLongLong()};
}

TEST_F(PostgresRequestLogTest, ARetentionPassKeepsTheNewestByTimeThenIdAndReadsTheIndexNotTheTable)
{
    constexpr int kRows = 3'000;
    constexpr int kTied = 5;  // rows per `at`
    // Ids scrambled against the order of `at`, so ties are broken by the id, not by the order
    // of insertion; about 1.5 KB of record per row, as a real one with its route trace.
    const QString id = QStringLiteral("'req_' || lpad(((g * 7919) % %1)::text, 5, '0')").arg(kRows);
    const QString at = storedTimeSql(QStringLiteral("g / %1").arg(kTied));

    // Within the cap, then caps that split a run of equal times (3 of the oldest 5 go; 1, 2 or 4
    // of a run) or fall between two runs (5 go), and the tenth past the cap a pass finds when it
    // runs as rows are written (PostgresWorker), each on a database of its own.
    for (const int cap : {kRows + 10, kRows - 3, kRows - 1, kRows - 5, kRows - 7, kRows - 9, kRows - 12, kRows * 9 / 10,
                          kRows * 9 / 10 - 2}) {
        SCOPED_TRACE(cap);
        const QString database = newDatabaseName();
        ASSERT_TRUE(s_server->createDatabase(database)) << s_server->error().toStdString();
        PostgresConnection connection(addressOf(database), std::chrono::seconds(30));
        ASSERT_EQ(connection.open(), std::nullopt);
        ASSERT_EQ(migratePostgres(connection.db(), postgresMigrations()), std::nullopt);
        fillRequestLog(database, 0, kRows, id, at, 1'500);
        // As autovacuum leaves a table that is not written to: every page marked all-visible,
        // so an index-only scan need not look at the table for them.
        psqlIn(database, QStringLiteral("VACUUM ANALYZE request_log"));
        const int pages = psqlIn(database, QStringLiteral("SELECT pg_relation_size('request_log') / 8192")).toInt();
        ASSERT_GE(pages, 500);
        QStringList newestFirst =
            psqlIn(database, QStringLiteral("SELECT id FROM request_log ORDER BY at DESC, id DESC")).split(QLatin1Char('\n'));
        ASSERT_EQ(newestFirst.size(), kRows);

        const TableReads before = tableReads(connection.db());
        const auto trimmed = trimSharedRequestLog(connection.db(), RetentionPolicy{0, cap}, baseTime());
        ASSERT_TRUE(std::holds_alternative<int>(trimmed)) << std::get<QString>(trimmed).toStdString();
        EXPECT_EQ(std::get<int>(trimmed), std::max(0, kRows - cap));
        // The pages of the rows deleted (one or two reads per row), not the table.
        const TableReads after = tableReads(connection.db());
        EXPECT_EQ(after.scans - before.scans, 0);
        EXPECT_LE(after.blocks - before.blocks, 20 + 2 * std::max(0, kRows - cap)) << "of " << pages << " pages";

        QStringList expected = newestFirst.mid(0, std::min(cap, kRows));
        expected.sort();
        EXPECT_EQ(psqlIn(database, QStringLiteral("SELECT id FROM request_log ORDER BY id")).split(QLatin1Char('\n')), expected);
        connection.close();
    }
}

// One of `indexes` walked, and no scan of the table, no sort of the whole result (an
// Incremental Sort of the ties of one `at` is fine).
void expectIndex(const QString &plan, const QStringList &indexes)
{
    const bool walked = std::any_of(indexes.begin(), indexes.end(), [&plan](const QString &index) {
        return plan.contains(QStringLiteral(" using %1 on request_log").arg(index));
    });
    EXPECT_TRUE(walked) << "not on " << indexes.join(QLatin1String(" or ")).toStdString() << ":\n" << plan.toStdString();
    EXPECT_FALSE(plan.contains(QLatin1String("Seq Scan"))) << plan.toStdString();
    EXPECT_FALSE(plan.contains(QRegularExpression(QStringLiteral("(^|->  )Sort\\b"), QRegularExpression::MultilineOption)))
        << plan.toStdString();
}

TEST_F(PostgresRequestLogTest, EveryAdminFilterIsPlannedOnAnIndexInNewestFirstOrder)
{
    ASSERT_TRUE(open());  // the schema
    // 20,000 requests, one per 10 ms, about 1 KB of record each; 10 % failed, 7 % failed over.
    fillRequestLog(m_database, 0, 20'000, QStringLiteral("'req_' || lpad(g::text, 6, '0')"),
                   storedTimeSql(QStringLiteral("g * 10")), 1'000);
    psql(QStringLiteral("VACUUM ANALYZE request_log"));
    const QDateTime middle = baseTime().addSecs(100);
    const QStringList at{QStringLiteral("request_log_at")};
    const QStringList failed{QStringLiteral("request_log_failed_at")};
    const QStringList failedOver{QStringLiteral("request_log_failed_over_at")};
    // Half the rows have each key and a third or two thirds each model: walking request_log_at
    // and skipping the others is as good as the key's or model's own index.
    const QStringList key{QStringLiteral("request_log_key_at"), QStringLiteral("request_log_at")};
    const QStringList model{QStringLiteral("request_log_model_at"), QStringLiteral("request_log_at")};

    expectIndex(planOf({}), at);
    expectIndex(planOf({.keyName = QStringLiteral("alice")}), key);
    expectIndex(planOf({.model = QStringLiteral("claude")}), model);
    expectIndex(planOf({.status = 200}), at);
    expectIndex(planOf({.status = 502}), failed);
    expectIndex(planOf({.failedOnly = true}), failed);
    expectIndex(planOf({.failedOnly = true, .beforeAt = middle}), failed);
    expectIndex(planOf({.failedOver = true}), failedOver);
    expectIndex(planOf({.failedOver = false}), at);
    expectIndex(planOf({.beforeAt = middle}), at);
    expectIndex(planOf({.keyName = QStringLiteral("bob"), .failedOnly = true}), failed + key);
    expectIndex(planOf({.model = QStringLiteral("gpt"), .failedOver = true}), failedOver + model);
    expectIndex(planOf({.model = QStringLiteral("claude"), .status = 429, .limit = 10}), failed + model);
}

} // namespace
} // namespace sy::storage::test
