// MetricsWindow numbers (idOf) and readings at one instant (read): a number sees its key's samples
// whenever they are recorded, stays the same for the window's lifetime, survives an idle drop, and
// a reading answers what snapshot() answers at that instant.
#include "metrics/MetricsWindow.h"

#include "MetricsTestSupport.h"
#include "support/FakeClock.h"

#include <gtest/gtest.h>

namespace sy::metrics {
namespace {

using namespace std::chrono_literals;
using test::successMs;

const ChannelModel kKey{QStringLiteral("openai-main"), QStringLiteral("gpt-4o")};
const ChannelModel kOther{QStringLiteral("anthropic"), QStringLiteral("claude")};

class MetricsWindowNumbersTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    MetricsWindow metrics{clock};  // 5 min window, 10 s buckets
};

TEST_F(MetricsWindowNumbersTest, AKeyKeepsItsNumberAndKeysKeepDistinctNumbers)
{
    const SeriesId id = metrics.idOf(kKey);
    EXPECT_GE(id, 0);
    EXPECT_EQ(metrics.idOf(kKey), id);
    EXPECT_NE(metrics.idOf(kOther), id);
    metrics.recordFinish(kKey, successMs(10));
    EXPECT_EQ(metrics.idOf(kKey), id);
}

TEST_F(MetricsWindowNumbersTest, ANumberGivenBeforeAnySampleSeesLaterSamples)
{
    const SeriesId id = metrics.idOf(kKey);
    EXPECT_FALSE(metrics.read().percentiles(id, Measure::TokensPerSecond).has_value());
    EXPECT_TRUE(metrics.keys().empty());   // a number alone is not a key seen in the window

    metrics.recordFinish(kKey, successMs(500, 120, 42.0));
    const auto throughput = metrics.read().percentiles(id, Measure::TokensPerSecond);
    ASSERT_TRUE(throughput.has_value());
    EXPECT_DOUBLE_EQ(throughput->p50, 42.0);
    const auto ttft = metrics.read().percentiles(id, Measure::TtftMs);
    ASSERT_TRUE(ttft.has_value());
    EXPECT_DOUBLE_EQ(ttft->p50, 120.0);
    const auto latency = metrics.read().percentiles(id, Measure::LatencyMs);
    ASSERT_TRUE(latency.has_value());
    EXPECT_DOUBLE_EQ(latency->p99, 500.0);
}

TEST_F(MetricsWindowNumbersTest, AReadingAnswersAsTheSnapshotDoes)
{
    for (int i = 1; i <= 40; ++i)
        metrics.recordFinish(kKey, successMs(100 + i, 10 + i, double(i)));
    metrics.recordFinish(kOther, successMs(900, 300, 7.0));
    const MetricsSnapshot snapshot = metrics.snapshot(kKey);
    const MetricsWindow::Reading reading = metrics.read();
    const auto throughput = reading.percentiles(metrics.idOf(kKey), Measure::TokensPerSecond);
    const auto ttft = reading.percentiles(metrics.idOf(kKey), Measure::TtftMs);
    ASSERT_TRUE(throughput && ttft && snapshot.tokensPerSecond && snapshot.ttftMs);
    EXPECT_DOUBLE_EQ(throughput->p50, snapshot.tokensPerSecond->p50);
    EXPECT_DOUBLE_EQ(throughput->p90, snapshot.tokensPerSecond->p90);
    EXPECT_DOUBLE_EQ(ttft->p75, snapshot.ttftMs->p75);
    EXPECT_DOUBLE_EQ(ttft->p99, snapshot.ttftMs->p99);
}

TEST_F(MetricsWindowNumbersTest, ANumberOutlivesAnIdleDropAndSeesTheKeysNextSamples)
{
    const SeriesId id = metrics.idOf(kKey);
    metrics.recordFinish(kKey, successMs(100, 50, 10.0));
    clock.advance(5min);
    EXPECT_TRUE(metrics.keys().empty());   // dropped: its samples are gone
    EXPECT_EQ(metrics.keptSampleCount(kKey), 0u);
    EXPECT_FALSE(metrics.read().percentiles(id, Measure::TokensPerSecond).has_value());

    metrics.recordFinish(kKey, successMs(100, 50, 99.0));
    EXPECT_EQ(metrics.idOf(kKey), id);
    const auto throughput = metrics.read().percentiles(id, Measure::TokensPerSecond);
    ASSERT_TRUE(throughput.has_value());
    EXPECT_DOUBLE_EQ(throughput->p50, 99.0);
    EXPECT_EQ(metrics.keys().size(), 1u);
}

TEST_F(MetricsWindowNumbersTest, ANumberTheWindowNeverGaveHasNoMetrics)
{
    metrics.recordFinish(kKey, successMs(100, 50, 10.0));
    EXPECT_FALSE(metrics.read().percentiles(-1, Measure::TtftMs).has_value());
    EXPECT_FALSE(metrics.read().percentiles(12345, Measure::TtftMs).has_value());
}

} // namespace
} // namespace sy::metrics
