// HealthTracker (SPEC §3.5 default order, §4 "Health"): the 30 s "failed recently" rule, cooldowns
// that double from 5 s up to 300 s and end with a probe, the health factor from error rate and
// latency far above the channel's own normal, simulated down and the dashboard states. A FakeClock
// steps onto and across every time boundary.
#include "failover/HealthTracker.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <vector>

namespace sy::failover {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

const QString kChannel = QStringLiteral("openai-main");
const QString kOtherChannel = QStringLiteral("openai-backup");
const QString kModel = QStringLiteral("gpt-4o");
const QString kOtherModel = QStringLiteral("gpt-4o-mini");

class HealthTrackerTest : public ::testing::Test {
protected:
    void fail(int times, const QString &channelId = kChannel)
    {
        for (int i = 0; i < times; ++i)
            health.recordFailure(channelId, kModel);
    }
    void succeed(int times, milliseconds latency = 100ms, const QString &channelId = kChannel,
                 const QString &modelId = kModel)
    {
        for (int i = 0; i < times; ++i)
            health.recordSuccess(channelId, modelId, latency);
    }
    // Time left until the channel's cooldown ends (negative once it has ended).
    milliseconds cooldownLeft(const QString &channelId = kChannel) const
    {
        return std::chrono::duration_cast<milliseconds>(health.cooldownUntil(channelId) - clock.now());
    }

