// AdmissionGate (SPEC §8): a request at its key's limit waits up to key_limit_wait_s for room,
// then is refused with 429 and a retry-after; a freed concurrency slot admits the key's first
// waiter (FIFO). Time of the gate comes from a FakeClock; its wake-up timer runs on real time
// (the wait it computes from the fake clock), so the tests process events for a bounded while.
#include "QtPrinters.h"
#include "service/AdmissionGate.h"
#include "support/FakeClock.h"
#include "support/Waits.h"

#include <gtest/gtest.h>

#include <optional>
#include <variant>

namespace sy::service {
namespace {

using namespace std::chrono_literals;
using Result = std::variant<AdmissionTicket, ErrorReply>;

config::Key keyWith(int rpm, int maxConcurrent)
{
    config::Key key;
    key.name = QStringLiteral("k1");
    key.rpm = rpm;
    key.maxConcurrent = maxConcurrent;
    return key;
}

AdmissionRequest requestFor(quint64 token, const config::Key &key)
{
    AdmissionRequest request;
    request.token = token;
    request.key = key;
    request.primaryModel = QStringLiteral("acme/chat-a");
    request.keyWait = 2000ms;
    return request;
}

class AdmissionGateTest : public ::testing::Test {
protected:
    // Admits `request`, storing its answer (if any) in `slot`.
    void admit(AdmissionRequest request, std::optional<Result> &slot)
    {
        gate.admit(std::move(request), [&slot](Result result) { slot = std::move(result); });
    }

    test::FakeClock clock;
    GatewayState state{clock, 1, std::nullopt};  // unmetered
    AdmissionGate gate{state, clock};
};

TEST_F(AdmissionGateTest, KeyAtItsRpmLimitWaitsUpToTwoSecondsThenIs429)
{
    const config::Key key = keyWith(/*rpm=*/1, /*maxConcurrent=*/0);
    std::optional<Result> first;
    admit(requestFor(1, key), first);
    ASSERT_TRUE(first.has_value());
    ASSERT_TRUE(std::holds_alternative<AdmissionTicket>(*first));

    std::optional<Result> second;
    admit(requestFor(2, key), second);
    EXPECT_FALSE(second.has_value()) << "answered synchronously instead of waiting";
    EXPECT_EQ(gate.waiting(), 1);

    // (a) One millisecond before the deadline. The gate's timer was armed for
    // min(retry-after ≈ 60 s, 2000 ms) of real time; let it fire (bounded real wait with margin
    // for coarse timers): the request must still be waiting.
    clock.advance(1999ms);
    test::processEventsFor(2600ms);
    EXPECT_FALSE(second.has_value()) << "answered before key_limit_wait_s had passed";
    EXPECT_EQ(gate.waiting(), 1);
    EXPECT_EQ(state.refusals.value("key_rate_limited"), 0u);

    // (b) Past the deadline: the next timer (re-armed for at most 1 ms) answers 429.
    clock.advance(2ms);
    ASSERT_TRUE(test::waitUntil([&] { return second.has_value(); }, 2s));
    ASSERT_TRUE(std::holds_alternative<ErrorReply>(*second));
    const ErrorReply &reply = std::get<ErrorReply>(*second);
    EXPECT_EQ(reply.status, 429);
    EXPECT_EQ(reply.message, QStringLiteral("This API key has reached its rate or concurrency limit."));
    EXPECT_EQ(reply.code, QByteArray("key_rate_limited"));
    EXPECT_GE(reply.retryAfterS, 1);
    // The blocking admission leaves the 60 s window about 58 s after the refusal.
    EXPECT_LE(reply.retryAfterS, 60);
    EXPECT_EQ(gate.waiting(), 0);
    EXPECT_EQ(state.refusals.value("key_rate_limited"), 1u);
}

TEST_F(AdmissionGateTest, ConcurrencyWaitersAreAdmittedInArrivalOrderWhenSlotsFree)
{
    const config::Key key = keyWith(/*rpm=*/0, /*maxConcurrent=*/1);
    std::optional<Result> first;
    admit(requestFor(1, key), first);
    ASSERT_TRUE(first.has_value());
    ASSERT_TRUE(std::holds_alternative<AdmissionTicket>(*first));

    std::optional<Result> second;
    admit(requestFor(2, key), second);
    clock.advance(300ms);
    std::optional<Result> third;
    admit(requestFor(3, key), third);
    EXPECT_FALSE(second.has_value());
    EXPECT_FALSE(third.has_value());
    EXPECT_EQ(gate.waiting(), 2);

    // Before the deadline the first request ends: the earlier waiter gets the slot.
    clock.advance(700ms);
    std::get<AdmissionTicket>(*first).permit.release();
    ASSERT_TRUE(test::waitUntil([&] { return second.has_value(); }, 2s));
    ASSERT_TRUE(std::holds_alternative<AdmissionTicket>(*second));
    EXPECT_EQ(std::get<AdmissionTicket>(*second).waitedMs, 1000);
    EXPECT_TRUE(std::get<AdmissionTicket>(*second).permit.isHeld());
    EXPECT_FALSE(third.has_value()) << "the later waiter took the freed slot";
    EXPECT_EQ(gate.waiting(), 1);

    // Then the second ends (still before the third's deadline): the third is admitted.
    clock.advance(500ms);
    std::get<AdmissionTicket>(*second).permit.release();
    ASSERT_TRUE(test::waitUntil([&] { return third.has_value(); }, 2s));
    ASSERT_TRUE(std::holds_alternative<AdmissionTicket>(*third));
    EXPECT_EQ(std::get<AdmissionTicket>(*third).waitedMs, 1200);
    EXPECT_EQ(gate.waiting(), 0);
    EXPECT_EQ(state.refusals.value("key_rate_limited"), 0u);
}

} // namespace
} // namespace sy::service
