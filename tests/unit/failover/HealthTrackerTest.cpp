// HealthTracker (SPEC §3.5 default order, §4 "Health"): the 30 s "failed recently" rule, cooldowns
// that double from 5 s up to 300 s and end with a probe, simulated down and the dashboard states. A
// FakeClock steps onto and across every time boundary. The health factor: HealthFactorTest.cpp.
#include "HealthTrackerFixture.h"

namespace sy::failover {
namespace {

using namespace test;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

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
