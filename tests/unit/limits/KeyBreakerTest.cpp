// KeyBreaker (SPEC §8): a key with at least 100 requests in 60 s of which more than 90 % failed is
// suspended (60 s, doubling per repeat within an hour); the 3rd trip within an hour disables it
// until reset; a suspension ends with a fresh window.
#include "limits/KeyBreaker.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sy::limits {
namespace {

using namespace std::chrono_literals;

const QString kKey = QStringLiteral("team-a");
const QString kOtherKey = QStringLiteral("team-b");

class KeyBreakerTest : public ::testing::Test {
protected:
    // Records `count` outcomes of one kind; returns the state after the last one.
    BreakerState record(int count, bool failed, const QString &key = kKey)
    {
        BreakerState last = breaker.state(key);
        for (int i = 0; i < count; ++i)
            last = breaker.recordOutcome(key, failed);
        return last;
    }
    // 100 failures now: trips a Closed key.
    BreakerState trip(const QString &key = kKey) { return record(100, true, key); }

    sy::test::FakeClock clock;
    KeyBreaker breaker{clock};  // default policy: 100 requests, > 90 %, 60 s, 60 s doubling, 3rd in 1 h
};

// --- tripping -------------------------------------------------------------------------------------

TEST_F(KeyBreakerTest, NinetyNineFailuresDoNotTrip)
{
    EXPECT_EQ(record(99, true), BreakerState::Closed);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 99);
    EXPECT_EQ(breaker.failuresInWindow(kKey), 99);
    EXPECT_EQ(breaker.check(kKey).state, BreakerState::Closed);
    EXPECT_EQ(breaker.suspensions(kKey), 0);
}

TEST_F(KeyBreakerTest, HundredRequestsWithNinetyOneFailuresTrip)
{
    record(9, false);
    EXPECT_EQ(record(90, true), BreakerState::Closed);  // 99 requests: too few to judge
    EXPECT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Suspended);
    const auto verdict = breaker.check(kKey);
    EXPECT_EQ(verdict.state, BreakerState::Suspended);
    EXPECT_EQ(verdict.retryAfter, 60s);
    EXPECT_EQ(breaker.suspensions(kKey), 1);
}

TEST_F(KeyBreakerTest, ExactlyNinetyPercentFailedDoesNotTripButOneMoreFailureDoes)
{
    record(10, false);
    EXPECT_EQ(record(90, true), BreakerState::Closed);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 100);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Closed);
    EXPECT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Suspended);  // 91 of 101
}

TEST_F(KeyBreakerTest, SuccessesAloneNeverTrip)
{
    EXPECT_EQ(record(1000, false), BreakerState::Closed);
}

TEST_F(KeyBreakerTest, OutcomesThatLeftTheWindowDoNotCount)
{
    record(50, true);
    clock.advance(60s);
    EXPECT_EQ(record(50, true), BreakerState::Closed);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 50);
}

TEST_F(KeyBreakerTest, OutcomesOfTheLastSecondOfTheWindowStillCount)
{
    record(50, true);
    clock.advance(59'999ms);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 50);
    EXPECT_EQ(record(50, true), BreakerState::Suspended);
}

TEST_F(KeyBreakerTest, FailuresSpreadOverTheWindowTrip)
{
    for (int i = 0; i < 99; ++i) {  // one failure every 0.5 s, from t0 to t0 + 49 s
        ASSERT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Closed) << "failure " << i + 1;
        clock.advance(500ms);
    }
    EXPECT_EQ(breaker.requestsInWindow(kKey), 99);
    EXPECT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Suspended);
}

TEST_F(KeyBreakerTest, KeysAreJudgedApart)
{
    record(60, true);
    record(60, true, kOtherKey);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Closed);
    EXPECT_EQ(breaker.state(kOtherKey), BreakerState::Closed);
    trip();
    EXPECT_EQ(breaker.state(kKey), BreakerState::Suspended);
    EXPECT_EQ(breaker.state(kOtherKey), BreakerState::Closed);
}

// --- suspension -----------------------------------------------------------------------------------

TEST_F(KeyBreakerTest, SuspensionEndsExactlyWhenItsRetryAfterHasPassed)
{
    ASSERT_EQ(trip(), BreakerState::Suspended);
    clock.advance(59'999ms);
    auto verdict = breaker.check(kKey);
    EXPECT_EQ(verdict.state, BreakerState::Suspended);
    EXPECT_EQ(verdict.retryAfter, 1ms);
    clock.advance(1ms);
    verdict = breaker.check(kKey);
    EXPECT_EQ(verdict.state, BreakerState::Closed);
    EXPECT_EQ(verdict.retryAfter, 0ms);
}

TEST_F(KeyBreakerTest, OutcomesDuringASuspensionAreIgnoredAndTheWindowStartsFresh)
{
    ASSERT_EQ(trip(), BreakerState::Suspended);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 0);
    EXPECT_EQ(record(500, true), BreakerState::Suspended);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 0);
    clock.advance(60s);
    EXPECT_EQ(record(99, true), BreakerState::Closed);  // would trip at once had anything been kept
    EXPECT_EQ(breaker.suspensions(kKey), 1);
    EXPECT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Suspended);
    EXPECT_EQ(breaker.suspensions(kKey), 2);
}

