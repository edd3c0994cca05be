// SqliteCheckpointer: the writer's commits no longer checkpoint by themselves (SQLite's automatic
// checkpoint is off once it is attached); past its bound the WAL is checkpointed on the
// checkpointer's own thread and connection, and the WAL then starts over, so it stays bounded.
#include "StorageTestSupport.h"

#include "storage/SqliteCheckpointer.h"
#include "storage/SqliteWrites.h"
#include "support/Waits.h"

#include <QFileInfo>
#include <QTemporaryDir>

namespace sy::storage {
namespace {

using namespace std::chrono_literals;
using test::RawDatabase;

constexpr int kBlobBytes = 40'000;  // about ten 4 KiB pages per transaction

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
    bool insertOne() { return writer->exec(QStringLiteral("INSERT INTO t VALUES(randomblob(%1))").arg(kBlobBytes)); }

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
        // Each commit leaves ≥ 8 pages in the WAL: one checkpoint each, on the other thread.
        ASSERT_TRUE(sy::test::waitUntil([&] { return checkpointer.checkpoints() > i; }, 10s)) << "insert " << i;
    }
    EXPECT_GT(size(QString()), qint64(kInserts) * kBlobBytes) << "the rows were copied into the database file";
    EXPECT_LT(size(QStringLiteral("-wal")), qint64(kInserts) * kBlobBytes / 4) << "the WAL did not start over";
    EXPECT_EQ(writer->count(QStringLiteral("t")), kInserts);
    checkpointer.stop();
    checkpointer.stop();  // idempotent
}

} // namespace
} // namespace sy::storage
