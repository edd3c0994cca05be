// SqliteCheckpointer: the writer's commits no longer checkpoint by themselves (SQLite's automatic
// checkpoint is off once it is attached); the WAL is checkpointed on the checkpointer's own thread
// and connection once per `pages` frames of growth (not once per commit), and past the hard bound
// the writer copies the residue between two commits, so the WAL starts over and stays bounded
// under steady commits.
#include "StorageTestSupport.h"

#include "storage/SqliteCheckpointer.h"
#include "storage/SqliteWrites.h"
#include "support/Waits.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <thread>

namespace sy::storage {
namespace {

using namespace std::chrono_literals;
using test::RawDatabase;

constexpr int kBlobBytes = 40'000;  // about ten 4 KiB pages per transaction
constexpr qint64 kFrameBytes = 4096 + 24;  // a WAL frame: its header and a page
// A row of its own 4 KiB leaf page: a commit writes that page, its parents and page 1 (the size
// of the database), and more when the leaves are rebalanced.
constexpr int kRowBytes = 3'000;
constexpr int kOneCommitFrames = 8;  // more than one such commit ever writes

// The WAL's largest size that the tests accept. It passes the hard bound by at most another
// `pages` while the writer waits for an empty queue or for the thread's checkpoint to end; from
// then on the writer copies the residue after every commit, so that the next one starts the WAL
// over, unless SQLite refuses because the thread's checkpoint holds the checkpoint lock (at the
// thread's low priority on a busy core it may run long: under the full suite on 2 cores the WAL
// reached 6.7 and 8.5 times `pages`). Each refusal lets one more commit grow the WAL.
qint64 acceptedWalBytes(const SqliteCheckpointer &checkpointer, int pages)
{
    const int commits = 1 + checkpointer.writerRefusals();
    return 32 + qint64(checkpointer.hardBoundPages() + pages + commits * kOneCommitFrames) * kFrameBytes;
}

class SqliteCheckpointerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        writer = std::make_unique<RawDatabase>(path(), false);
        ASSERT_EQ(writer->scalar(QStringLiteral("PRAGMA journal_mode=WAL")), QStringLiteral("wal"));
        ASSERT_TRUE(writer->exec(QStringLiteral("CREATE TABLE t(x BLOB)")));
    }
    void TearDown() override { writer.reset(); }

    QString path() const { return m_dir.filePath(QStringLiteral("c.db")); }
    qint64 size(const QString &suffix) const { return QFileInfo(path() + suffix).size(); }
    bool insertOne(int bytes = kBlobBytes)
    {
        return writer->exec(QStringLiteral("INSERT INTO t VALUES(randomblob(%1))").arg(bytes));
    }
    // The WAL's checkpoint sequence number (its header, bytes 12-15): SQLite adds one each time
    // the WAL starts over.
    quint32 walSequence() const { return test::walCheckpointSequence(path()); }
    std::unique_ptr<RawDatabase> writer;

private:
    QTemporaryDir m_dir;
};

