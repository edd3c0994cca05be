// AdmissionGate with shared key limits (RedisKeyLimiter) whose Redis cannot be reached — a real
// limiter pointed at a loopback port nobody listens on: `fail_closed` answers 503
// limits_unavailable with a retry-after, counted; `local` admits through the gate's own limiter;
// a key without limits never asks Redis. (The reachable cases: tests/unit/limits, tests/system.)
#include "QtPrinters.h"
#include "limits/RedisKeyLimiter.h"
#include "service/AdmissionGate.h"
#include "support/FakeClock.h"
#include "support/Waits.h"

#include <QTcpServer>
#include <gtest/gtest.h>

#include <optional>
#include <variant>

namespace sy::service {
namespace {

using namespace std::chrono_literals;
using Result = std::variant<AdmissionTicket, ErrorReply>;

quint16 closedPort()
{
    QTcpServer probe;
    EXPECT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
    return probe.serverPort();  // closed again when the probe goes
}

class AdmissionGateSharedTest : public ::testing::Test {
protected:
    void useShared(bool failClosed)
    {
        limits::RedisKeyLimiter::Options options;
        options.endpoint.host = QStringLiteral("127.0.0.1");
        options.endpoint.port = closedPort();
        options.instanceId = "test";
        options.failClosed = failClosed;
        shared = std::make_unique<limits::RedisKeyLimiter>(std::move(options), state.keyLimiter);
        gate->setSharedLimits(shared.get());
    }

    std::optional<Result> admit(int rpm)
    {
        AdmissionRequest request;
        request.token = ++tokens;
        request.key.name = QStringLiteral("k1");
        request.key.rpm = rpm;
        request.primaryModel = QStringLiteral("m");
        request.keyWait = 0ms;
        std::optional<Result> result;
        gate->admit(std::move(request), [&result](Result r) { result = std::move(r); });
        EXPECT_TRUE(test::waitUntil([&] { return result.has_value(); }, 5s));
        return result;
    }

    void TearDown() override
    {
        gate.reset();     // before the limiter it points at
        shared.reset();
    }

    test::FakeClock clock;
    GatewayState state{clock, 1, std::nullopt};
    std::unique_ptr<limits::RedisKeyLimiter> shared;
    std::unique_ptr<AdmissionGate> gate = std::make_unique<AdmissionGate>(state, clock);
    quint64 tokens = 0;
};

TEST_F(AdmissionGateSharedTest, FailClosedAnswers503WithRetryAfterWhileRedisIsUnreachable)
{
    useShared(true);
    const std::optional<Result> result = admit(10);
    ASSERT_TRUE(result && std::holds_alternative<ErrorReply>(*result));
    const ErrorReply &reply = std::get<ErrorReply>(*result);
    EXPECT_EQ(reply.status, 503);
    EXPECT_EQ(reply.code, "limits_unavailable");
    EXPECT_GE(reply.retryAfterS, 1);
    EXPECT_EQ(state.refusals.value("limits_unavailable"), 1u);
    EXPECT_FALSE(shared->isReachable());
}

TEST_F(AdmissionGateSharedTest, LocalFallbackAppliesThisInstancesOwnLimits)
{
    useShared(false);
    std::optional<Result> first = admit(1);
    ASSERT_TRUE(first && std::holds_alternative<AdmissionTicket>(*first));
    const std::optional<Result> second = admit(1);
    ASSERT_TRUE(second && std::holds_alternative<ErrorReply>(*second));
    EXPECT_EQ(std::get<ErrorReply>(*second).status, 429);
    EXPECT_EQ(state.keyLimiter.requestsInLastMinute(QStringLiteral("k1")), 1);
    EXPECT_EQ(shared->unreachableDecisions(), 2u);
}

TEST_F(AdmissionGateSharedTest, KeyWithoutLimitsNeverAsksRedis)
{
    useShared(true);
    const std::optional<Result> result = admit(0);
    ASSERT_TRUE(result && std::holds_alternative<AdmissionTicket>(*result));
    EXPECT_EQ(shared->unreachableDecisions(), 0u);
    EXPECT_TRUE(shared->isReachable());
}

} // namespace
} // namespace sy::service
