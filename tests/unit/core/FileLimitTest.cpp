#include "core/FileLimit.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

namespace sy::test {
namespace {

TEST(FileLimitTest, StartRaisesTheSoftLimitToTheHardOne)
{
    rlimit lowered{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lowered), 0);
    const rlimit original = lowered;
    if (lowered.rlim_max != RLIM_INFINITY && lowered.rlim_max <= 256)
        GTEST_SKIP() << "hard limit too low to lower the soft one";
    lowered.rlim_cur = 256;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);

    const FileLimit limit = raiseOpenFileLimit();
    rlimit now{};
    ::getrlimit(RLIMIT_NOFILE, &now);
    ::setrlimit(RLIMIT_NOFILE, &original);
    EXPECT_EQ(limit.before, 256u);
    EXPECT_EQ(limit.soft, limit.hard);
    EXPECT_EQ(quint64(now.rlim_cur), limit.soft);
}

TEST(FileLimitTest, ConcurrencyAboveTheLimitIsReportedWithWhatToDo)
{
    const FileLimit limit{1024, 1024, 1024};
    const FileLimitReport report = describeFileLimit(limit, 10'000);
    EXPECT_TRUE(report.tooLow);
    EXPECT_TRUE(report.text.contains(QStringLiteral("10000"))) << report.text.toStdString();
    EXPECT_TRUE(report.text.contains(QStringLiteral("LimitNOFILE="))) << report.text.toStdString();
    EXPECT_EQ(concurrentRequestsWithin(limit), (1024u - kReservedFiles) / 2);
}

TEST(FileLimitTest, ConcurrencyWithinTheLimitOrUnboundedIsANote)
{
    const FileLimit limit{1024, 65536, 65536};
    EXPECT_FALSE(describeFileLimit(limit, 10'000).tooLow);
    EXPECT_FALSE(describeFileLimit(limit, 0).tooLow);
    EXPECT_TRUE(describeFileLimit(limit, 0).text.contains(QStringLiteral("raised from 1024 to 65536")));
}

} // namespace
} // namespace sy::test
