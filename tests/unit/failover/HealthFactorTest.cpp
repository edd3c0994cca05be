// HealthTracker's health factor (SPEC §3.5 default order, §4 "Health"): it shrinks with the smoothed
// error rate and with latency far above the channel's own normal for the same model, never below
// 1 %. A FakeClock steps across the 60 s factor window.
#include "HealthTrackerFixture.h"

#include <cmath>
#include <vector>

namespace sy::failover {
namespace {

using namespace test;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

// --- health factor -----------------------------------------------------------------------------

TEST_F(HealthTrackerTest, FactorShrinksWithTheSmoothedErrorRate)
{
    struct Row {
        int successes;
        int failures;
        double factor;  // (1 - failures / (total + 2))², at least 0.01
    };
    const std::vector<Row> rows = {
        {1, 0, 1.0},
        {20, 0, 1.0},
        {1, 1, 0.5625},                               // one failure in two is not yet a 50 % channel
        {9, 1, (11.0 / 12.0) * (11.0 / 12.0)},
        {0, 3, 0.16},
        {0, 200, 0.01},                               // clamped, never zero
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(testing::Message() << row.successes << " successes, " << row.failures << " failures");
        const QString channelId = QStringLiteral("ch-%1-%2").arg(row.successes).arg(row.failures);
        succeed(row.successes, 100ms, channelId);
        fail(row.failures, channelId);
        EXPECT_NEAR(health.healthFactor(channelId, kModel), row.factor, 1e-9);
    }
}

TEST_F(HealthTrackerTest, ErrorsLeaveTheFactorAfterSixtySeconds)
{
    fail(2);
    const double withErrors = 0.25;  // (1 - 2/4)²
    clock.advance(59'999ms);
    EXPECT_NEAR(health.healthFactor(kChannel, kModel), withErrors, 1e-9);
    clock.advance(1ms);  // exactly 60 s: still inside
    EXPECT_NEAR(health.healthFactor(kChannel, kModel), withErrors, 1e-9);
    clock.advance(1ms);
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
}

TEST_F(HealthTrackerTest, ErrorsOfAnyModelCountForTheChannel)
{
    health.recordFailure(kChannel, kOtherModel);
    health.recordFailure(kChannel, kOtherModel);
    EXPECT_LT(health.healthFactor(kChannel, kModel), 1.0);
}

// The channel's normal is set by one success at 100 ms; a minute later (outside the factor window)
// one success at `latency` is the recent sample.
class HealthTrackerLatencyTest : public HealthTrackerTest {
protected:
    double factorAfterQuietMinuteThen(milliseconds latency, const QString &channelId = kChannel)
    {
        succeed(1, 100ms, channelId);
        clock.advance(61s);
        succeed(1, latency, channelId);
        return health.healthFactor(channelId, kModel);
    }
};

TEST_F(HealthTrackerLatencyTest, LatencyBelowTwiceTheNormalCostsNothing)
{
    EXPECT_DOUBLE_EQ(factorAfterQuietMinuteThen(180ms), 1.0);
}

TEST_F(HealthTrackerLatencyTest, LatencyFarAboveTheNormalShrinksTheFactor)
{
    const double factor = factorAfterQuietMinuteThen(1'000ms);
    EXPECT_LT(factor, 0.5);
    EXPECT_GE(factor, 0.01);
}

TEST_F(HealthTrackerLatencyTest, SlowerMeansSmallerFactor)
{
    const double slow = factorAfterQuietMinuteThen(400ms, QStringLiteral("slow"));
    const double slower = factorAfterQuietMinuteThen(1'000ms, QStringLiteral("slower"));
    const double slowest = factorAfterQuietMinuteThen(5'000ms, QStringLiteral("slowest"));
    EXPECT_LT(slow, 1.0);
    EXPECT_LT(slower, slow);
    EXPECT_LT(slowest, slower);
    EXPECT_GE(slowest, 0.01);
}

TEST_F(HealthTrackerLatencyTest, LatencyIsJudgedAgainstTheSameModelsNormal)
{
    succeed(1, 100ms, kChannel, kModel);
    succeed(1, 2'000ms, kChannel, kOtherModel);  // another model's normal is simply slower
    clock.advance(61s);
    succeed(1, 2'000ms, kChannel, kOtherModel);
    succeed(1, 100ms, kChannel, kModel);
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kOtherModel), 1.0);
}

TEST_F(HealthTrackerLatencyTest, SlowModelDoesNotShrinkTheFactorOfAnother)
{
    succeed(1, 100ms, kChannel, kModel);
    succeed(1, 100ms, kChannel, kOtherModel);
    clock.advance(61s);
    succeed(1, 5'000ms, kChannel, kOtherModel);
    EXPECT_LT(health.healthFactor(kChannel, kOtherModel), 0.5);
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
}

// Busy channel: 20 requests at its normal 100 ms, then the last 10 take 100 times as long. A slowdown
// of that size is "latency far above its own normal" and must cost more than half the weight.
TEST_F(HealthTrackerLatencyTest, SustainedHundredfoldSlowdownOnABusyChannelHalvesTheFactor)
{
    for (int i = 0; i < 20; ++i) {
        succeed(1, 100ms);
        clock.advance(1s);
    }
    for (int i = 0; i < 10; ++i) {
        succeed(1, 10'000ms);
        clock.advance(1s);
    }
    EXPECT_LT(health.healthFactor(kChannel, kModel), 0.5);
}

TEST_F(HealthTrackerLatencyTest, FactorStaysAtLeastOnePercentWithErrorsAndSlowness)
{
    succeed(1, 100ms);
    clock.advance(61s);
    succeed(1, 60'000ms);
    fail(50);
    const double factor = health.healthFactor(kChannel, kModel);
    EXPECT_DOUBLE_EQ(factor, 0.01);
}

// A fast local upstream: its normal is 300 µs, measured on the same fake clock that then sees it
// take 30 ms. A hundredfold slowdown must cost weight even though the normal is below 1 ms.
TEST_F(HealthTrackerLatencyTest, SubMillisecondNormalThatTurnsSlowIsPenalised)
{
    const auto attempt = [&](std::chrono::microseconds takes) {
        const auto start = clock.now();
        clock.advance(takes);
        health.recordSuccess(kChannel, kModel, std::chrono::duration_cast<std::chrono::microseconds>(clock.now() - start));
    };
    for (int i = 0; i < 20; ++i) {
        attempt(300us);
        clock.advance(1s);
    }
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
    clock.advance(61s);
    for (int i = 0; i < 10; ++i) {
        attempt(30ms);
        clock.advance(1s);
    }
    EXPECT_LT(health.healthFactor(kChannel, kModel), 0.5);
}

TEST_F(HealthTrackerLatencyTest, SubMillisecondJitterIsNotASlowdown)
{
    for (int i = 0; i < 20; ++i)
        health.recordSuccess(kChannel, kModel, 300us);
    health.recordSuccess(kChannel, kModel, 450us);
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
}

// An answer faster than the clock can tell sets a real normal of 0, not "no normal yet".
TEST_F(HealthTrackerLatencyTest, AZeroNormalIsKeptAndASlowdownFromItIsPenalised)
{
    succeed(1, 0ms);
    clock.advance(61s);
    succeed(1, 30ms);
    EXPECT_LT(health.healthFactor(kChannel, kModel), 0.5);
}

} // namespace
} // namespace sy::failover
