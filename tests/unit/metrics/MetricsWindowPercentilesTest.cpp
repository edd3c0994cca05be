// MetricsWindow percentiles: nearest rank on known data, the per-bucket sample cap (memory bound
// and still-sensible percentiles), bucket weights, and the once-per-second cache.
#include "metrics/MetricsWindow.h"

#include "MetricsTestSupport.h"
#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace sy::metrics {
namespace {

using namespace std::chrono_literals;
using test::failureMs;
using test::successMs;

const ChannelModel kKey{QStringLiteral("openai-main"), QStringLiteral("gpt-4o")};

class MetricsWindowPercentilesTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    MetricsWindow metrics{clock};  // 5 min window, 10 s buckets
};

std::vector<int> shuffledOneTo(int last)
{
    std::vector<int> values(static_cast<std::size_t>(last));
    std::iota(values.begin(), values.end(), 1);
    std::shuffle(values.begin(), values.end(), std::mt19937(42));
    return values;
}

TEST_F(MetricsWindowPercentilesTest, LatencyPercentilesOfOneToHundredAreNearestRanks)
{
    for (int latencyMs : shuffledOneTo(100))
        metrics.recordFinish(kKey, successMs(latencyMs));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    ASSERT_TRUE(snap.latencyMs);
    EXPECT_EQ(snap.latencyMs->p50, 50.0);
    EXPECT_EQ(snap.latencyMs->p75, 75.0);
    EXPECT_EQ(snap.latencyMs->p90, 90.0);
    EXPECT_EQ(snap.latencyMs->p99, 99.0);
}

// percentiles() is snapshot() without the counts: the same percentiles, every count left 0.
TEST_F(MetricsWindowPercentilesTest, PercentilesAloneMatchTheSnapshotAndCarryNoCounts)
{
    for (int latencyMs : shuffledOneTo(100))
        metrics.recordFinish(kKey, successMs(latencyMs));
    metrics.recordFinish(kKey, failureMs(3));
    metrics.recordStart(kKey);
    const MetricsSnapshot full = metrics.snapshot(kKey);
    const MetricsSnapshot alone = metrics.percentiles(kKey);
    ASSERT_TRUE(full.latencyMs && alone.latencyMs);
    EXPECT_EQ(alone.latencyMs->p50, full.latencyMs->p50);
    EXPECT_EQ(alone.latencyMs->p99, full.latencyMs->p99);
    EXPECT_EQ(alone.ttftMs.has_value(), full.ttftMs.has_value());
    EXPECT_EQ(alone.tokensPerSecond.has_value(), full.tokensPerSecond.has_value());
    EXPECT_EQ(full.requests, 101u);
    EXPECT_EQ(full.inFlight, 1);
    EXPECT_EQ(alone.requests, 0u);
    EXPECT_EQ(alone.errors, 0u);
    EXPECT_EQ(alone.inFlight, 0);
    EXPECT_EQ(alone.errorRate, 0.0);
}

// A fast local upstream: attempts timed on the fake clock at 200..500 µs keep their sub-millisecond
// values (reported in fractional milliseconds), never rounded to 0.
TEST_F(MetricsWindowPercentilesTest, SubMillisecondLatenciesKeepMicrosecondPrecision)
{
    for (int i = 1; i <= 4; ++i) {
        const auto start = clock.now();
        clock.advance(std::chrono::microseconds(100 + 100 * i));
        AttemptSample sample;
        sample.success = true;
        sample.totalLatency = std::chrono::duration_cast<std::chrono::microseconds>(clock.now() - start);
        sample.timeToFirstToken = sample.totalLatency / 2;
        metrics.recordFinish(kKey, sample);
    }
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    ASSERT_TRUE(snap.latencyMs);
    EXPECT_DOUBLE_EQ(snap.latencyMs->p50, 0.3);
    EXPECT_DOUBLE_EQ(snap.latencyMs->p99, 0.5);
    ASSERT_TRUE(snap.ttftMs);
    EXPECT_DOUBLE_EQ(snap.ttftMs->p50, 0.15);
    EXPECT_DOUBLE_EQ(snap.ttftMs->p99, 0.25);
}

TEST_F(MetricsWindowPercentilesTest, TenSamplesRoundRanksUpWithoutInterpolating)
{
    // ttft 10..100 step 10, throughput 1..10: ranks ceil(5)=5, ceil(7.5)=8, ceil(9)=9, ceil(9.9)=10.
    for (int i : shuffledOneTo(10))
        metrics.recordFinish(kKey, successMs(1000, 10 * i, static_cast<double>(i)));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    ASSERT_TRUE(snap.ttftMs);
    EXPECT_EQ(snap.ttftMs->p50, 50.0);
    EXPECT_EQ(snap.ttftMs->p75, 80.0);
    EXPECT_EQ(snap.ttftMs->p90, 90.0);
    EXPECT_EQ(snap.ttftMs->p99, 100.0);
    ASSERT_TRUE(snap.tokensPerSecond);
    EXPECT_EQ(snap.tokensPerSecond->p50, 5.0);
    EXPECT_EQ(snap.tokensPerSecond->p75, 8.0);
    EXPECT_EQ(snap.tokensPerSecond->p99, 10.0);
    EXPECT_EQ(snap.latencyMs->p50, 1000.0);
}

TEST_F(MetricsWindowPercentilesTest, PercentilesSpanEveryLiveBucket)
{
    for (int i = 1; i <= 4; ++i) {
        metrics.recordFinish(kKey, successMs(100 * i));
        clock.advance(10s);
    }
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.latencyMs->p50, 200.0);
    EXPECT_EQ(snap.latencyMs->p75, 300.0);
    EXPECT_EQ(snap.latencyMs->p99, 400.0);
}

