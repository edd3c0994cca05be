// HealthTracker numbers (keyOf) and facts for many candidates at one instant (fillFacts): a number
// changes no answer, sees the outcomes recorded after it was given, and fillFacts answers what
// facts() answers by ids, numbered or not.
#include "HealthTrackerFixture.h"

namespace sy::failover {
namespace {

using namespace test;
using namespace std::chrono_literals;

routing::Candidate candidateFor(const config::Channel &channel, const QString &modelId, routing::HealthKey key)
{
    routing::Candidate candidate;
    candidate.channel = &channel;
    candidate.modelId = modelId;
    candidate.keys.health = key;
    return candidate;
}

config::Channel channelNamed(const QString &id)
{
    config::Channel channel;
    channel.id = id;
    return channel;
}

void expectSameFacts(const routing::HealthFacts &actual, const routing::HealthFacts &expected)
{
    EXPECT_EQ(actual.failedRecently, expected.failedRecently);
    EXPECT_EQ(actual.coolingDown, expected.coolingDown);
    EXPECT_DOUBLE_EQ(actual.factor, expected.factor);
}

TEST_F(HealthTrackerTest, NumberingAChannelChangesNoAnswer)
{
    const routing::HealthKey key = health.keyOf(kChannel, kModel);
    EXPECT_GE(key.channel, 0);
    EXPECT_GE(key.model, 0);
    EXPECT_FALSE(health.failedRecently(kChannel));
    EXPECT_FALSE(health.isCoolingDown(kChannel));
    EXPECT_DOUBLE_EQ(health.healthFactor(kChannel, kModel), 1.0);
    EXPECT_EQ(health.state(kChannel), HealthState::Healthy);
    EXPECT_EQ(health.cooldownUntil(kChannel), Clock::TimePoint{});
}

TEST_F(HealthTrackerTest, NumbersAreStableAndDistinct)
{
    const routing::HealthKey key = health.keyOf(kChannel, kModel);
    const routing::HealthKey otherModel = health.keyOf(kChannel, kOtherModel);
    const routing::HealthKey otherChannel = health.keyOf(kOtherChannel, kModel);
    EXPECT_EQ(otherModel.channel, key.channel);
    EXPECT_NE(otherModel.model, key.model);
    EXPECT_NE(otherChannel.channel, key.channel);
    succeed(3);
    fail(1, kOtherChannel);
    const routing::HealthKey again = health.keyOf(kChannel, kModel);
    EXPECT_EQ(again.channel, key.channel);
    EXPECT_EQ(again.model, key.model);
}

TEST_F(HealthTrackerTest, ANumberGivenBeforeAnyOutcomeSeesLaterOutcomes)
{
    const config::Channel channel = channelNamed(kChannel);
    routing::Candidate candidates[] = {candidateFor(channel, kModel, health.keyOf(kChannel, kModel))};

    fail(3);   // failed recently, and a cooldown starts
    health.fillFacts(candidates);
    EXPECT_TRUE(candidates[0].health.failedRecently);
    EXPECT_TRUE(candidates[0].health.coolingDown);
    EXPECT_LT(candidates[0].health.factor, 1.0);
    expectSameFacts(candidates[0].health, health.facts(kChannel, kModel));
}

TEST_F(HealthTrackerTest, FillFactsByNumberOrByIdsAnswersAsFactsDoes)
{
    const config::Channel main = channelNamed(kChannel);
    const config::Channel backup = channelNamed(kOtherChannel);
    const config::Channel unknown = channelNamed(QStringLiteral("never-seen"));
    routing::Candidate candidates[] = {
        candidateFor(main, kModel, health.keyOf(kChannel, kModel)),
        candidateFor(main, kOtherModel, {}),                      // not numbered: asked by ids
        candidateFor(backup, kModel, health.keyOf(kOtherChannel, kModel)),
        candidateFor(unknown, kModel, {}),
    };
    succeed(20, 100ms);
    succeed(10, 900ms);   // slow against its normal: the factor shrinks
    succeed(5, 100ms, kChannel, kOtherModel);
    fail(2, kOtherChannel);
    clock.advance(1s);

    health.fillFacts(candidates);
    expectSameFacts(candidates[0].health, health.facts(kChannel, kModel));
    EXPECT_LT(candidates[0].health.factor, 1.0);
    expectSameFacts(candidates[1].health, health.facts(kChannel, kOtherModel));
    expectSameFacts(candidates[2].health, health.facts(kOtherChannel, kModel));
    EXPECT_TRUE(candidates[2].health.failedRecently);
    expectSameFacts(candidates[3].health, routing::HealthFacts{});
}

TEST_F(HealthTrackerTest, FillFactsMovesTheWindowsToNow)
{
    const config::Channel channel = channelNamed(kChannel);
    routing::Candidate candidates[] = {candidateFor(channel, kModel, health.keyOf(kChannel, kModel))};
    fail(2);
    health.fillFacts(candidates);
    EXPECT_TRUE(candidates[0].health.failedRecently);
    clock.advance(31s);   // both failures left the 30 s window
    health.fillFacts(candidates);
    EXPECT_FALSE(candidates[0].health.failedRecently);
}

} // namespace
} // namespace sy::failover
