// An idle store does not wake: the storage thread's flush timer runs only while writes wait, a
// retention change is pending or a retention pass is due.
#include "StorageTestSupport.h"

#include "support/Waits.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

TEST(SqliteStoreIdleTest, StorageThreadSleepsOnceItsWritesAreCommitted)
{
    QTemporaryDir dir;
    // Flush every 10 ms, retention at most hourly: a timer left running would wake the thread
    // about 30 times in the window below.
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")), SqliteStoreOptions{10ms, 500, 1h});
    ASSERT_TRUE(store);
    for (int i = 0; i < 3; ++i)
        store->appendRequest(request("r" + QByteArray::number(i), baseTime().addSecs(i)));
    ASSERT_TRUE(sy::test::waitUntil([&] { return store->stats().committedWrites >= 3; }, 5s));
    // Past the tick that found nothing more to do.
    QThread::msleep(50);

    const QByteArray thread = QByteArrayLiteral("switchyard-storage").left(15);
    const qint64 before = contextSwitchesOf(thread);
    ASSERT_GE(before, 0) << "no storage thread named " << thread.constData();
    QThread::msleep(300);
    const qint64 after = contextSwitchesOf(thread);
    EXPECT_LE(after - before, 2) << "the storage thread woke " << (after - before) << " times while idle";

    // And it wakes again for the next write.
    store->appendRequest(request("r9", baseTime().addSecs(9)));
    EXPECT_TRUE(sy::test::waitUntil([&] { return store->stats().committedWrites >= 4; }, 5s));
}

} // namespace
} // namespace sy::storage::test
