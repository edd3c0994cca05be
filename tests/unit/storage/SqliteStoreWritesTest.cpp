// Writes are queued and committed by the storage thread: on flush(), within the flush interval, as
// soon as a batch is full, many items in one transaction; a ledger entry by commitLedger() is in
// the file when the call returns; without the ledger log (SqliteStoreLedgerLogTest has it), one by
// commitLedgerLater() is in the file when it is answered, without the request-log rows queued
// before it (they follow at the flush) unless a batch is full; a charge is booked once per request id without failing its batch; several threads may
// write at once; runs of requests in multi-row statements keep the queue's order.
#include "StorageTestSupport.h"

#include "storage/SqliteWrites.h"
#include "support/Waits.h"

#include <QTemporaryDir>

#include <optional>
#include <thread>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

// Never commits by itself within a test's lifetime: only flush(), reads or a full batch do.
SqliteStoreOptions manualOptions(int batchSize = 1'000'000)
{
    return SqliteStoreOptions{1h, batchSize, 1h};
}

// commitLedgerLater() through the database, as when the ledger log cannot take an entry.
SqliteStoreOptions withoutLedgerLog(SqliteStoreOptions options)
{
    options.ledgerLog = false;
    return options;
}

TEST(SqliteStoreWritesTest, FlushCommitsEverythingQueuedToTheFile)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    for (quint64 i = 1; i <= 20; ++i)
        store->appendLedger(charge(i, QStringLiteral("req_%1").arg(i)));
    EXPECT_EQ(store->stats().pendingWrites, 20u);
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 0);

    ASSERT_TRUE(store->flush());
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 20);
    EXPECT_EQ(store->stats().pendingWrites, 0u);
    EXPECT_EQ(store->stats().committedWrites, 20u);
}

TEST(SqliteStoreWritesTest, QueuedWritesAreCommittedWithinTheFlushInterval)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, SqliteStoreOptions{50ms, 500, 1h});
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    store->appendRequest(request("req_1", baseTime()));
    EXPECT_TRUE(sy::test::waitUntil([&] { return raw.count(QStringLiteral("request_log")) == 1; }, 5s));
}

TEST(SqliteStoreWritesTest, FullBatchIsCommittedWithoutWaitingForTheInterval)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, manualOptions(50));
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    for (int i = 0; i < 49; ++i)
        store->appendRequest(request("req_" + QByteArray::number(i), baseTime().addSecs(i)));
    EXPECT_EQ(store->stats().pendingWrites, 49u);  // one short of a batch: still queued
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 0);

    store->appendRequest(request("req_49", baseTime().addSecs(49)));
    EXPECT_TRUE(sy::test::waitUntil([&] { return raw.count(QStringLiteral("request_log")) == 50; }, 5s));
}

TEST(SqliteStoreWritesTest, ManyAppendsCommitInOneTransaction)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    for (int i = 0; i < 3000; ++i) {
        store->appendRequest(request("req_" + QByteArray::number(i), baseTime().addMSecs(i)));
        store->appendLedger(charge(quint64(i) + 1, QStringLiteral("req_%1").arg(i)));
    }
    const quint64 before = store->stats().transactions;
    ASSERT_TRUE(store->flush());
    const StoreStats stats = store->stats();
    EXPECT_EQ(stats.transactions, before + 1);
    EXPECT_EQ(stats.committedWrites, 6000u);
    RawDatabase raw(path);
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 3000);
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 3000);
}

// Runs of requests go in kRequestsPerInsert rows per statement: a later row of an id replaces an
// earlier one inside a run and across runs, and a ledger entry queued between requests goes in the
// same transaction.
TEST(SqliteStoreWritesTest, RunsOfRequestsKeepTheLastWriteOfEachIdAndTheOrderOfTheQueue)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), manualOptions());
    ASSERT_TRUE(store);
    const int total = 3 * kRequestsPerInsert + 5;
    for (int i = 0; i < total; ++i) {
        const QByteArray id = i == 4 || i == 9 || i == 2 * kRequestsPerInsert + 1 ? QByteArray("dup") : "r" + QByteArray::number(i);
        store->appendRequest(request(id, baseTime().addSecs(i), QStringLiteral("key-%1").arg(i)));
        if (i == kRequestsPerInsert + 3)
            store->appendLedger(charge(1, QStringLiteral("r%1").arg(i)));
    }
    ASSERT_TRUE(store->flush());
    EXPECT_EQ(store->queryRequests({.limit = StoredRequestFilter::kMaxLimit}).size(), std::size_t(total - 2));
    const std::optional<StoredRequest> dup = store->request("dup");
    ASSERT_TRUE(dup);
    EXPECT_EQ(dup->keyName, QStringLiteral("key-%1").arg(2 * kRequestsPerInsert + 1));
    EXPECT_EQ(store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(store->stats().transactions, 1u);
}

