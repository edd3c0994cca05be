// BackgroundThread: the store's checkpoint thread runs under its own name ten nice steps below
// the thread that opened the store, so the gateway thread on the same core goes first; the SQLite
// writer, which charged answers wait for, and the calling threads keep their priority.
#include "storage/BackgroundThread.h"
#include "storage/SqliteCheckpointer.h"
#include "storage/SqliteStore.h"
#include "support/Waits.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <variant>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace sy::storage {
namespace {

using namespace std::chrono_literals;

#if defined(__linux__)

pid_t currentTid()
{
    return pid_t(::syscall(SYS_gettid));
}

int niceOf(pid_t tid)
{
    return getpriority(PRIO_PROCESS, id_t(tid));
}

// The id of this process's thread named `name` (as /proc shows it), if there is one.
std::optional<pid_t> threadNamed(const QString &name)
{
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly) && QString::fromUtf8(comm.readAll()).trimmed() == name)
            return pid_t(tid.toInt());
    }
    return std::nullopt;
}

TEST(BackgroundThreadTest, LowersTheCallingThreadsNiceByTenAndLeavesTheOthers)
{
    const int before = niceOf(currentTid());
    int after = 0;
    std::thread worker([&] {
        ASSERT_TRUE(lowerCurrentThreadPriority());
        after = niceOf(currentTid());
    });
    worker.join();
    EXPECT_EQ(after, std::min(before + 10, 19));
    EXPECT_EQ(niceOf(currentTid()), before) << "the calling thread changed too";
}

TEST(BackgroundThreadTest, TheCheckpointThreadRunsLowerUnderItsOwnName)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const int before = niceOf(currentTid());
    SqliteCheckpointer checkpointer(dir.filePath(QStringLiteral("c.db")), 1'000, 1'000);
    std::optional<pid_t> tid;
    ASSERT_TRUE(sy::test::waitUntil([&] { return (tid = threadNamed(QStringLiteral("switchyard-ckpt"))).has_value(); }, 10s));
    // Lowered right after it takes its name, on that thread.
    EXPECT_TRUE(sy::test::waitUntil([&] { return niceOf(*tid) == std::min(before + 10, 19); }, 10s));
    EXPECT_EQ(niceOf(currentTid()), before);
    checkpointer.stop();
}

TEST(BackgroundThreadTest, TheSqliteWriterKeepsItsPriority)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const int before = niceOf(currentTid());
    auto opened = SqliteStore::open(dir.filePath(QStringLiteral("s.db")));
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<SqliteStore>>(opened));
    // The writer is the store's QThread ("switchyard-storage", 15 bytes kept); its checkpoint
    // thread starts under the same name and then takes its own.
    ASSERT_TRUE(sy::test::waitUntil([] { return threadNamed(QStringLiteral("switchyard-ckpt")).has_value(); }, 10s));
    const std::optional<pid_t> writer = threadNamed(QStringLiteral("switchyard-stor"));
    ASSERT_TRUE(writer.has_value());
    EXPECT_EQ(niceOf(*writer), before);
    const std::optional<pid_t> checkpoints = threadNamed(QStringLiteral("switchyard-ckpt"));
    ASSERT_TRUE(checkpoints.has_value());
    EXPECT_TRUE(sy::test::waitUntil([&] { return niceOf(*checkpoints) == std::min(before + 10, 19); }, 10s));
}

#else

TEST(BackgroundThreadTest, DoesNothingOffLinux)
{
    EXPECT_FALSE(lowerCurrentThreadPriority());
}

#endif

} // namespace
} // namespace sy::storage
