// What was flushed, and every ledger entry commitLedger() returned for (with what was queued
// before it), survives the process being killed with SIGKILL. The parent runs this test binary
// again, filtered to the child test, which writes, flushes, queues a little more, commits one
// ledger entry, queues a little more and kills itself; the parent then reopens the file. Writes
// only queued at the kill may be lost.
#include "StorageTestSupport.h"

#include <QTemporaryDir>

#include <csignal>
#include <cstdio>

namespace sy::storage::test {
namespace {

constexpr char kCrashDbVariable[] = "SWITCHYARD_STORAGE_CRASH_DB";
constexpr int kFlushedRows = 100;
constexpr int kQueuedRows = 10;
constexpr int kCommittedRows = kFlushedRows + kQueuedRows + 1;  // up to the commitLedger() entry
constexpr int kQueuedAfterCommit = 5;

TEST(SqliteStoreCrashChild, WritesFlushesAndKillsItself)
{
    const QString path = qEnvironmentVariable(kCrashDbVariable);
    if (path.isEmpty())
        GTEST_SKIP() << "runs only as the child of SqliteStoreCrashTest";
    // Never commits by itself: only flush() writes, so "queued" below really is only queued.
    auto store = openStore(path, SqliteStoreOptions{std::chrono::hours(1), 1'000'000, std::chrono::hours(1)});
    ASSERT_TRUE(store);
    store->saveConfig(R"({"currency":"USD"})");
    store->setMeta(QString::fromLatin1(kMetaOpeningBalanceNanos), QStringLiteral("25000000000"));
    for (int i = 1; i <= kFlushedRows; ++i) {
        store->appendLedger(charge(quint64(i), QStringLiteral("req_%1").arg(i)));
        store->appendRequest(request("req_" + QByteArray::number(i), baseTime().addSecs(i)));
    }
    ASSERT_TRUE(store->flush());
    for (int i = kFlushedRows + 1; i <= kFlushedRows + kQueuedRows; ++i)
        store->appendLedger(charge(quint64(i), QStringLiteral("req_%1").arg(i)));
    ASSERT_TRUE(store->commitLedger(charge(quint64(kCommittedRows), QStringLiteral("req_%1").arg(kCommittedRows))));
    for (int i = kCommittedRows + 1; i <= kCommittedRows + kQueuedAfterCommit; ++i)
        store->appendLedger(charge(quint64(i), QStringLiteral("req_%1").arg(i)));
    std::printf("flushed-and-killing\n");
    std::fflush(stdout);
    std::raise(SIGKILL);
}

TEST(SqliteStoreCrashTest, FlushedWritesSurviveSigkill)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));

    runKilledChild(kCrashDbVariable, path, "SqliteStoreCrashChild.WritesFlushesAndKillsItself", "flushed-and-killing");
    if (HasFailure())
        return;

    // The kill left the commits in the WAL, not yet checkpointed: opening must find them.
    EXPECT_TRUE(QFileInfo::exists(path + QStringLiteral("-wal")));
    auto store = openStore(path);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->loadConfig(), QByteArray(R"({"currency":"USD"})"));
    EXPECT_EQ(store->meta(QString::fromLatin1(kMetaOpeningBalanceNanos)), QStringLiteral("25000000000"));
    const auto entries = store->ledgerEntries(0);
    ASSERT_GE(entries.size(), std::size_t(kCommittedRows));
    EXPECT_LE(entries.size(), std::size_t(kCommittedRows + kQueuedAfterCommit));
    for (int i = 0; i < kCommittedRows; ++i)
        EXPECT_EQ(entries[std::size_t(i)], charge(quint64(i + 1), QStringLiteral("req_%1").arg(i + 1)));
    EXPECT_EQ(store->queryRequests({.limit = 1000}).size(), std::size_t(kFlushedRows));
    EXPECT_EQ(store->request("req_100"), request("req_100", baseTime().addSecs(100)));

    // A replay of every charge after the restart books nothing twice.
    for (int i = 1; i <= kFlushedRows; ++i)
        store->appendLedger(charge(quint64(1000 + i), QStringLiteral("req_%1").arg(i)));
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->ledgerEntries(0).size(), entries.size());
    EXPECT_EQ(store->stats().ignoredLedgerEntries, quint64(kFlushedRows));
}

} // namespace
} // namespace sy::storage::test
