// Per-key limits at admission (SPEC §8): concurrency and RPM with a bounded wait, per-model RPM
// against the primary model, the key breaker and the guardrail; each refusal in its OpenAI shape.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class KeyLimitsTest : public GatewayFixture {
protected:
    static config::Key &mainKey(config::Config &config) { return config.keys.front(); }

    quint64 refusals(const char *reason) { return gateway->state().refusals.value(reason); }

    void expectKeyLimited(const GatewayClient &client)
    {
        ASSERT_EQ(client.status(), 429) << client.body().constData();
        const QJsonObject error = openAiError(client, "rate_limit_exceeded");
        EXPECT_EQ(error.value("message").toString(), "This API key has reached its rate or concurrency limit.");
        EXPECT_GE(client.header("retry-after").toInt(), 1) << client.header("retry-after").constData();
        EXPECT_FALSE(client.header("x-request-id").isEmpty());
    }
};

TEST_F(KeyLimitsTest, ConcurrencyLimitHoldsTheSecondRequestUntilTheFirstEnds)
{
    config::Config config = baseConfig();
    mainKey(config).maxConcurrent = 1;
    startGateway(std::move(config));
    addRule(R"({"provider":"alpha","latency_ms":300})");

    const auto first = send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    const auto second = send("POST", "/v1/chat/completions", chatBody(kModelA));
    // Held at admission: nothing more reaches the upstream while the first runs.
    test::processEventsFor(100ms);
    EXPECT_FALSE(second->hasHeaders());
    EXPECT_EQ(hits("alpha"), 1);

    ASSERT_TRUE(first->waitForEnd());
    ASSERT_TRUE(second->waitForEnd());
    EXPECT_EQ(first->status(), 200) << first->body().constData();
    EXPECT_EQ(second->status(), 200) << second->body().constData();
    // It ran only after the first: two upstream latencies.
    EXPECT_GE(second->elapsedMs(), 450);
    EXPECT_EQ(hits("alpha"), 2);
    EXPECT_EQ(refusals("key_rate_limited"), 0u);
}

TEST_F(KeyLimitsTest, ConcurrencyLimitAnswers429AfterTheBoundedWait)
{
    config::Config config = baseConfig();
    mainKey(config).maxConcurrent = 1;
    config.settings.keyLimitWaitS = 1;
    channel(config, "alpha").timeouts.firstByte = 5s;
    startGateway(std::move(config));
    addRule(R"({"provider":"alpha","latency_ms":2000})");

    const auto first = send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    const auto second = chat(chatBody(kModelA));
    expectKeyLimited(*second);
    EXPECT_EQ(second->json().value("error").toObject().value("code").toString(), "key_rate_limited");
    EXPECT_GE(second->elapsedMs(), 900);
    EXPECT_LT(second->elapsedMs(), 1900);
    EXPECT_EQ(refusals("key_rate_limited"), 1u);
    EXPECT_EQ(sim->stats().requests(), 1);

    ASSERT_TRUE(first->waitForEnd());
    EXPECT_EQ(first->status(), 200) << first->body().constData();
}

TEST_F(KeyLimitsTest, ClientThatLeavesWhileWaitingForTheKeyIsForgotten)
{
    config::Config config = baseConfig();
    mainKey(config).maxConcurrent = 1;
    startGateway(std::move(config));
    addRule(R"({"provider":"alpha","latency_ms":600})");

    const auto first = send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    auto leaving = send("POST", "/v1/chat/completions", chatBody(kModelA));
    test::processEventsFor(150ms);
    EXPECT_EQ(gateway->counters().inFlight, 2);
    leaving->disconnect();

    ASSERT_TRUE(first->waitForEnd());
    EXPECT_EQ(first->status(), 200);
    // The waiter that left never reaches the upstream and does not stay counted.
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 2s))
        << "in flight: " << gateway->counters().inFlight;
    EXPECT_EQ(gateway->counters().succeeded + gateway->counters().failed, gateway->counters().requests)
        << "a request that was never finished in the log";
    EXPECT_EQ(hits("alpha"), 1);

    // Its slot is free: the next request is admitted at once.
    const auto next = chat(chatBody(kModelA));
    EXPECT_EQ(next->status(), 200) << next->body().constData();
    EXPECT_LT(next->elapsedMs(), 1500);
}

