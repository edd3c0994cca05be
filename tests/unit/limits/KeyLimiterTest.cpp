// KeyLimiter (SPEC §8): per-key requests per minute over a sliding 60 s window, per-key max
// concurrent requests held by RAII permits, per-key RPM of the request's primary model; refusals
// carry a reason and a retry-after and consume nothing.
#include "limits/KeyLimiter.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace sy::limits {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using Permit = KeyLimiter::Permit;
using Result = std::variant<Permit, Refusal>;

const QString kKey = QStringLiteral("team-a");
const QString kOtherKey = QStringLiteral("team-b");
const QString kGpt = QStringLiteral("gpt-4o");
const QString kClaude = QStringLiteral("claude-sonnet");

class KeyLimiterTest : public ::testing::Test {
protected:
    // Admission of a request of kKey for kGpt without a model limit; the permit is returned.
    Result acquire(const KeyLimits &limits, const QString &key = kKey)
    {
        return limiter.tryAcquire(key, limits, kGpt, 0);
    }
    // Admits and keeps the permit, failing the test when refused.
    void admitAndHold(const KeyLimits &limits, const QString &key = kKey)
    {
        Result result = acquire(limits, key);
        ASSERT_TRUE(std::holds_alternative<Permit>(result)) << std::get<Refusal>(result).reason.constData();
        held.push_back(std::get<Permit>(std::move(result)));
    }
    static std::optional<Refusal> refusalOf(const Result &result)
    {
        if (const auto *refusal = std::get_if<Refusal>(&result))
            return *refusal;
        return std::nullopt;
    }

    sy::test::FakeClock clock;
    KeyLimiter limiter{clock};
    std::vector<Permit> held;
};

// --- requests per minute --------------------------------------------------------------------------

TEST_F(KeyLimiterTest, WithoutLimitsEveryRequestIsAdmitted)
{
    for (int i = 0; i < 500; ++i)
        admitAndHold(KeyLimits{});
    EXPECT_EQ(limiter.inFlight(kKey), 500);
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 0);  // no RPM limit: no window is kept
}

TEST_F(KeyLimiterTest, SixtyFirstRequestInAMinuteIsRefusedUntilTheOldestLeavesTheWindow)
{
    const KeyLimits limits{60, 0};
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));  // the oldest, at t0
    clock.advance(10s);
    for (int i = 0; i < 59; ++i)
        ASSERT_TRUE(std::holds_alternative<Permit>(acquire(limits))) << "request " << i + 2;
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 60);

    auto refusal = refusalOf(acquire(limits));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "key_rpm");
    EXPECT_EQ(refusal->retryAfter, 50s);

    clock.advance(50s - 1ms);
    refusal = refusalOf(acquire(limits));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->retryAfter, 1ms);

    clock.advance(1ms);  // t0 + 60 s: the oldest has left
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    refusal = refusalOf(acquire(limits));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->retryAfter, 10s);  // the next oldest arrived at t0 + 10 s
}

TEST_F(KeyLimiterTest, RetryAfterIsRoundedUpToWholeMilliseconds)
{
    const KeyLimits limits{1, 0};
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    clock.advance(std::chrono::microseconds(1500));
    const auto refusal = refusalOf(acquire(limits));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->retryAfter, 59'999ms);  // 59 998.5 ms: never earlier than the truth
}

TEST_F(KeyLimiterTest, RpmRefusalConsumesNothing)
{
    const KeyLimits limits{2, 0};
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    for (int i = 0; i < 20; ++i) {
        clock.advance(1s);
        ASSERT_TRUE(refusalOf(acquire(limits)));
    }
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 2);
    EXPECT_EQ(limiter.inFlight(kKey), 0);
    clock.advance(40s);  // t0 + 60 s: had a refusal counted, the window would still be full
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
    EXPECT_TRUE(refusalOf(acquire(limits)));
}

TEST_F(KeyLimiterTest, RequestsLeaveTheCountSixtySecondsAfterAdmission)
{
    const KeyLimits limits{10, 0};
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
        clock.advance(10s);
    }
    // Admitted at t0, t0 + 10 s, t0 + 20 s; now t0 + 30 s.
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 3);
    clock.advance(30s - 1ms);
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 3);
    clock.advance(1ms);
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 2);
    clock.advance(20s);
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 0);
}

TEST_F(KeyLimiterTest, LoweredRpmRefusesUntilFewerThanTheNewLimitRemain)
{
    for (int i = 0; i < 5; ++i) {  // at t0 .. t0 + 4 s
        ASSERT_TRUE(std::holds_alternative<Permit>(acquire(KeyLimits{5, 0})));
        if (i < 4)
            clock.advance(1s);
    }
    const KeyLimits lowered{2, 0};
    auto refusal = refusalOf(acquire(lowered));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->retryAfter, 59s);  // room when the one from t0 + 3 s leaves: t0 + 63 s
    clock.advance(59s - 1ms);
    EXPECT_TRUE(refusalOf(acquire(lowered)));
    clock.advance(1ms);
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(lowered)));
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 2);
    EXPECT_TRUE(refusalOf(acquire(lowered)));
}