TEST_F(KeyBreakerTest, SecondSuspensionWithinTheHourLastsTwiceAsLong)
{
    trip();
    clock.advance(60s);
    ASSERT_EQ(trip(), BreakerState::Suspended);
    EXPECT_EQ(breaker.check(kKey).retryAfter, 120s);
    clock.advance(120s - 1ms);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Suspended);
    clock.advance(1ms);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Closed);
}

TEST_F(KeyBreakerTest, ThirdTripWithinTheHourDisablesUntilReset)
{
    trip();
    clock.advance(60s);
    trip();
    clock.advance(120s);
    EXPECT_EQ(breaker.suspensions(kKey), 2);
    EXPECT_EQ(trip(), BreakerState::Disabled);
    const auto verdict = breaker.check(kKey);
    EXPECT_EQ(verdict.state, BreakerState::Disabled);
    EXPECT_EQ(verdict.retryAfter, 0ms);
    EXPECT_EQ(breaker.suspensions(kKey), 3);

    clock.advance(24h);  // no time heals a disabled key, and the history is kept
    EXPECT_EQ(record(10, false), BreakerState::Disabled);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Disabled);
    EXPECT_EQ(breaker.suspensions(kKey), 3);
}

TEST_F(KeyBreakerTest, TripsOlderThanTheMemoryAreForgotten)
{
    trip();  // t0
    clock.advance(3600s);
    EXPECT_EQ(breaker.suspensions(kKey), 0);
    ASSERT_EQ(trip(), BreakerState::Suspended);  // the first again: 60 s, not 120 s
    EXPECT_EQ(breaker.check(kKey).retryAfter, 60s);
    EXPECT_EQ(breaker.suspensions(kKey), 1);
}

TEST_F(KeyBreakerTest, TripJustInsideTheMemoryCountsAsARepeat)
{
    trip();  // t0
    clock.advance(3599s);
    EXPECT_EQ(breaker.suspensions(kKey), 1);
    ASSERT_EQ(trip(), BreakerState::Suspended);
    EXPECT_EQ(breaker.check(kKey).retryAfter, 120s);
    EXPECT_EQ(breaker.suspensions(kKey), 2);
}

TEST_F(KeyBreakerTest, ThreeTripsSpreadOverMoreThanAnHourOnlySuspend)
{
    trip();  // t0, forgotten at t0 + 1 h
    clock.advance(30min);
    trip();  // t0 + 30 min
    clock.advance(30min);
    ASSERT_EQ(trip(), BreakerState::Suspended);  // t0 + 1 h: the second within the hour
    EXPECT_EQ(breaker.check(kKey).retryAfter, 120s);
}

// --- reset ----------------------------------------------------------------------------------------

TEST_F(KeyBreakerTest, ResetReenablesADisabledKeyWithAClearHistory)
{
    for (int i = 0; i < 3; ++i) {
        trip();
        clock.advance(5min);
    }
    ASSERT_EQ(breaker.state(kKey), BreakerState::Disabled);
    breaker.reset(kKey);
    EXPECT_EQ(breaker.state(kKey), BreakerState::Closed);
    EXPECT_EQ(breaker.suspensions(kKey), 0);
    EXPECT_EQ(breaker.requestsInWindow(kKey), 0);
    EXPECT_EQ(record(99, true), BreakerState::Closed);
    ASSERT_EQ(breaker.recordOutcome(kKey, true), BreakerState::Suspended);
    EXPECT_EQ(breaker.check(kKey).retryAfter, 60s);  // the first suspension again
}

TEST_F(KeyBreakerTest, ResetEndsASuspensionEarly)
{
    trip();
    breaker.reset(kKey);
    EXPECT_EQ(breaker.check(kKey).state, BreakerState::Closed);
    EXPECT_EQ(breaker.check(kKey).retryAfter, 0ms);
}

// --- policy ---------------------------------------------------------------------------------------

TEST_F(KeyBreakerTest, PolicyIsConfigurable)
{
    BreakerPolicy policy;
    policy.minRequests = 10;
    policy.window = 10s;
    policy.failureShareAbove = 0.5;
    policy.firstSuspension = 5s;
    policy.suspensionsToDisable = 2;
    KeyBreaker custom(clock, policy);

    for (int i = 0; i < 5; ++i) {
        custom.recordOutcome(kKey, false);
        custom.recordOutcome(kKey, true);
    }
    EXPECT_EQ(custom.state(kKey), BreakerState::Closed);  // 5 of 10 is not more than half
    EXPECT_EQ(custom.recordOutcome(kKey, true), BreakerState::Suspended);
    EXPECT_EQ(custom.check(kKey).retryAfter, 5s);
    clock.advance(5s);
    for (int i = 0; i < 9; ++i)
        custom.recordOutcome(kKey, true);
    clock.advance(10s);  // the 9 leave the 10 s window
    EXPECT_EQ(custom.recordOutcome(kKey, true), BreakerState::Closed);
    for (int i = 0; i < 9; ++i)
        custom.recordOutcome(kKey, true);
    EXPECT_EQ(custom.state(kKey), BreakerState::Disabled);
}

TEST_F(KeyBreakerTest, StateNamesAreStable)
{
    EXPECT_STREQ(breakerStateName(BreakerState::Closed), "closed");
    EXPECT_STREQ(breakerStateName(BreakerState::Suspended), "suspended");
    EXPECT_STREQ(breakerStateName(BreakerState::Disabled), "disabled");
}

} // namespace
} // namespace sy::limits