TEST(SqliteStoreWritesTest, SecondChargeForARequestIsIgnoredAndTheBatchStillCommits)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), manualOptions());
    ASSERT_TRUE(store);
    store->appendLedger(charge(1, QStringLiteral("req_a"), 100));
    ASSERT_TRUE(store->flush());

    // A replay after a restart (new sequence, same request) and a duplicate in the same batch,
    // between rows that must still be written.
    store->appendLedger(topUp(2, 5'000));
    store->appendLedger(charge(3, QStringLiteral("req_a"), 999));
    store->appendLedger(charge(4, QStringLiteral("req_b"), 200));
    store->appendLedger(charge(5, QStringLiteral("req_b"), 200));
    store->appendLedger(topUp(6, 5'000));  // top-ups carry no request id and are never merged
    store->appendRequest(request("req_b", baseTime()));
    ASSERT_TRUE(store->flush());

    std::vector<quint64> sequences;
    for (const StoredLedgerEntry &entry : store->ledgerEntries(0))
        sequences.push_back(entry.sequence);
    EXPECT_EQ(sequences, (std::vector<quint64>{1, 2, 4, 6}));
    EXPECT_EQ(store->ledgerEntries(0).front().amountNanos, 100);  // the first charge stands
    EXPECT_TRUE(store->request("req_b"));
    const StoreStats stats = store->stats();
    EXPECT_EQ(stats.ignoredLedgerEntries, 2u);
    EXPECT_EQ(stats.failedTransactions, 0u);
    EXPECT_TRUE(stats.lastError.isEmpty());
}

TEST(SqliteStoreWritesTest, EntryWithAKnownSequenceIsIgnored)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), manualOptions());
    ASSERT_TRUE(store);
    store->appendLedger(topUp(1, 100));
    store->appendLedger(topUp(1, 999));
    ASSERT_TRUE(store->flush());
    ASSERT_EQ(store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(store->ledgerEntries(0).front().amountNanos, 100);
    EXPECT_EQ(store->stats().ignoredLedgerEntries, 1u);
}

TEST(SqliteStoreWritesTest, LedgerEntryOfUnknownKindIsRejected)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), manualOptions());
    ASSERT_TRUE(store);
    StoredLedgerEntry odd = topUp(1, 100);
    odd.kind = QStringLiteral("refund");
    store->appendLedger(odd);
    store->appendLedger(topUp(2, 100));
    ASSERT_TRUE(store->flush());
    ASSERT_EQ(store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(store->stats().rejectedWrites, 1u);
}

TEST(SqliteStoreWritesTest, FailedCommitKeepsItsItemsQueuedInOrderAndIsRetried)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, SqliteStoreOptions{1h, 1'000'000, 1h, 20ms});
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));  // holds the write lock

    store->appendLedger(topUp(1, 100));
    store->setMeta(QStringLiteral("note"), QStringLiteral("first"));
    EXPECT_FALSE(store->flush());
    StoreStats stats = store->stats();
    EXPECT_EQ(stats.failedTransactions, 1u);
    EXPECT_EQ(stats.pendingWrites, 2u);
    EXPECT_FALSE(stats.lastError.isEmpty());

    store->setMeta(QStringLiteral("note"), QStringLiteral("second"));
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("ROLLBACK")));
    EXPECT_TRUE(store->flush());
    EXPECT_EQ(store->meta(QStringLiteral("note")), QStringLiteral("second"));  // the retried write went first
    EXPECT_EQ(store->ledgerEntries(0), std::vector<StoredLedgerEntry>{topUp(1, 100)});
    EXPECT_EQ(store->stats().pendingWrites, 0u);
}

TEST(SqliteStoreWritesTest, CommitLedgerIsInTheFileWhenItReturnsWithWhatWasQueuedBefore)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, manualOptions());
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    store->appendRequest(request("req_1", baseTime()));
    EXPECT_TRUE(store->commitLedger(charge(1, QStringLiteral("req_1"))));
    // Seen by another connection at once: committed, not queued.
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 1);
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 1);
    EXPECT_EQ(store->stats().pendingWrites, 0u);
    // Already stored (the same sequence): reported as committed, stored once.
    EXPECT_TRUE(store->commitLedger(charge(1, QStringLiteral("req_1"))));
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 1);
}