    sy::test::FakeClock clock;
    HealthTracker health{clock};  // default policy: 30 s window, 3 failures, 5 s .. 300 s
};

// --- unknown channels ------------------------------------------------------------------------

TEST_F(HealthTrackerTest, UnknownChannelIsHealthyWithFullFactor)
{
    EXPECT_FALSE(health.failedRecently(kChannel));
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
    EXPECT_EQ(health.state(kChannel), HealthState::Healthy);
}

TEST_F(HealthTrackerTest, StateNamesAreTheDashboardNames)
{
    EXPECT_STREQ(healthStateName(HealthState::Healthy), "healthy");
    EXPECT_STREQ(healthStateName(HealthState::Degraded), "degraded");
    EXPECT_STREQ(healthStateName(HealthState::CoolingDown), "cooling_down");
    EXPECT_STREQ(healthStateName(HealthState::SimulatedDown), "simulated_down");
}

// --- failed recently (30 s) ------------------------------------------------------------------

TEST_F(HealthTrackerTest, FailedRecentlyNeedsTwoFailuresAndThirtyPercentOfOutcomes)
{
    struct Row {
        int successes;
        int failures;
        bool failedRecently;
    };
    const std::vector<Row> rows = {
        {0, 1, false},    // one failure is not significant
        {0, 2, true},
        {4, 2, true},     // 33 %
        {5, 2, false},    // 28.6 %
        {7, 3, true},     // exactly 30 %
        {8, 3, false},    // 27 %
        {100, 0, false},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(testing::Message() << row.successes << " successes, " << row.failures << " failures");
        const QString channelId = QStringLiteral("ch-%1-%2").arg(row.successes).arg(row.failures);
        // Failures first, so a third one's cooldown is ended by the successes that follow.
        fail(row.failures, channelId);
        succeed(row.successes, 100ms, channelId);
        EXPECT_EQ(health.failedRecently(channelId), row.failedRecently);
        EXPECT_EQ(health.state(channelId),
                  row.failedRecently ? HealthState::Degraded : HealthState::Healthy);
    }
}

TEST_F(HealthTrackerTest, FailuresCountAsRecentForThirtySecondsIncludingTheEdge)
{
    fail(2);
    clock.advance(29'999ms);
    EXPECT_TRUE(health.failedRecently(kChannel));
    clock.advance(1ms);  // exactly 30 s: the window includes its edge
    EXPECT_TRUE(health.failedRecently(kChannel));
    clock.advance(1ms);
    EXPECT_FALSE(health.failedRecently(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::Healthy);
}

TEST_F(HealthTrackerTest, OnlyFailuresInsideTheWindowCount)
{
    fail(1);
    clock.advance(20s);
    fail(1);
    EXPECT_TRUE(health.failedRecently(kChannel));
    clock.advance(10'001ms);  // the first failure is now 30.001 s old
    EXPECT_FALSE(health.failedRecently(kChannel));
}

TEST_F(HealthTrackerTest, SuccessesOlderThanTheWindowNoLongerDiluteFailures)
{
    succeed(10);
    clock.advance(29s);
    fail(2);
    EXPECT_FALSE(health.failedRecently(kChannel));  // 2 of 12
    clock.advance(1'001ms);                         // the successes are 30.001 s old
    EXPECT_TRUE(health.failedRecently(kChannel));   // 2 of 2
}

TEST_F(HealthTrackerTest, FailuresOfOneChannelDoNotMarkAnother)
{
    fail(5);
    EXPECT_TRUE(health.failedRecently(kChannel));
    EXPECT_FALSE(health.failedRecently(kOtherChannel));
    EXPECT_FALSE(health.isCoolingDown(kOtherChannel));
    EXPECT_EQ(health.state(kOtherChannel), HealthState::Healthy);
}

// --- cooldowns ---------------------------------------------------------------------------------

TEST_F(HealthTrackerTest, TwoConsecutiveFailuresOnlyDegrade)
{
    fail(2);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::Degraded);
}

TEST_F(HealthTrackerTest, ThirdConsecutiveFailureCoolsTheChannelForFiveSeconds)
{
    fail(3);
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::CoolingDown);
    EXPECT_EQ(cooldownLeft(), 5s);

    clock.advance(4'999ms);
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    clock.advance(1ms);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    // Back in rotation, but the failures are still recent.
    EXPECT_EQ(health.state(kChannel), HealthState::Degraded);
}

TEST_F(HealthTrackerTest, SuccessBetweenFailuresRestartsTheCount)
{
    fail(2);
    succeed(1);
    fail(2);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    fail(1);
    EXPECT_TRUE(health.isCoolingDown(kChannel));
}

TEST_F(HealthTrackerTest, FailedProbesDoubleTheCooldownUpToFiveMinutes)
{
    const std::vector<milliseconds> lengths = {5s, 10s, 20s, 40s, 80s, 160s, 300s, 300s, 300s};
    fail(3);
    for (size_t i = 0; i < lengths.size(); ++i) {
        SCOPED_TRACE(testing::Message() << "cooldown #" << i + 1);
        ASSERT_EQ(cooldownLeft(), lengths[i]);
        clock.advance(lengths[i] - 1ms);
        EXPECT_TRUE(health.isCoolingDown(kChannel));
        clock.advance(1ms);
        EXPECT_FALSE(health.isCoolingDown(kChannel));
        // The cooldown is over: the next attempt is the probe, and it fails.
        fail(1);
        EXPECT_TRUE(health.isCoolingDown(kChannel));
        EXPECT_EQ(health.state(kChannel), HealthState::CoolingDown);
    }
}

TEST_F(HealthTrackerTest, FailedProbeCoolsAgainEvenLongAfterTheCooldownEnded)
{
    fail(3);
    clock.advance(1h);
    fail(1);  // a single failure: the first outcome since the cooldown is the probe's
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    EXPECT_EQ(cooldownLeft(), 10s);
}

TEST_F(HealthTrackerTest, FailuresDuringACooldownNeitherExtendNorRestartIt)
{
    fail(3);
    clock.advance(1s);
    fail(5);  // attempts that were already in flight
    EXPECT_EQ(cooldownLeft(), 4s);
    clock.advance(4s);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    fail(1);  // the probe
    EXPECT_EQ(cooldownLeft(), 10s);
}

TEST_F(HealthTrackerTest, SuccessfulProbeMakesTheChannelHealthyAndResetsTheLength)
{
    fail(3);
    clock.advance(5s);
    fail(1);  // failed probe: 10 s
    ASSERT_EQ(cooldownLeft(), 10s);
    clock.advance(10s);
    succeed(1);  // successful probe
    EXPECT_FALSE(health.isCoolingDown(kChannel));

    // A single failure after the successful probe is no longer a probe.
    clock.advance(1min);
    fail(1);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    fail(1);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    fail(1);  // three in a row again: the base length, not 20 s
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    EXPECT_EQ(cooldownLeft(), 5s);
}

TEST_F(HealthTrackerTest, CooldownOfOneChannelLeavesOthersInRotation)
{
    fail(3);
    fail(2, kOtherChannel);
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    EXPECT_FALSE(health.isCoolingDown(kOtherChannel));
    fail(1, kOtherChannel);
    EXPECT_EQ(cooldownLeft(kOtherChannel), 5s);
}

TEST_F(HealthTrackerTest, PolicyChangesThresholdAndLengths)
{
    HealthPolicy policy;
    policy.failuresToCool = 1;
    policy.cooldownBase = 1s;
    policy.cooldownMax = 3s;
    HealthTracker custom(clock, policy);
    custom.recordFailure(kChannel, kModel);
    EXPECT_TRUE(custom.isCoolingDown(kChannel));
    const std::vector<milliseconds> lengths = {1s, 2s, 3s, 3s};
    for (milliseconds length : lengths) {
        ASSERT_EQ(custom.cooldownUntil(kChannel) - clock.now(), length);
        clock.advance(length);
        EXPECT_FALSE(custom.isCoolingDown(kChannel));
        custom.recordFailure(kChannel, kModel);
    }
}

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

// --- simulated down ---------------------------------------------------------------------------

TEST_F(HealthTrackerTest, SimulatedDownLastsUntilTheGivenTime)
{
    health.setSimulatedDown(kChannel, clock.now() + 10s);
    EXPECT_TRUE(health.isCoolingDown(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::SimulatedDown);
    clock.advance(9'999ms);
    EXPECT_EQ(health.state(kChannel), HealthState::SimulatedDown);
    clock.advance(1ms);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::Healthy);
}

TEST_F(HealthTrackerTest, ClearingSimulatedDownReturnsTheChannelAtOnce)
{
    health.setSimulatedDown(kChannel, clock.now() + 1h);
    health.clearSimulatedDown(kChannel);
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    EXPECT_EQ(health.state(kChannel), HealthState::Healthy);
}

TEST_F(HealthTrackerTest, SimulatedDownIsShownOverCoolingDown)
{
    fail(3);
    health.setSimulatedDown(kChannel, clock.now() + 1min);
    EXPECT_EQ(health.state(kChannel), HealthState::SimulatedDown);
    health.clearSimulatedDown(kChannel);
    EXPECT_EQ(health.state(kChannel), HealthState::CoolingDown);
}

TEST_F(HealthTrackerTest, SimulatedDownIsNotAFailure)
{
    health.setSimulatedDown(kChannel, clock.now() + 1min);
    EXPECT_FALSE(health.failedRecently(kChannel));
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
    EXPECT_FALSE(health.isCoolingDown(kOtherChannel));
}

} // namespace
} // namespace sy::failover

namespace sy::failover {
namespace {

// facts() is the three single answers at one instant, for every state a channel can be in.
TEST_F(HealthTrackerTest, FactsAreTheThreeAnswersAtOnce)
{
    const auto expectSame = [&](const QString &channelId, const QString &modelId) {
        const routing::HealthFacts facts = health.facts(channelId, modelId);
        EXPECT_EQ(facts.failedRecently, health.failedRecently(channelId));
        EXPECT_EQ(facts.coolingDown, health.isCoolingDown(channelId));
        EXPECT_DOUBLE_EQ(facts.factor, health.healthFactor(channelId, modelId));
    };
    expectSame(kChannel, kModel);   // unknown: healthy, factor 1
    EXPECT_DOUBLE_EQ(health.facts(kChannel, kModel).factor, 1.0);

    succeed(10, 100ms);
    succeed(5, 1000ms);             // slow against its normal: the factor shrinks
    expectSame(kChannel, kModel);
    expectSame(kChannel, kOtherModel);
    EXPECT_LT(health.facts(kChannel, kModel).factor, health.facts(kChannel, kOtherModel).factor);

    clock.advance(31s);             // the successes leave the 30 s window (not the factor's 60 s)
    fail(2);                        // failed recently, not yet cooling
    expectSame(kChannel, kModel);
    EXPECT_TRUE(health.facts(kChannel, kModel).failedRecently);
    fail(1);                        // third in a row: cooling down
    expectSame(kChannel, kModel);
    EXPECT_TRUE(health.facts(kChannel, kModel).coolingDown);

    clock.advance(40s);             // the failures left the 30 s window; the cooldown ended
    expectSame(kChannel, kModel);
    EXPECT_FALSE(health.facts(kChannel, kModel).failedRecently);
    EXPECT_FALSE(health.facts(kChannel, kModel).coolingDown);

    health.setSimulatedDown(kOtherChannel, clock.now() + 10s);
    expectSame(kOtherChannel, kModel);
    EXPECT_TRUE(health.facts(kOtherChannel, kModel).coolingDown);
}

} // namespace
} // namespace sy::failover
