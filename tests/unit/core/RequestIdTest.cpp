#include "core/RequestId.h"

#include <gtest/gtest.h>

#include <QSet>

#include <chrono>
#include <thread>

namespace sy::test {
namespace {

quint64 nowMs()
{
    return quint64(std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count());
}

// The time first, then as many random bits as the whole id once had: ids of one moment differ.
TEST(RequestIdTest, IsReqThenTwelveHexDigitsOfTheTimeInMillisecondsThenTwentyRandomOnes)
{
    const quint64 before = nowMs();
    QSet<QByteArray> seen;
    for (int i = 0; i < 20'000; ++i)
        seen.insert(newRequestId());
    const quint64 after = nowMs();
    EXPECT_EQ(seen.size(), 20'000);
    for (const QByteArray &id : seen) {
        ASSERT_EQ(id.size(), 36) << id.constData();
        ASSERT_TRUE(id.startsWith("req_")) << id.constData();
        for (const char c : id.mid(4))
            ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << id.constData();
        bool ok = false;
        const quint64 ms = id.mid(4, 12).toULongLong(&ok, 16);
        ASSERT_TRUE(ok) << id.constData();
        ASSERT_GE(ms, before) << id.constData();
        ASSERT_LE(ms, after) << id.constData();
    }
}

// What keeps the request log's id index cheap to update: ids of later requests sort after
// earlier ones (byte-wise, as SQLite and PostgreSQL's "C" collation compare them).
TEST(RequestIdTest, IdsOfLaterMillisecondsSortAfterEarlierOnes)
{
    QByteArray previous = newRequestId();
    for (int i = 0; i < 20; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        const QByteArray next = newRequestId();
        EXPECT_LT(previous, next);
        previous = next;
    }
}

} // namespace
} // namespace sy::test
