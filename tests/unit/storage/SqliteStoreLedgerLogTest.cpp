// commitLedgerLater() through the ledger log: answered within the call, also while another
// program holds the database's write lock; the entries reach the database with the next batch and
// then leave the log. Killed with SIGKILL while the database was locked, the store commits at its
// next open every entry it answered for, before anything reads the ledger; a log left beside a
// replaced database is not replayed into the new one. A clean close leaves no log behind.
#include "StorageTestSupport.h"
#include "storage/LedgerLogRecord.h"
#include "support/Waits.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <csignal>
#include <cstdio>
#include <optional>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

constexpr char kCrashDbVariable[] = "SWITCHYARD_LEDGER_LOG_CRASH_DB";
constexpr int kAnsweredBeforeKill = 40;

// The store never commits by itself (flushes only when asked), and gives up on a lock quickly.
SqliteStoreOptions manualOptions()
{
    SqliteStoreOptions options{1h, 1'000'000, 1h, 20ms};
    return options;
}

// commitLedgerLater(); the answer if it came within the call, else nullopt.
std::optional<bool> commitLaterAnsweredAtOnce(SqliteStore &store, StoredLedgerEntry entry)
{
    QObject context;
    std::optional<bool> answer;
    store.commitLedgerLater(std::move(entry), &context, [&answer](bool committed) { answer = committed; });
    return answer;
}

TEST(SqliteStoreLedgerLogTest, AnEntryIsAnsweredAtOnceWhileTheDatabaseIsLockedAndReachesItLater)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));  // holds the write lock

    EXPECT_EQ(commitLaterAnsweredAtOnce(*store, charge(1, QStringLiteral("req_1"))), true);
    EXPECT_EQ(commitLaterAnsweredAtOnce(*store, topUp(2, 500)), true);
    ASSERT_TRUE(store->ledgerLogSizes());
    EXPECT_EQ(store->ledgerLogSizes()->unconfirmed, 2);
    EXPECT_GT(ledgerLogRecordBytes(path), 0);
    EXPECT_FALSE(store->flush()) << "the other writer still holds the lock";
    EXPECT_EQ(store->ledgerLogSizes()->unconfirmed, 2) << "not committed: still in the log";

    ASSERT_TRUE(otherWriter.exec(QStringLiteral("ROLLBACK")));
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->ledgerEntries(0),
              (std::vector<StoredLedgerEntry>{charge(1, QStringLiteral("req_1")), topUp(2, 500)}));
    EXPECT_EQ(store->ledgerLogSizes()->unconfirmed, 0);
    EXPECT_EQ(ledgerLogRecordBytes(path), 0) << "what the database has left the log";
    store.reset();
    for (const QString &log : LedgerLogFiles::paths(path))
        EXPECT_FALSE(QFileInfo::exists(log)) << "a clean close leaves no log: " << log.toStdString();
}

TEST(SqliteStoreLedgerLogTest, TheEntriesGoToTheDatabaseWithTheNextBatch)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    SqliteStoreOptions options;
    options.flushInterval = 20ms;
    auto store = openStore(path, options);
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    for (quint64 sequence = 1; sequence <= 5; ++sequence)
        ASSERT_EQ(commitLaterAnsweredAtOnce(*store, charge(sequence, QStringLiteral("req_%1").arg(sequence))), true);
    EXPECT_TRUE(sy::test::waitUntil([&] { return raw.count(QStringLiteral("ledger")) == 5; }, 5s));
    EXPECT_TRUE(sy::test::waitUntil([&] { return store->ledgerLogSizes()->unconfirmed == 0; }, 5s));
    EXPECT_EQ(ledgerLogRecordBytes(path), 0);
}