TEST_F(SqliteCheckpointerTest, TheWritersCommitsDoNotCheckpointOnceItIsAttached)
{
    SqliteCheckpointer checkpointer(path(), 1'000'000'000, 1'000);  // never asks for one
    checkpointer.attach(sqliteHandleOf(writer->database()));
    // 1,500 pages: SQLite's own automatic checkpoint would have copied them into the file at 1,000.
    for (int i = 0; i < 150; ++i)
        ASSERT_TRUE(insertOne());
    EXPECT_LT(size(QString()), 100'000) << "the writer checkpointed inside a commit";
    EXPECT_GT(size(QStringLiteral("-wal")), 150 * kBlobBytes);
    EXPECT_EQ(checkpointer.checkpoints(), 0);
    checkpointer.stop();
}

TEST_F(SqliteCheckpointerTest, PastItsBoundTheWalIsCheckpointedAndStartsOver)
{
    SqliteCheckpointer checkpointer(path(), 8, 1'000);
    checkpointer.attach(sqliteHandleOf(writer->database()));
    constexpr int kInserts = 40;
    for (int i = 0; i < kInserts; ++i) {
        ASSERT_TRUE(insertOne());
        // Each commit starts the WAL over (the checkpoint before it copied every frame, between
        // two commits) and leaves ≥ 8 pages in it: one checkpoint each, on the other thread.
        ASSERT_TRUE(sy::test::waitUntil([&] { return checkpointer.checkpoints() > i; }, 10s)) << "insert " << i;
    }
    EXPECT_GT(size(QString()), qint64(kInserts) * kBlobBytes) << "the rows were copied into the database file";
    EXPECT_LT(size(QStringLiteral("-wal")), qint64(kInserts) * kBlobBytes / 4) << "the WAL did not start over";
    EXPECT_EQ(writer->count(QStringLiteral("t")), kInserts);
    checkpointer.stop();
    checkpointer.stop();  // idempotent
}

// The frames that `commits` inserts of kRowBytes write, from the WAL of a second database that is
// never checkpointed (a commit's frames are its changed pages, whatever the WAL holds already).
int framesWrittenBy(const QString &path, int commits)
{
    RawDatabase db(path, false);
    if (db.scalar(QStringLiteral("PRAGMA journal_mode=WAL")) != QStringLiteral("wal")
        || !db.exec(QStringLiteral("CREATE TABLE t(x BLOB)")))
        return -1;
    SqliteCheckpointer never(path, 1 << 30, 1'000);
    never.attach(sqliteHandleOf(db.database()));
    const qint64 before = QFileInfo(path + QStringLiteral("-wal")).size();
    for (int i = 0; i < commits; ++i) {
        if (!db.exec(QStringLiteral("INSERT INTO t VALUES(randomblob(%1))").arg(kRowBytes)))
            return -1;
    }
    never.stop();
    return int((QFileInfo(path + QStringLiteral("-wal")).size() - before) / kFrameBytes);
}

// Under commits that keep coming, the thread's checkpoint seldom ends between two of them, so the
// WAL does not start over; it is still checkpointed once per `pages` frames of growth, not after
// every commit.
void expectCheckpointsInProportionToGrowth(const QString &path, RawDatabase &writer, std::chrono::microseconds gap,
                                           int commits)
{
    constexpr int kPages = 100;
    const int frames = framesWrittenBy(path + QStringLiteral("-count.db"), commits);
    ASSERT_GT(frames, commits);
    SqliteCheckpointer checkpointer(path, kPages, 1'000);
    checkpointer.attach(sqliteHandleOf(writer.database()));
    for (int i = 0; i < commits; ++i) {
        ASSERT_TRUE(writer.exec(QStringLiteral("INSERT INTO t VALUES(randomblob(%1))").arg(kRowBytes)));
        if (gap.count() > 0)
            std::this_thread::sleep_for(gap);  // the pace of the load, not a wait for a result
    }
    checkpointer.stop();
    // Each request follows `pages` new frames (since the last one, or since the WAL started over).
    EXPECT_GE(checkpointer.checkpoints(), 1);
    EXPECT_LE(checkpointer.checkpoints(), frames / kPages + 1) << commits << " commits, " << frames << " frames";
    EXPECT_EQ(writer.count(QStringLiteral("t")), commits);
    EXPECT_EQ(writer.scalar(QStringLiteral("PRAGMA integrity_check")), QStringLiteral("ok"));
}

TEST_F(SqliteCheckpointerTest, BackToBackCommitsAreCheckpointedOncePerPagesOfGrowth)
{
    expectCheckpointsInProportionToGrowth(path(), *writer, 0us, 2'000);
}

TEST_F(SqliteCheckpointerTest, CommitsAMillisecondApartAreCheckpointedOncePerPagesOfGrowth)
{
    expectCheckpointsInProportionToGrowth(path(), *writer, 1ms, 1'000);
}

// Back to back, the thread's checkpoint never ends between two commits: the writer copies the
// residue between two commits once the WAL passed its hard bound, and the WAL starts over, again
// and again; its file never holds more than the bound and the commits that came while the
// thread's last checkpoint ran.
TEST_F(SqliteCheckpointerTest, PastTheHardBoundTheWriterCopiesTheResidueAndTheWalStartsOver)
{
    constexpr int kPages = 50;
    constexpr int kCommits = 2'000;
    SqliteCheckpointer checkpointer(path(), kPages, 1'000);
    checkpointer.attach(sqliteHandleOf(writer->database()));
    qint64 largestWal = 0;
    int restarts = 0;
    quint32 sequence = walSequence();
    for (int i = 0; i < kCommits; ++i) {
        ASSERT_TRUE(insertOne(kRowBytes));
        checkpointer.checkpointResidueIfDue(true);
        largestWal = std::max(largestWal, size(QStringLiteral("-wal")));
        if (const quint32 now = walSequence(); now != sequence) {
            ++restarts;
            sequence = now;
        }
    }
    checkpointer.stop();
    EXPECT_LE(largestWal, acceptedWalBytes(checkpointer, kPages))
        << largestWal / kFrameBytes << " frames, " << checkpointer.writerRefusals() << " refusals";
    EXPECT_GE(checkpointer.writerCheckpoints(), 1);
    // The WAL started over (its header says so) at least once per accepted size's worth of
    // frames, and so fell below `pages` frames again each time.
    const int frames = framesWrittenBy(path() + QStringLiteral("-count.db"), kCommits);
    EXPECT_GE(restarts, frames / int(acceptedWalBytes(checkpointer, kPages) / kFrameBytes) - 1) << frames << " frames";
    EXPECT_EQ(writer->count(QStringLiteral("t")), kCommits);
    EXPECT_EQ(writer->scalar(QStringLiteral("PRAGMA integrity_check")), QStringLiteral("ok"));
}

TEST_F(SqliteCheckpointerTest, WhileWritesWaitTheResidueWaitsUntilTheBoundIsPassedByAnotherPages)
{
    constexpr int kPages = 50;
    SqliteCheckpointer checkpointer(path(), kPages, 1'000);
    checkpointer.attach(sqliteHandleOf(writer->database()));
    qint64 largestWal = 0;
    for (int i = 0; i < 1'000; ++i) {
        ASSERT_TRUE(insertOne(kRowBytes));
        checkpointer.checkpointResidueIfDue(false);  // a saturated writer: its queue is never empty
        largestWal = std::max(largestWal, size(QStringLiteral("-wal")));
    }
    checkpointer.stop();
    EXPECT_GE(checkpointer.writerCheckpoints(), 1);
    EXPECT_GT(largestWal, 32 + checkpointer.hardBoundPages() * kFrameBytes) << "it did not wait";
    EXPECT_LE(largestWal, acceptedWalBytes(checkpointer, kPages))
        << largestWal / kFrameBytes << " frames, " << checkpointer.writerRefusals() << " refusals";
    EXPECT_EQ(writer->scalar(QStringLiteral("PRAGMA integrity_check")), QStringLiteral("ok"));
}

} // namespace
} // namespace sy::storage