TEST_F(KeyLimiterTest, KeysHaveTheirOwnWindowsAndSlots)
{
    const KeyLimits limits{1, 1};
    admitAndHold(limits);
    EXPECT_TRUE(refusalOf(acquire(limits)));
    admitAndHold(limits, kOtherKey);
    EXPECT_EQ(limiter.inFlight(kKey), 1);
    EXPECT_EQ(limiter.inFlight(kOtherKey), 1);
    EXPECT_EQ(limiter.requestsInLastMinute(kOtherKey), 1);
}

TEST_F(KeyLimiterTest, ZeroAndNegativeLimitsAreOff)
{
    for (int i = 0; i < 100; ++i) {
        admitAndHold(KeyLimits{0, 0});
        admitAndHold(KeyLimits{-1, -1});
    }
    EXPECT_EQ(limiter.inFlight(kKey), 200);
}

// --- concurrency ----------------------------------------------------------------------------------

TEST_F(KeyLimiterTest, RequestAtTheConcurrencyLimitIsRefusedUntilASlotIsReleased)
{
    const KeyLimits limits{0, 2};
    admitAndHold(limits);
    admitAndHold(limits);
    const auto refusal = refusalOf(acquire(limits));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "key_concurrency");
    EXPECT_EQ(refusal->retryAfter, KeyLimiter::kConcurrencyRetryAfter);
    EXPECT_EQ(refusal->retryAfter, 1s);
    EXPECT_EQ(limiter.inFlight(kKey), 2);

    held.front().release();
    EXPECT_EQ(limiter.inFlight(kKey), 1);
    admitAndHold(limits);
    EXPECT_EQ(limiter.inFlight(kKey), 2);
}

TEST_F(KeyLimiterTest, ConcurrencyRefusalDoesNotCountTowardsRpm)
{
    const KeyLimits limits{2, 1};
    admitAndHold(limits);
    for (int i = 0; i < 10; ++i)
        ASSERT_EQ(refusalOf(acquire(limits))->reason, "key_concurrency");
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 1);
    held.clear();
    admitAndHold(limits);  // the second of two allowed per minute
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 2);
}

TEST_F(KeyLimiterTest, PermitFreesItsSlotOnDestruction)
{
    const KeyLimits limits{0, 1};
    {
        Result result = acquire(limits);
        ASSERT_TRUE(std::holds_alternative<Permit>(result));
        EXPECT_EQ(limiter.inFlight(kKey), 1);
        EXPECT_TRUE(refusalOf(acquire(limits)));
    }
    EXPECT_EQ(limiter.inFlight(kKey), 0);
    EXPECT_TRUE(std::holds_alternative<Permit>(acquire(limits)));
}

TEST_F(KeyLimiterTest, MovedPermitKeepsTheSlotAndReleasesOnce)
{
    Permit empty;
    EXPECT_FALSE(empty.isHeld());
    empty.release();  // no-op

    Result result = acquire(KeyLimits{});
    Permit first = std::get<Permit>(std::move(result));
    ASSERT_TRUE(first);
    EXPECT_EQ(first.keyName(), kKey);

    Permit second = std::move(first);
    EXPECT_FALSE(first.isHeld());  // NOLINT(bugprone-use-after-move): moved-from is defined empty
    EXPECT_TRUE(second.isHeld());
    EXPECT_EQ(limiter.inFlight(kKey), 1);

    second.release();
    second.release();
    EXPECT_FALSE(second.isHeld());
    EXPECT_TRUE(second.keyName().isEmpty());
    EXPECT_EQ(limiter.inFlight(kKey), 0);
}

TEST_F(KeyLimiterTest, MoveAssigningOverAHeldPermitReleasesItsSlot)
{
    Permit a = std::get<Permit>(acquire(KeyLimits{}));
    Permit b = std::get<Permit>(acquire(KeyLimits{}, kOtherKey));
    a = std::move(b);
    EXPECT_EQ(limiter.inFlight(kKey), 0);
    EXPECT_EQ(limiter.inFlight(kOtherKey), 1);
    EXPECT_EQ(a.keyName(), kOtherKey);
}

TEST_F(KeyLimiterTest, OnReleaseIsCalledAfterTheSlotIsFree)
{
    std::vector<QString> released;
    std::vector<int> inFlightSeen;
    limiter.setOnRelease([&](const QString &key) {
        released.push_back(key);
        inFlightSeen.push_back(limiter.inFlight(key));
    });
    admitAndHold(KeyLimits{0, 2});
    admitAndHold(KeyLimits{0, 2}, kOtherKey);
    EXPECT_TRUE(released.empty());

    held[1].release();
    held[0].release();
    EXPECT_EQ(released, (std::vector<QString>{kOtherKey, kKey}));
    EXPECT_EQ(inFlightSeen, (std::vector<int>{0, 0}));
}