TEST(SqliteStoreLedgerLogTest, WithoutTheLogTheAnswerWaitsForTheDatabase)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    SqliteStoreOptions options = manualOptions();
    options.ledgerLog = false;
    auto store = openStore(path, options);
    ASSERT_TRUE(store);
    EXPECT_FALSE(store->ledgerLogSizes());
    EXPECT_FALSE(QFileInfo::exists(LedgerLogFiles::paths(path).first()));
    QObject context;
    std::optional<bool> answer;
    store->commitLedgerLater(charge(1, QStringLiteral("req_1")), &context, [&answer](bool committed) { answer = committed; });
    EXPECT_FALSE(answer.has_value()) << "answered before the storage thread committed";
    EXPECT_TRUE(sy::test::waitUntil([&] { return answer.has_value(); }, 5s));
    EXPECT_EQ(answer, true);
}

TEST(SqliteStoreLedgerLogCrashChild, AnswersWhileLockedAndKillsItself)
{
    const QString path = qEnvironmentVariable(kCrashDbVariable);
    if (path.isEmpty())
        GTEST_SKIP() << "runs only as the child of SqliteStoreLedgerLogTest.AnsweredEntriesSurviveAKillWhileTheDatabaseWasLocked";
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));
    for (int i = 1; i <= kAnsweredBeforeKill; ++i)
        ASSERT_EQ(commitLaterAnsweredAtOnce(*store, charge(quint64(i), QStringLiteral("req_%1").arg(i))), true);
    ASSERT_FALSE(store->flush());
    std::printf("answered-and-killing\n");
    std::fflush(stdout);
    std::raise(SIGKILL);
}

TEST(SqliteStoreLedgerLogTest, AnsweredEntriesSurviveAKillWhileTheDatabaseWasLocked)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    runKilledChild(kCrashDbVariable, path, "SqliteStoreLedgerLogCrashChild.AnswersWhileLockedAndKillsItself",
                   "answered-and-killing");
    if (HasFailure())
        return;
    {
        RawDatabase raw(path);
        EXPECT_EQ(raw.count(QStringLiteral("ledger")), 0) << "the database never had them";
    }
    EXPECT_GT(ledgerLogRecordBytes(path), 0);

    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    const std::vector<StoredLedgerEntry> entries = store->ledgerEntries(0);
    ASSERT_EQ(entries.size(), std::size_t(kAnsweredBeforeKill));
    for (int i = 0; i < kAnsweredBeforeKill; ++i)
        EXPECT_EQ(entries[std::size_t(i)], charge(quint64(i + 1), QStringLiteral("req_%1").arg(i + 1)));
    EXPECT_EQ(ledgerLogRecordBytes(path), 0) << "committed at open, then emptied";
    store.reset();
    store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    EXPECT_EQ(store->ledgerEntries(0).size(), std::size_t(kAnsweredBeforeKill)) << "replayed twice";
}

TEST(SqliteStoreLedgerLogTest, ALogLeftBesideAReplacedDatabaseIsNotReplayedIntoTheNewOne)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    const QStringList logs = LedgerLogFiles::paths(path);
    QList<QByteArray> oldLogs;
    {
        auto store = openStore(path, manualOptions());
        ASSERT_TRUE(store);
        RawDatabase otherWriter(path, false);
        ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));
        ASSERT_EQ(commitLaterAnsweredAtOnce(*store, charge(1, QStringLiteral("req_old"))), true);
        for (const QString &log : logs)
            oldLogs << fileBytes(log);
        ASSERT_TRUE(otherWriter.exec(QStringLiteral("ROLLBACK")));
    }
    for (const QString &file : QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")} + logs)
        QFile::remove(file);
    {
        auto fresh = openStore(path, manualOptions());  // a new database, with an id of its own
        ASSERT_TRUE(fresh);
    }
    for (int i = 0; i < logs.size(); ++i) {
        QFile log(logs[i]);
        ASSERT_TRUE(log.open(QIODevice::WriteOnly | QIODevice::Truncate));
        log.write(oldLogs[i]);
    }
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    EXPECT_TRUE(store->ledgerEntries(0).empty()) << "the old database's charge was booked into the new one";
    EXPECT_EQ(ledgerLogRecordBytes(path), 0);
}

} // namespace
} // namespace sy::storage::test