TEST_F(MetricsWindowPercentilesTest, MeasuresMissingFromSuccessesStayAbsent)
{
    metrics.recordFinish(kKey, successMs(250));  // no TTFT, no throughput (e.g. embeddings)
    metrics.recordFinish(kKey, successMs(250, std::nullopt, std::numeric_limits<double>::infinity()));
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_TRUE(snap.latencyMs);
    EXPECT_FALSE(snap.ttftMs);
    EXPECT_FALSE(snap.tokensPerSecond);
}

TEST_F(MetricsWindowPercentilesTest, BusyBucketKeepsAtMostTheCapAndSensiblePercentiles)
{
    constexpr int kSamples = 20000;
    for (int latencyMs : shuffledOneTo(kSamples))
        metrics.recordFinish(kKey, successMs(latencyMs));
    EXPECT_EQ(metrics.keptSampleCount(kKey), static_cast<std::size_t>(MetricsWindow::kMaxSamplesPerBucket));

    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, static_cast<quint64>(kSamples));  // counts stay exact
    ASSERT_TRUE(snap.latencyMs);
    // A uniform 512-sample subset of 1..20000: the p50 estimate has a spread of about 440.
    EXPECT_NEAR(snap.latencyMs->p50, 10000.0, 1500.0);
    EXPECT_NEAR(snap.latencyMs->p90, 18000.0, 1000.0);
    EXPECT_GE(snap.latencyMs->p99, 19000.0);
    EXPECT_LE(snap.latencyMs->p99, 20000.0);
}

TEST_F(MetricsWindowPercentilesTest, SortedInputIsSampledUniformlyToo)
{
    // Arrival order must not bias the reservoir (a naive "keep the first 512" would report ~256).
    for (int latencyMs = 1; latencyMs <= 20000; ++latencyMs)
        metrics.recordFinish(kKey, successMs(latencyMs));
    EXPECT_NEAR(metrics.snapshot(kKey).latencyMs->p50, 10000.0, 1500.0);
}

TEST_F(MetricsWindowPercentilesTest, MemoryStaysBoundedAcrossAWholeBusyWindow)
{
    // 40 busy buckets (more than the 30 of the window), every measure filled.
    for (int bucket = 0; bucket < 40; ++bucket) {
        for (int i = 0; i < 1000; ++i)
            metrics.recordFinish(kKey, successMs(100 + i % 50, 20 + i % 10, 30.0 + i % 7));
        clock.advance(10s);
    }
    const std::size_t bound = 30u * 3u * MetricsWindow::kMaxSamplesPerBucket;
    EXPECT_LE(metrics.keptSampleCount(kKey), bound);
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 29u * 1000u);  // the bucket `now` falls in is still empty
    EXPECT_GE(snap.latencyMs->p50, 100.0);
    EXPECT_LE(snap.latencyMs->p99, 149.0);
}

TEST_F(MetricsWindowPercentilesTest, CappedBucketKeepsItsTrueWeightAgainstQuietBuckets)
{
    for (int i = 0; i < 10000; ++i)
        metrics.recordFinish(kKey, successMs(100));
    clock.advance(10s);
    for (int i = 0; i < 200; ++i)
        metrics.recordFinish(kKey, successMs(1000));
    // 200 of 10200 samples (2 %) are slow. Unweighted, the 512 kept fast values against 200 slow
    // ones would put p75 and p90 at 1000.
    const MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.latencyMs->p50, 100.0);
    EXPECT_EQ(snap.latencyMs->p75, 100.0);
    EXPECT_EQ(snap.latencyMs->p90, 100.0);
    EXPECT_EQ(snap.latencyMs->p99, 1000.0);
}

TEST_F(MetricsWindowPercentilesTest, PercentilesAreCachedForOneSecondWhileCountsStayCurrent)
{
    clock.advance(1s);  // keep every step below inside one bucket
    metrics.recordFinish(kKey, successMs(100));
    EXPECT_EQ(metrics.snapshot(kKey).latencyMs->p99, 100.0);

    metrics.recordFinish(kKey, successMs(5000));
    metrics.recordFinish(kKey, failureMs(5));
    clock.advance(999ms);
    MetricsSnapshot snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.requests, 3u);
    EXPECT_EQ(snap.errors, 1u);
    EXPECT_EQ(snap.latencyMs->p99, 100.0);  // cached

    clock.advance(1ms);
    snap = metrics.snapshot(kKey);
    EXPECT_EQ(snap.latencyMs->p99, 5000.0);  // one second after the last computation
    EXPECT_EQ(snap.latencyMs->p50, 100.0);
}

TEST_F(MetricsWindowPercentilesTest, FirstSnapshotOfAKeyComputesAtOnce)
{
    metrics.recordStart(kKey);
    EXPECT_FALSE(metrics.snapshot(kKey).latencyMs);
    clock.advance(1s);
    metrics.recordFinish(kKey, successMs(42));
    EXPECT_EQ(metrics.snapshot(kKey).latencyMs->p50, 42.0);
}

TEST_F(MetricsWindowPercentilesTest, EachKeyHasItsOwnCache)
{
    const ChannelModel other{QStringLiteral("openai-main"), QStringLiteral("gpt-4o-mini")};
    metrics.recordFinish(kKey, successMs(100));
    EXPECT_EQ(metrics.snapshot(kKey).latencyMs->p50, 100.0);
    metrics.recordFinish(other, successMs(700));
    EXPECT_EQ(metrics.snapshot(other).latencyMs->p50, 700.0);  // not kKey's cache, not stale
    EXPECT_EQ(metrics.snapshot(kKey).latencyMs->p50, 100.0);
}

} // namespace
} // namespace sy::metrics