// commitLedgerLater() and the answer it posts to this thread; nullopt when none came in 5 s.
std::optional<bool> commitLaterAndWait(SqliteStore &store, StoredLedgerEntry entry)
{
    QObject context;
    std::optional<bool> answer;
    store.commitLedgerLater(std::move(entry), &context, [&answer](bool committed) { answer = committed; });
    sy::test::waitUntil([&] { return answer.has_value(); }, 5s);
    return answer;
}

// Without the log the answer a client waits for waits for this commit: it writes the ledger's
// pages only.
TEST(SqliteStoreWritesTest, CommitLedgerLaterLeavesTheQueuedRequestLogRowsToTheFlush)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, withoutLedgerLog(manualOptions()));
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    store->appendRequest(request("req_1", baseTime()));
    store->setMeta(QStringLiteral("note"), QStringLiteral("queued before the charge"));
    EXPECT_EQ(commitLaterAndWait(*store, charge(1, QStringLiteral("req_1"))), true);
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 1);
    EXPECT_EQ(store->stats().transactions, 1u);
    EXPECT_EQ(store->stats().pendingWrites, 1u);  // the request-log row
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 0);
    EXPECT_EQ(raw.count(QStringLiteral("meta WHERE key = 'note'")), 1);  // other writes went with it

    ASSERT_TRUE(store->flush());
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 1);
    EXPECT_EQ(store->stats().pendingWrites, 0u);
}

TEST(SqliteStoreWritesTest, CommitLedgerLaterTakesEverythingWhenABatchIsFull)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, withoutLedgerLog(manualOptions(3)));
    ASSERT_TRUE(store);
    RawDatabase raw(path);
    store->appendRequest(request("req_1", baseTime()));
    store->appendRequest(request("req_2", baseTime().addSecs(1)));
    EXPECT_EQ(commitLaterAndWait(*store, charge(1, QStringLiteral("req_1"))), true);
    EXPECT_EQ(raw.count(QStringLiteral("ledger")), 1);
    EXPECT_EQ(raw.count(QStringLiteral("request_log")), 2);
    EXPECT_EQ(store->stats().pendingWrites, 0u);
    EXPECT_EQ(store->stats().transactions, 1u);
}

TEST(SqliteStoreWritesTest, CommitLedgerReportsAFailedCommitAndKeepsTheEntryQueued)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path, SqliteStoreOptions{1h, 1'000'000, 1h, 20ms});
    ASSERT_TRUE(store);
    RawDatabase otherWriter(path, false);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("BEGIN IMMEDIATE")));  // holds the write lock
    EXPECT_FALSE(store->commitLedger(topUp(1, 100)));
    EXPECT_EQ(store->stats().pendingWrites, 1u);
    ASSERT_TRUE(otherWriter.exec(QStringLiteral("ROLLBACK")));
    EXPECT_TRUE(store->commitLedger(topUp(1, 100)));  // the retry, behind the queued copy
    EXPECT_EQ(store->ledgerEntries(0), std::vector<StoredLedgerEntry>{topUp(1, 100)});
}

TEST(SqliteStoreWritesTest, TwoThreadsWriteAtOnceWhileAThirdReads)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), SqliteStoreOptions{10ms, 64, 1h});
    ASSERT_TRUE(store);
    constexpr int kPerThread = 1500;
    auto writer = [&store](int thread) {
        for (int i = 0; i < kPerThread; ++i) {
            const QString id = QStringLiteral("t%1-%2").arg(thread).arg(i);
            store->appendLedger(charge(quint64(thread * kPerThread + i + 1), id));
            store->appendRequest(request(id.toUtf8(), baseTime().addMSecs(i)));
        }
    };
    std::atomic<bool> writing{true};
    std::thread reader([&] {
        while (writing.load())
            store->queryRequests({.limit = 5});
    });
    std::thread first(writer, 0);
    std::thread second(writer, 1);
    first.join();
    second.join();
    writing = false;
    reader.join();
    ASSERT_TRUE(store->flush());

    EXPECT_EQ(store->ledgerEntries(0).size(), std::size_t(2 * kPerThread));
    EXPECT_EQ(store->queryRequests({.limit = StoredRequestFilter::kMaxLimit}).size(), std::size_t(2 * kPerThread));
    EXPECT_EQ(store->stats().ignoredLedgerEntries, 0u);
    EXPECT_EQ(store->stats().committedWrites, quint64(4 * kPerThread));
}

} // namespace
} // namespace sy::storage::test
