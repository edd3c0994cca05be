// MetricsWindow counts, in-flight accounting, window expiry on both sides of the boundary, bucket
// rotation and key lifetime, driven by a FakeClock that starts on a bucket boundary.
#include "metrics/MetricsWindow.h"

#include "MetricsTestSupport.h"
#include "support/FakeClock.h"

#include <gtest/gtest.h>

namespace sy::metrics {
namespace {

using namespace std::chrono_literals;
using test::failureMs;
using test::successMs;

const ChannelModel kKey{QStringLiteral("openai-main"), QStringLiteral("gpt-4o")};

class MetricsWindowTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    MetricsWindow metrics{clock};  // 5 min window, 10 s buckets
};

TEST_F(MetricsWindowTest, UnknownKeyHasZeroCountsAndNoPercentiles)
{
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 0u);
    EXPECT_EQ(snap.errors, 0u);
    EXPECT_EQ(snap.inFlight, 0);
    EXPECT_EQ(snap.errorRate, 0.0);
    EXPECT_FALSE(snap.ttftMs);
    EXPECT_FALSE(snap.latencyMs);
    EXPECT_FALSE(snap.tokensPerSecond);
    EXPECT_TRUE(metrics.keys().empty());
}

TEST_F(MetricsWindowTest, KeyWithOnlyAnAttemptInFlightHasNoPercentiles)
{
    metrics.recordStart(kKey);
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.inFlight, 1);
    EXPECT_EQ(snap.requests, 0u);
    EXPECT_EQ(snap.errorRate, 0.0);
    EXPECT_FALSE(snap.latencyMs);
    ASSERT_EQ(metrics.keys().size(), 1u);
    EXPECT_EQ(metrics.keys().front(), kKey);
}

TEST_F(MetricsWindowTest, ErrorRateIsErrorsOverFinishedAttempts)
{
    for (int i = 0; i < 3; ++i)
        metrics.recordFinish(kKey, successMs(100));
    metrics.recordFinish(kKey, failureMs(5));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 4u);
    EXPECT_EQ(snap.errors, 1u);
    EXPECT_DOUBLE_EQ(snap.errorRate, 0.25);
}

TEST_F(MetricsWindowTest, FailedAttemptsCountAsErrorsButStayOutOfLatencyPercentiles)
{
    metrics.recordFinish(kKey, successMs(100, 40, 50.0));
    metrics.recordFinish(kKey, failureMs(5));
    metrics.recordFinish(kKey, failureMs(1));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    ASSERT_TRUE(snap.latencyMs);
    EXPECT_EQ(snap.latencyMs->p50, 100.0);  // the fast failures would have pulled this to 5
    EXPECT_EQ(snap.ttftMs->p50, 40.0);
    EXPECT_EQ(snap.tokensPerSecond->p50, 50.0);
}

TEST_F(MetricsWindowTest, OnlyFailuresGiveFullErrorRateAndNoPercentiles)
{
    metrics.recordFinish(kKey, failureMs(30));
    metrics.recordFinish(kKey, failureMs(30));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 2u);
    EXPECT_DOUBLE_EQ(snap.errorRate, 1.0);
    EXPECT_FALSE(snap.latencyMs);
    EXPECT_FALSE(snap.ttftMs);
}

TEST_F(MetricsWindowTest, InFlightFollowsStartsFinishesAndAbandons)
{
    metrics.recordStart(kKey);
    metrics.recordStart(kKey);
    metrics.recordStart(kKey);
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 3);
    metrics.recordFinish(kKey, successMs(10));
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 2);
    metrics.recordAbandoned(kKey);
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 1);
    // Abandoned attempts are not requests.
    EXPECT_EQ(metrics.snapshot(kKey).requests, 1u);
}

TEST_F(MetricsWindowTest, InFlightNeverGoesNegative)
{
    metrics.recordStart(kKey);
    metrics.recordAbandoned(kKey);
    metrics.recordAbandoned(kKey);
    metrics.recordFinish(kKey, successMs(10));  // finish with no start: counted, inFlight stays 0
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.inFlight, 0);
    EXPECT_EQ(snap.requests, 1u);
    metrics.recordStart(kKey);
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 1);
}

TEST_F(MetricsWindowTest, AbandonOfUnknownKeyCreatesNoKey)
{
    metrics.recordAbandoned(kKey);
    EXPECT_TRUE(metrics.keys().empty());
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 0);
}

TEST_F(MetricsWindowTest, SampleAtBucketStartCountsUntilOneWindowLater)
{
    metrics.recordFinish(kKey, successMs(100));
    clock.advance(5min - 1ms);
    EXPECT_EQ(metrics.snapshot(kKey).requests, 1u);
    EXPECT_TRUE(metrics.snapshot(kKey).latencyMs);
    clock.advance(1ms);
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 0u);
    EXPECT_EQ(snap.errorRate, 0.0);
    EXPECT_FALSE(snap.latencyMs);
}

TEST_F(MetricsWindowTest, SampleLateInItsBucketExpiresWithItsBucket)
{
    clock.advance(10s - 1ms);  // last instant of the first bucket
    metrics.recordFinish(kKey, failureMs(100));
    clock.advance(5min - 10s);  // window - bucket after the sample: still counted
    EXPECT_EQ(metrics.snapshot(kKey).errors, 1u);
    clock.advance(1ms);  // first bucket start + window: gone, 290.001 s after it was recorded
    EXPECT_EQ(metrics.snapshot(kKey).errors, 0u);
}

TEST_F(MetricsWindowTest, SampleInNextBucketOutlivesTheFirstBucketByOneBucket)
{
    clock.advance(10s);
    metrics.recordFinish(kKey, successMs(100));
    clock.advance(5min - 1ms);
    EXPECT_EQ(metrics.snapshot(kKey).requests, 1u);
    clock.advance(1ms);
    EXPECT_EQ(metrics.snapshot(kKey).requests, 0u);
}

