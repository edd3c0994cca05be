// RedisKeyLimiter against a real redis-server (tests/support/RedisServer): two limiters stand for
// two instances sharing one Redis. RPM windows exact across them with a retry-after from the
// window, concurrency slots shared and leased, answers never synchronous, Redis down → fallback
// to the local limiter or Unavailable, and back when Redis returns.
#include "limits/RedisKeyLimiter.h"
#include "limits/RedisSession.h"

#include "support/FakeClock.h"
#include "support/RedisServer.h"
#include "support/Waits.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>

namespace sy::limits {
namespace {

using namespace std::chrono_literals;
using test::RedisServer;

class RedisKeyLimiterTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!RedisServer::available())
            GTEST_SKIP() << qPrintable(RedisServer::missingMessage());
        ASSERT_TRUE(redis.start()) << redis.output().constData();
    }

    std::unique_ptr<RedisKeyLimiter> limiter(const QByteArray &instance, bool failClosed = false,
                                             std::chrono::milliseconds lease = 30s)
    {
        RedisKeyLimiter::Options options;
        options.endpoint = *config::parseRedisUrl(redis.url());
        options.instanceId = instance;
        options.failClosed = failClosed;
        options.lease = lease;
        options.retryPause = 50ms;
        return std::make_unique<RedisKeyLimiter>(std::move(options), local);
    }

    // Asks and waits (bounded) for the answer; fails the test when it came synchronously.
    SharedOutcome ask(RedisKeyLimiter &l, KeyLimits limits, const QString &model = QStringLiteral("m"), int modelRpm = 0)
    {
        std::optional<SharedOutcome> outcome;
        l.tryAcquire(QStringLiteral("team"), limits, model, modelRpm, [&](SharedOutcome o) { outcome = std::move(o); });
        EXPECT_FALSE(outcome.has_value()) << "answered from inside tryAcquire";
        EXPECT_TRUE(test::waitUntil([&] { return outcome.has_value(); }, 5s));
        return outcome ? std::move(*outcome) : SharedOutcome(Unavailable{});
    }

    static bool admitted(const SharedOutcome &o) { return std::holds_alternative<KeyLimiter::Permit>(o); }

    RedisServer redis;
    test::FakeClock clock;
    KeyLimiter local{clock};
};

TEST_F(RedisKeyLimiterTest, RpmWindowIsExactAcrossInstancesWithRetryAfterFromTheWindow)
{
    auto a = limiter("a");
    auto b = limiter("b");
    int admittedCount = 0;
    for (int i = 0; i < 5; ++i) {
        admittedCount += admitted(ask(*a, {3, 0})) ? 1 : 0;
        admittedCount += admitted(ask(*b, {3, 0})) ? 1 : 0;
    }
    EXPECT_EQ(admittedCount, 3);
    const SharedOutcome refused = ask(*b, {3, 0});
    ASSERT_TRUE(std::holds_alternative<Refusal>(refused));
    const Refusal &r = std::get<Refusal>(refused);
    EXPECT_EQ(r.reason, "key_rpm");
    EXPECT_GT(r.retryAfter, 55s);    // the oldest admission was moments ago
    EXPECT_LE(r.retryAfter, 60s);
}

TEST_F(RedisKeyLimiterTest, ModelRpmCountsOnlyThePrimaryModelOfTheKey)
{
    auto a = limiter("a");
    EXPECT_TRUE(admitted(ask(*a, {0, 0}, QStringLiteral("m1"), 1)));
    const SharedOutcome refused = ask(*a, {0, 0}, QStringLiteral("m1"), 1);
    ASSERT_TRUE(std::holds_alternative<Refusal>(refused));
    EXPECT_EQ(std::get<Refusal>(refused).reason, "model_rpm");
    EXPECT_TRUE(admitted(ask(*a, {0, 0}, QStringLiteral("m2"), 1)));
}

TEST_F(RedisKeyLimiterTest, ConcurrencySlotsAreSharedAndComeBackOnRelease)
{
    auto a = limiter("a");
    auto b = limiter("b");
    SharedOutcome first = ask(*a, {0, 2});
    SharedOutcome second = ask(*b, {0, 2});
    ASSERT_TRUE(admitted(first));
    ASSERT_TRUE(admitted(second));
    const SharedOutcome third = ask(*a, {0, 2});
    ASSERT_TRUE(std::holds_alternative<Refusal>(third));
    EXPECT_EQ(std::get<Refusal>(third).reason, "key_concurrency");
    EXPECT_EQ(std::get<Refusal>(third).retryAfter, KeyLimiter::kConcurrencyRetryAfter);

    QString released;
    a->setOnRelease([&](const QString &key) { released = key; });
    std::get<KeyLimiter::Permit>(first).release();
    EXPECT_EQ(released, "team");
    EXPECT_EQ(a->heldSlots(), 0);
    // The ZREM is on its way; the next admission sees the freed slot once it arrived.
    EXPECT_TRUE(test::waitUntil([&] { return admitted(ask(*b, {0, 2})); }, 5s));
}