TEST_F(KeyLimitsTest, RpmLimitRefusesTheThirdRequestOfTheMinute)
{
    config::Config config = baseConfig();
    mainKey(config).rpm = 2;
    config.settings.keyLimitWaitS = 1;
    startGateway(std::move(config));

    EXPECT_EQ(chat(chatBody(kModelA))->status(), 200);
    EXPECT_EQ(chat(chatBody(kModelA))->status(), 200);
    const auto third = chat(chatBody(kModelA));
    expectKeyLimited(*third);
    EXPECT_GE(third->elapsedMs(), 900);
    // Room comes back when the first admission leaves the 60 s window.
    const int retryAfter = third->header("retry-after").toInt();
    EXPECT_GE(retryAfter, 50);
    EXPECT_LE(retryAfter, 60);
    EXPECT_EQ(sim->stats().requests(), 2);
    EXPECT_EQ(refusals("key_rate_limited"), 1u);

    // The limit is the key's own.
    const auto other = chat(chatBody(kModelA), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    EXPECT_EQ(other->status(), 200) << other->body().constData();
}

TEST_F(KeyLimitsTest, ModelRpmCountsAgainstThePrimaryEvenWhenAFallbackAnswers)
{
    config::Config config = baseConfig();
    config.models[0].rpmPerKey = 1;  // acme/chat-a
    config.settings.keyLimitWaitS = 1;
    startGateway(std::move(config));
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");

    const auto fellBack = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}));
    ASSERT_EQ(fellBack->status(), 200) << fellBack->body().constData();
    EXPECT_EQ(fellBack->header("x-tsarrouter-model"), kModelB);

    // The fallback's own model is not limited, nor is a request whose primary it is.
    EXPECT_EQ(chat(chatBody(kModelB))->status(), 200);
    EXPECT_EQ(chat(chatBody(kModelB, {{"models", QJsonArray{kModelB, kModelA}}}))->status(), 200);

    const auto limited = chat(chatBody(kModelA));
    expectKeyLimited(*limited);
    EXPECT_EQ(hitsForModel("chat-a-up"), 2);  // alpha and beta of the first request only
    EXPECT_EQ(hitsForModel("chat-b-up"), 3);
}

TEST_F(KeyLimitsTest, BreakerSuspendsAKeyWhoseRequestsKeepFailing)
{
    startGateway();
    // The gateway's own 4xx count as failures of the key (BreakerPolicy: 100 in 60 s, > 90 %).
    const auto failing = chatConcurrently(100, chatBody("acme/no-such-model"));
    for (const auto &client : failing)
        ASSERT_EQ(client->status(), 400) << client->body().constData();
    EXPECT_EQ(gateway->state().breaker.state("main"), limits::BreakerState::Suspended);

    const auto suspended = chat(chatBody(kModelA));
    ASSERT_EQ(suspended->status(), 429) << suspended->body().constData();
    const QJsonObject error = openAiError(*suspended, "rate_limit_exceeded");
    EXPECT_EQ(error.value("code").toString(), "key_suspended");
    const int retryAfter = suspended->header("retry-after").toInt();
    EXPECT_GE(retryAfter, 1);
    EXPECT_LE(retryAfter, 60);
    EXPECT_EQ(gateway->state().refusals.value("key_breaker_suspended"), 1u);
    EXPECT_EQ(sim->stats().requests(), 0);

    // Another key is not affected.
    const auto other = chat(chatBody(kModelA), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    EXPECT_EQ(other->status(), 200) << other->body().constData();
}

TEST_F(KeyLimitsTest, GuardrailRefusalIsImmediateAndConsumesNothing)
{
    config::Config config = baseConfig();
    config.keys[1].rpm = 1;  // the restricted key
    config.balance = 1.0;
    startGateway(std::move(config));
    const RequestHeaders restricted{{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}};

    const auto blocked = chat(chatBody(kModelB), restricted);
    ASSERT_EQ(blocked->status(), 403) << blocked->body().constData();
    const QJsonObject error = openAiError(*blocked, "permission_error");
    EXPECT_EQ(error.value("message").toString(), "Request blocked by guardrail policy");
    EXPECT_EQ(error.value("param").toString(), "model");
    EXPECT_EQ(sim->stats().requests(), 0);
    EXPECT_EQ(gateway->state().ledger.reservationsInFlight(), 0);

    // It used none of the key's one request per minute.
    const auto allowed = chat(chatBody(kModelA), restricted);
    EXPECT_EQ(allowed->status(), 200) << allowed->body().constData();
    EXPECT_LT(allowed->elapsedMs(), 1000);
}

} // namespace
} // namespace sy::integration
