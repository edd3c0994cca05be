// The versioned schema: files made by hand at version 0 (no meta table) and version 1 open with
// their rows, pending steps run in one transaction, a failing step changes nothing, and a newer
// database is refused by the migration itself.
#include "StorageTestSupport.h"

#include "storage/Schema.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

int versionOf(RawDatabase &raw)
{
    const auto version = readSchemaVersion(raw.database());
    return std::holds_alternative<int>(version) ? std::get<int>(version) : -1;
}

TEST(SqliteStoreMigrationTest, VersionZeroFileIsMigratedAndKeepsItsOtherTables)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("old.db"));
    {
        RawDatabase raw(path, false);
        raw.exec(QStringLiteral("CREATE TABLE notes(text TEXT)"));
        raw.exec(QStringLiteral("INSERT INTO notes VALUES('kept')"));
        EXPECT_EQ(versionOf(raw), 0);
    }
    {
        auto store = openStore(path);
        ASSERT_TRUE(store);
        EXPECT_EQ(store->meta(QString::fromLatin1(kMetaSchemaVersion)), QString::number(kSchemaVersion));
        store->appendLedger(topUp(1, 5'000));
        ASSERT_EQ(store->ledgerEntries(0).size(), 1u);
    }
    RawDatabase raw(path);
    EXPECT_EQ(raw.scalar(QStringLiteral("SELECT text FROM notes")), QStringLiteral("kept"));
    EXPECT_EQ(versionOf(raw), kSchemaVersion);
}

TEST(SqliteStoreMigrationTest, HandMadeVersionOneFileOpensWithItsRows)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("v1.db"));
    {
        RawDatabase raw(path, false);
        for (const char *sql : {
                 "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)",
                 "CREATE TABLE config(id INTEGER PRIMARY KEY CHECK(id = 1), document TEXT NOT NULL, updated_at TEXT)",
                 "CREATE TABLE ledger(sequence INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,"
                 " request_id TEXT, key_name TEXT, model_id TEXT, channel_id TEXT, prompt_tokens INTEGER,"
                 " completion_tokens INTEGER, amount_nanos INTEGER NOT NULL, note TEXT)",
                 "CREATE UNIQUE INDEX ledger_charge_once ON ledger(request_id) WHERE kind = 'charge'",
                 "CREATE TABLE request_log(id TEXT PRIMARY KEY, at TEXT NOT NULL, key_name TEXT, model TEXT,"
                 " status INTEGER, failed_over INTEGER, record TEXT)",
                 "INSERT INTO meta VALUES('schema_version', '1'), ('opening_balance_nanos', '25000000000')",
                 "INSERT INTO config VALUES(1, '{\"currency\":\"USD\"}', '2025-01-01T00:00:00.000Z')",
                 "INSERT INTO ledger VALUES(1, '2025-01-01T12:00:01.000Z', 'charge', 'req_a', 'team-key',"
                 " 'gpt-4o-mini', 'openai-main', 10, 5, 700, NULL)",
                 "INSERT INTO request_log VALUES('req_a', '2025-01-01T12:00:00.000Z', 'team-key', 'gpt-4o-mini',"
                 " 200, 0, '{\"id\":\"req_a\"}')",
             })
            raw.exec(QString::fromLatin1(sql));
    }
    auto store = openStore(path);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->meta(QString::fromLatin1(kMetaOpeningBalanceNanos)), QStringLiteral("25000000000"));
    EXPECT_EQ(store->loadConfig(), QByteArray(R"({"currency":"USD"})"));
    const auto entries = store->ledgerEntries(0);
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].requestId, QStringLiteral("req_a"));
    EXPECT_EQ(entries[0].amountNanos, 700);
    EXPECT_EQ(entries[0].at, QDateTime(QDate(2025, 1, 1), QTime(12, 0, 1), Qt::UTC));
    const auto logged = store->request("req_a");
    ASSERT_TRUE(logged);
    EXPECT_EQ(logged->json, QByteArray(R"({"id":"req_a"})"));
    // The rule of the hand-made index holds: a replayed charge is not booked twice.
    store->appendLedger(charge(2, QStringLiteral("req_a")));
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(store->stats().ignoredLedgerEntries, 1u);
}

const std::vector<Migration> kTwoSteps{
    schemaMigrations().front(),
    {2,
     {QStringLiteral("CREATE TABLE channels(id TEXT PRIMARY KEY)"),
      QStringLiteral("INSERT INTO channels VALUES('openai-main')")}},
};

TEST(SqliteStoreMigrationTest, OnlyPendingStepsAreApplied)
{
    QTemporaryDir dir;
    RawDatabase raw(dir.filePath(QStringLiteral("steps.db")), false);
    QSqlDatabase db = raw.database();
    ASSERT_EQ(migrate(db, {schemaMigrations().front()}), std::nullopt);
    EXPECT_EQ(versionOf(raw), 1);
    raw.exec(QStringLiteral("INSERT INTO meta VALUES('opening_balance_nanos', '7')"));

    ASSERT_EQ(migrate(db, kTwoSteps), std::nullopt);
    EXPECT_EQ(versionOf(raw), 2);
    EXPECT_EQ(raw.count(QStringLiteral("channels")), 1);
    EXPECT_EQ(raw.scalar(QStringLiteral("SELECT value FROM meta WHERE key = 'opening_balance_nanos'")),
              QStringLiteral("7"));
    // Already there: nothing runs again (a second INSERT would fail on the primary key).
    ASSERT_EQ(migrate(db, kTwoSteps), std::nullopt);
    EXPECT_EQ(raw.count(QStringLiteral("channels")), 1);
}

TEST(SqliteStoreMigrationTest, FailingStepRollsBackEveryStepOfTheRun)
{
    QTemporaryDir dir;
    RawDatabase raw(dir.filePath(QStringLiteral("steps.db")), false);
    QSqlDatabase db = raw.database();
    std::vector<Migration> steps = kTwoSteps;
    steps.push_back({3, {QStringLiteral("CREATE TABLE half(x)"), QStringLiteral("THIS IS NOT SQL")}});

    const auto error = migrate(db, steps);
    ASSERT_TRUE(error);
    EXPECT_TRUE(error->contains(QStringLiteral("version 3"))) << error->toStdString();
    EXPECT_EQ(versionOf(raw), 0);
    EXPECT_EQ(raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master")), QStringLiteral("0"));
}

TEST(SqliteStoreMigrationTest, NewerDatabaseIsRefusedByTheMigration)
{
    QTemporaryDir dir;
    RawDatabase raw(dir.filePath(QStringLiteral("newer.db")), false);
    QSqlDatabase db = raw.database();
    std::vector<Migration> newer = schemaMigrations();
    newer.push_back({kSchemaVersion + 1, kTwoSteps.back().statements});
    ASSERT_EQ(migrate(db, newer), std::nullopt);

    const auto error = migrate(db, schemaMigrations());
    ASSERT_TRUE(error);
    EXPECT_TRUE(error->contains(QStringLiteral("newer"))) << error->toStdString();
    EXPECT_EQ(versionOf(raw), kSchemaVersion + 1);
    EXPECT_EQ(raw.count(QStringLiteral("channels")), 1);
}

} // namespace
} // namespace sy::storage::test