TEST_F(RedisKeyLimiterTest, ALeaseThatIsNotRenewedExpires)
{
    // A slot of an instance that died: leased for 2 s from now by Redis's clock, never renewed.
    RedisSession session(*config::parseRedisUrl(redis.url()), 2s, 0ms);
    const std::optional<RedisReply> time = session.command({"TIME"});
    ASSERT_TRUE(time && time->elements.size() == 2);
    const qint64 nowMs = time->elements[0].text.toLongLong() * 1000 + time->elements[1].text.toLongLong() / 1000;
    ASSERT_TRUE(session.command({"ZADD", redisKeySlots(QStringLiteral("team")), QByteArray::number(nowMs + 2000), "dead:1"}));
    auto b = limiter("b", false, 2s);
    EXPECT_TRUE(std::holds_alternative<Refusal>(ask(*b, {0, 1})));
    EXPECT_TRUE(test::waitUntil([&] { return admitted(ask(*b, {0, 1})); }, 8s));
}

TEST_F(RedisKeyLimiterTest, RenewalKeepsALongRequestsSlot)
{
    auto a = limiter("a", false, 2s);
    SharedOutcome held = ask(*a, {0, 1});
    ASSERT_TRUE(admitted(held));
    auto b = limiter("b", false, 2s);
    // Three leases long, the slot stays taken because A renews it.
    test::processEventsFor(6s);
    EXPECT_TRUE(std::holds_alternative<Refusal>(ask(*b, {0, 1})));
}

TEST_F(RedisKeyLimiterTest, UnreachableRedisFallsBackToTheLocalLimiter)
{
    auto a = limiter("a");
    redis.stop();
    EXPECT_TRUE(admitted(ask(*a, {1, 0})));
    EXPECT_FALSE(a->isReachable());
    const SharedOutcome second = ask(*a, {1, 0});
    ASSERT_TRUE(std::holds_alternative<Refusal>(second));   // the local window decided
    EXPECT_EQ(std::get<Refusal>(second).reason, "key_rpm");
    EXPECT_EQ(local.requestsInLastMinute(QStringLiteral("team")), 1);
}

TEST_F(RedisKeyLimiterTest, UnreachableRedisFailsClosedAndRecoversWhenItReturns)
{
    auto a = limiter("a", true);
    redis.stop();
    EXPECT_TRUE(std::holds_alternative<Unavailable>(ask(*a, {5, 0})));
    EXPECT_FALSE(a->isReachable());
    ASSERT_TRUE(redis.start({}, redis.port())) << redis.output().constData();
    EXPECT_TRUE(test::waitUntil([&] { return admitted(ask(*a, {5, 0})); }, 5s));
    EXPECT_TRUE(a->isReachable());
}

TEST(RedisAccessCheck, APasswordThatWasNotGivenIsRefusedInRedisOwnWords)
{
    if (!RedisServer::available())
        GTEST_SKIP() << qPrintable(RedisServer::missingMessage());
    RedisServer redis;
    ASSERT_TRUE(redis.start("pw-test-c0de")) << redis.output().constData();
    bool unreachable = true;
    QString why = checkRedisAccess(*config::parseRedisUrl(redis.urlWithPassword({})), 2s, &unreachable);
    EXPECT_FALSE(unreachable);
    EXPECT_TRUE(why.contains("NOAUTH")) << qPrintable(why);
    why = checkRedisAccess(*config::parseRedisUrl(redis.urlWithPassword("wrong-pw")), 2s, &unreachable);
    EXPECT_TRUE(why.contains("WRONGPASS")) << qPrintable(why);
    EXPECT_FALSE(why.contains("wrong-pw")) << qPrintable(why);
    EXPECT_TRUE(checkRedisAccess(*config::parseRedisUrl(redis.url()), 2s).isEmpty());
    redis.stop();
    why = checkRedisAccess(*config::parseRedisUrl(redis.url()), 2s, &unreachable);
    EXPECT_TRUE(unreachable) << qPrintable(why);
}

} // namespace
} // namespace sy::limits