TEST_F(MetricsWindowTest, BucketsDropOutOneAtATimeAndPercentilesFollowAtOnce)
{
    metrics.recordFinish(kKey, successMs(100));
    metrics.recordFinish(kKey, successMs(100));
    clock.advance(10s);
    metrics.recordFinish(kKey, successMs(300));
    clock.advance(10s);
    metrics.recordFinish(kKey, successMs(500));

    clock.advance(5min - 20s - 500ms);  // 299.5 s: all three buckets live
    MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 4u);
    EXPECT_EQ(snap.latencyMs->p50, 100.0);

    clock.advance(500ms);  // 300 s: the first bucket rotates out, 0.5 s after the last compute
    snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 2u);
    EXPECT_EQ(snap.latencyMs->p50, 300.0);  // recomputed on rotation, not a cached 100
    EXPECT_EQ(snap.latencyMs->p99, 500.0);

    clock.advance(10s);
    snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 1u);
    EXPECT_EQ(snap.latencyMs->p50, 500.0);

    clock.advance(10s);
    snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 0u);
    EXPECT_FALSE(snap.latencyMs);
}

TEST_F(MetricsWindowTest, RingSlotsAreReusedAfterAFullLapWithoutOldCounts)
{
    metrics.recordFinish(kKey, failureMs(10));
    clock.advance(5min);  // same ring slot as the first bucket, one lap later
    metrics.recordFinish(kKey, successMs(10));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 1u);
    EXPECT_EQ(snap.errors, 0u);
}

TEST_F(MetricsWindowTest, IdleKeyIsDroppedAfterAWholeWindow)
{
    metrics.recordFinish(kKey, successMs(10));
    clock.advance(5min - 1ms);
    EXPECT_EQ(metrics.keys().size(), 1u);
    clock.advance(1ms);
    EXPECT_TRUE(metrics.keys().empty());
}

TEST_F(MetricsWindowTest, KeyWithAnAttemptInFlightIsNeverDropped)
{
    metrics.recordStart(kKey);
    clock.advance(1h);
    ASSERT_EQ(metrics.keys().size(), 1u);
    EXPECT_EQ(metrics.snapshot(kKey).inFlight, 1);
    metrics.recordFinish(kKey, successMs(10));
    EXPECT_EQ(metrics.snapshot(kKey).requests, 1u);
}

TEST_F(MetricsWindowTest, IdleKeysArePrunedByLaterRecordsToo)
{
    metrics.recordFinish(kKey, successMs(10));
    clock.advance(5min);
    const ChannelModel other{QStringLiteral("anthropic"), QStringLiteral("claude")};
    metrics.recordFinish(other, successMs(10));
    EXPECT_EQ(metrics.keptSampleCount(kKey), 0u);  // its memory is gone, not just hidden
    EXPECT_EQ(metrics.keptSampleCount(other), 1u);
}

TEST_F(MetricsWindowTest, ManyKeysAreIndependent)
{
    constexpr int kChannels = 20;
    for (int c = 0; c < kChannels; ++c) {
        for (const char *model : {"small", "large"}) {
            const ChannelModel key{QStringLiteral("ch%1").arg(c, 2, 10, QLatin1Char('0')), QString::fromLatin1(model)};
            metrics.recordStart(key);
            metrics.recordFinish(key, successMs(100 + c));
            if (c % 2 == 1 && QLatin1String(model) == QLatin1String("large"))
                metrics.recordFinish(key, failureMs(1));
        }
    }
    const std::vector<ChannelModel> keys = metrics.keys();
    ASSERT_EQ(keys.size(), 2u * kChannels);
    EXPECT_EQ(keys.front(), (ChannelModel{QStringLiteral("ch00"), QStringLiteral("large")}));  // sorted
    for (int c = 0; c < kChannels; ++c) {
        const QString channel = QStringLiteral("ch%1").arg(c, 2, 10, QLatin1Char('0'));
        const MetricsSnapshot small = metrics.snapshot({channel, QStringLiteral("small")});
        const MetricsSnapshot large = metrics.snapshot({channel, QStringLiteral("large")});
        EXPECT_EQ(small.requests, 1u);
        EXPECT_EQ(small.errors, 0u);
        EXPECT_EQ(small.latencyMs->p99, 100.0 + c);
        EXPECT_EQ(large.requests, c % 2 == 1 ? 2u : 1u);
        EXPECT_EQ(large.errors, c % 2 == 1 ? 1u : 0u);
        EXPECT_EQ(large.latencyMs->p50, 100.0 + c);
        EXPECT_EQ(small.inFlight, 0);
    }
}

TEST(MetricsWindowShape, WindowIsRoundedUpToWholeBuckets)
{
    sy::test::FakeClock clock;
    const MetricsWindow metrics(clock, std::chrono::seconds(25), std::chrono::seconds(10));
    EXPECT_EQ(metrics.window(), std::chrono::seconds(30));
    EXPECT_EQ(metrics.bucket(), std::chrono::seconds(10));
}

TEST(MetricsWindowShape, CustomWindowExpiresOnItsOwnBoundary)
{
    sy::test::FakeClock clock;
    MetricsWindow metrics(clock, std::chrono::seconds(60), std::chrono::seconds(5));
    metrics.recordFinish(kKey, successMs(10));
    clock.advance(60s - 1ms);
    EXPECT_EQ(metrics.snapshot(kKey).requests, 1u);
    clock.advance(1ms);
    EXPECT_EQ(metrics.snapshot(kKey).requests, 0u);
}

} // namespace
} // namespace sy::metrics