TEST_F(KeyLimiterTest, OnReleaseMayAdmitAWaiter)
{
    const KeyLimits limits{0, 1};
    std::vector<Permit> waiters;
    limiter.setOnRelease([&](const QString &key) {
        Result retry = limiter.tryAcquire(key, limits, kGpt, 0);
        if (auto *permit = std::get_if<Permit>(&retry))
            waiters.push_back(std::move(*permit));
    });
    admitAndHold(limits);
    EXPECT_TRUE(refusalOf(acquire(limits)));
    held.clear();
    ASSERT_EQ(waiters.size(), 1u);
    EXPECT_TRUE(waiters.front().isHeld());
    EXPECT_EQ(limiter.inFlight(kKey), 1);
    limiter.setOnRelease(nullptr);  // the waiter's own release must not re-admit into `waiters`
}

// --- per-model RPM (primary model) ----------------------------------------------------------------

TEST_F(KeyLimiterTest, ModelRpmCountsAgainstThePrimaryModelOfTheKeyOnly)
{
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {}, kGpt, 2)));
    clock.advance(5s);
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {}, kGpt, 2)));
    const auto refusal = refusalOf(limiter.tryAcquire(kKey, {}, kGpt, 2));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "model_rpm");
    EXPECT_EQ(refusal->retryAfter, 55s);
    EXPECT_EQ(limiter.modelRequestsInLastMinute(kKey, kGpt), 2);

    // Another primary model of the same key, and the same model on another key, are not affected.
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {}, kClaude, 2)));
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kOtherKey, {}, kGpt, 2)));

    clock.advance(55s - 1ms);
    EXPECT_TRUE(refusalOf(limiter.tryAcquire(kKey, {}, kGpt, 2)));
    clock.advance(1ms);
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {}, kGpt, 2)));
}

TEST_F(KeyLimiterTest, ModelRpmRefusalConsumesNothingFromTheKey)
{
    const KeyLimits limits{3, 1};
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, limits, kGpt, 1)));
    EXPECT_EQ(refusalOf(limiter.tryAcquire(kKey, limits, kGpt, 1))->reason, "model_rpm");
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 1);
    EXPECT_EQ(limiter.inFlight(kKey), 0);
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, limits, kClaude, 1)));
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, limits, kClaude, 0)));
    EXPECT_EQ(limiter.requestsInLastMinute(kKey), 3);
    EXPECT_EQ(refusalOf(limiter.tryAcquire(kKey, limits, kClaude, 0))->reason, "key_rpm");
}

TEST_F(KeyLimiterTest, KeyRpmRefusalConsumesNothingFromTheModel)
{
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {1, 0}, kGpt, 5)));
    EXPECT_EQ(refusalOf(limiter.tryAcquire(kKey, {1, 0}, kGpt, 5))->reason, "key_rpm");
    EXPECT_EQ(limiter.modelRequestsInLastMinute(kKey, kGpt), 1);
}

TEST_F(KeyLimiterTest, LongestRetryAfterDecidesTheReasonWhenSeveralLimitsRefuse)
{
    const KeyLimits limits{2, 1};
    admitAndHold(limits);  // at t0, without a model limit
    clock.advance(20s);
    Result gpt = limiter.tryAcquire(kKey, {2, 0}, kGpt, 1);  // t0 + 20 s, model window starts
    ASSERT_TRUE(std::holds_alternative<Permit>(gpt));
    // Key window full (room at t0 + 60 s: 40 s), model window full (room at t0 + 80 s: 60 s),
    // all slots taken (1 s): the model decides.
    auto refusal = refusalOf(limiter.tryAcquire(kKey, limits, kGpt, 1));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "model_rpm");
    EXPECT_EQ(refusal->retryAfter, 60s);
    // Without the model limit the key's window decides over the concurrency hint.
    refusal = refusalOf(limiter.tryAcquire(kKey, limits, kGpt, 0));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "key_rpm");
    EXPECT_EQ(refusal->retryAfter, 40s);
    // Once the key's window has room, only the slot is missing.
    clock.advance(40s);
    refusal = refusalOf(limiter.tryAcquire(kKey, limits, kClaude, 0));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "key_concurrency");
}

TEST_F(KeyLimiterTest, EqualRetryAfterReportsTheKeyRpm)
{
    EXPECT_TRUE(std::holds_alternative<Permit>(limiter.tryAcquire(kKey, {1, 0}, kGpt, 1)));
    const auto refusal = refusalOf(limiter.tryAcquire(kKey, {1, 0}, kGpt, 1));
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->reason, "key_rpm");
    EXPECT_EQ(refusal->retryAfter, 60s);
}

} // namespace
} // namespace sy::limits
