// Money (SPEC §8): balance and spend-limit admission before any upstream call, exactly one
// charge per answered request at the answering channel's price, nothing for free primaries,
// simulated or failed requests, and in-flight admission under concurrency.
#include "GatewayFixture.h"

#include <cmath>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

struct Usage {
    qint64 prompt = 0;
    qint64 completion = 0;
};

Usage usageOf(const GatewayClient &client)
{
    const QJsonObject usage = client.json().value("usage").toObject();
    return {qint64(usage.value("prompt_tokens").toDouble()), qint64(usage.value("completion_tokens").toDouble())};
}

// The fixture's prices (per 1M tokens) by answering channel.
config::Price priceOf(const QByteArray &channelId)
{
    if (channelId == "alpha")
        return {1.0, 2.0};
    if (channelId == "beta")
        return {3.0, 4.0};
    if (channelId == "gamma")
        return {0.25, 1.25};
    ADD_FAILURE() << "no price for channel " << channelId.constData();
    return {};
}

// Usage × price, in nanos (1e9 per currency unit; prices are per 1M tokens), worked out here
// rather than with billing::Pricing.
billing::Nanos expectedCharge(const Usage &usage, const config::Price &price)
{
    return std::llround(double(usage.prompt) * price.prompt * 1000.0)
         + std::llround(double(usage.completion) * price.completion * 1000.0);
}

billing::Nanos expectedCharge(const GatewayClient &client)
{
    return expectedCharge(usageOf(client), priceOf(client.header("x-tsarrouter-provider")));
}

class BillingTest : public GatewayFixture {
protected:
    billing::Ledger &ledger() { return gateway->state().ledger; }

    config::Config metered(double balance) const
    {
        config::Config config = baseConfig();
        config.balance = balance;
        return config;
    }
};

TEST_F(BillingTest, ZeroBalanceIs402BeforeAnyUpstreamCall)
{
    startGateway(metered(0.0));
    for (const QByteArray &body : {chatBody(kModelA), streamBody(kModelA)}) {
        const auto client = chat(body);
        ASSERT_EQ(client->status(), 402) << client->body().constData();
        const QJsonObject error = openAiError(*client, "insufficient_quota");
        EXPECT_EQ(error.value("message").toString(), "Insufficient balance. Top up at the dashboard.");
        EXPECT_EQ(client->header("content-type"), "application/json");
    }
    EXPECT_EQ(sim->stats().requests(), 0);
    EXPECT_EQ(gateway->state().refusals.value("insufficient_balance"), 2u);
    EXPECT_TRUE(ledger().entries().empty());
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

TEST_F(BillingTest, KeyOverItsSpendLimitIs402)
{
    config::Config config = metered(10.0);
    config.keys.front().spendLimit = 0.00001;  // less than one request costs
    startGateway(std::move(config));

    const auto first = chat(chatBody(kModelA));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    const billing::Nanos charge = expectedCharge(*first);
    EXPECT_EQ(ledger().keySpent("main"), charge);

    const auto second = chat(chatBody(kModelA));
    ASSERT_EQ(second->status(), 402) << second->body().constData();
    const QJsonObject error = openAiError(*second, "insufficient_quota");
    EXPECT_EQ(error.value("message").toString(), "This API key has reached its spend limit.");
    EXPECT_EQ(sim->stats().requests(), 1);
    EXPECT_EQ(gateway->state().refusals.value("spend_limit_reached"), 1u);

    // The limit is the key's own; the workspace still has money.
    const auto other = chat(chatBody(kModelA), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    EXPECT_EQ(other->status(), 200) << other->body().constData();
}

TEST_F(BillingTest, RequestThatFailedOverTwiceIsChargedOnceAtTheAnsweringChannelsPrice)
{
    startGateway(metered(1.0));
    addRule(R"({"provider":"alpha","failure":"status:503"})");

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*client)), (QStringList{"error", "error", "ok"}));
    ASSERT_EQ(client->header("x-tsarrouter-provider"), "beta");
    const Usage usage = usageOf(*client);
    ASSERT_GT(usage.prompt, 0);
    ASSERT_GT(usage.completion, 0);

    ASSERT_TRUE(test::waitUntil([this] { return ledger().entries().size() >= 1; }, 3s));
    test::processEventsFor(50ms);
    ASSERT_EQ(ledger().entries().size(), 1u);
    const billing::LedgerEntry &entry = ledger().entries().front();
    EXPECT_EQ(entry.kind, billing::LedgerEntry::Kind::Charge);
    EXPECT_EQ(entry.amount, expectedCharge(usage, {3.0, 4.0}));
    EXPECT_EQ(entry.channelId, "beta");
    EXPECT_EQ(entry.modelId, kModelA);
    EXPECT_EQ(entry.keyName, "main");
    EXPECT_EQ(entry.requestId.toLatin1(), client->header("x-request-id"));
    EXPECT_EQ(entry.promptTokens, usage.prompt);
    EXPECT_EQ(entry.completionTokens, usage.completion);
    EXPECT_EQ(ledger().balance(), billing::fromCurrency(1.0) - entry.amount);
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

TEST_F(BillingTest, FreePrimaryIsNotChargedEvenWhenAPaidFallbackAnswers)
{
    config::Config config = metered(1.0);
    config.models[0].free = true;  // acme/chat-a
    startGateway(std::move(config));

    const auto plain = chat(chatBody(kModelA));
    ASSERT_EQ(plain->status(), 200) << plain->body().constData();

    addRule(R"({"model":"chat-a-up","failure":"status:503"})");
    const auto fellBack = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}));
    ASSERT_EQ(fellBack->status(), 200) << fellBack->body().constData();
    EXPECT_EQ(fellBack->header("x-tsarrouter-provider"), "gamma");

    test::processEventsFor(100ms);
    EXPECT_TRUE(ledger().entries().empty());
    EXPECT_EQ(ledger().balance(), billing::fromCurrency(1.0));
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

TEST_F(BillingTest, SimulatedAndFailedAttemptsCostNothing)
{
    startGateway(metered(1.0));

    // Simulated failure of the primary: one charge, at the fallback's price.
    const auto simulated = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}),
                                {{"X-Simulate-Fail", kModelA}});
    ASSERT_EQ(simulated->status(), 200) << simulated->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*simulated)), (QStringList{"simulated_fail", "simulated_fail", "ok"}));
    EXPECT_EQ(simulated->header("x-tsarrouter-provider"), "gamma");
    const billing::Nanos charge = expectedCharge(*simulated);
    ASSERT_TRUE(test::waitUntil([this] { return ledger().entries().size() >= 1; }, 3s));

    // Every model simulated: 502, nothing sent upstream, nothing charged.
    const auto allSimulated = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}),
                                   {{"X-Simulate-Fail", QByteArray(kModelA) + ", " + kModelB}});
    EXPECT_EQ(allSimulated->status(), 502) << allSimulated->body().constData();
    // Every upstream attempt failed: 502, nothing charged.
    addRule(R"({"provider":"gamma","failure":"status:503"})");
    const auto failed = chat(chatBody(kModelB));
    EXPECT_EQ(failed->status(), 502) << failed->body().constData();
    // The upstream answered 400: returned to the client, nothing charged.
    addRule(R"({"provider":"gamma","failure":"status:400"})");
    const auto rejected = chat(chatBody(kModelB));
    EXPECT_EQ(rejected->status(), 400) << rejected->body().constData();

    test::processEventsFor(100ms);
    ASSERT_EQ(ledger().entries().size(), 1u);
    EXPECT_EQ(ledger().entries().front().amount, charge);
    EXPECT_EQ(ledger().entries().front().channelId, "gamma");
    EXPECT_EQ(ledger().entries().front().modelId, kModelB);
    EXPECT_EQ(ledger().balance(), billing::fromCurrency(1.0) - charge);
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
    EXPECT_EQ(hits("alpha") + hits("beta"), 0);
    EXPECT_EQ(hits("gamma"), 1 + 2 + 1);
}

TEST_F(BillingTest, ConcurrentRequestsCannotOverdrawBeyondWhatIsInFlight)
{
    // Each request reserves (7 prompt + 4 output tokens) at the highest chat-a prices (3, 4):
    // 37'000 nanos; it costs 15'000 at alpha. A balance of 200'000 admits at most 6 at a time.
    constexpr billing::Nanos kOpening = 200'000;
    constexpr billing::Nanos kEstimate = 7 * 3'000 + 4 * 4'000;
    startGateway(metered(billing::toCurrency(kOpening)));
    addRule(R"({"model":"chat-a-up","latency_ms":40})");
    const QByteArray body = chatBody(kModelA, {{"max_tokens", 4}});
    ASSERT_EQ(QJsonDocument::fromJson(body).object().value("messages").toArray().first()
                  .toObject().value("content").toString().size(), 28);

    // 90 requests in waves, so some arrive while others are still running (fewer than the key
    // breaker's 100: the 402s count as the key's failures).
    std::vector<std::unique_ptr<GatewayClient>> clients;
    int maxReservations = 0;
    for (int wave = 0; wave < 9; ++wave) {
        for (int i = 0; i < 10; ++i)
            clients.push_back(send("POST", "/v1/chat/completions", body));
        test::waitUntil([&] {
            maxReservations = std::max(maxReservations, ledger().reservationsInFlight());
            return false;
        }, 15ms);
    }
    const bool ended = test::waitUntil([&] {
        maxReservations = std::max(maxReservations, ledger().reservationsInFlight());
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->isComplete() || c->isClosed(); });
    }, 15s);
    ASSERT_TRUE(ended);

    int answered = 0;
    int refused = 0;
    billing::Nanos reported = 0;
    billing::Nanos maxCharge = 0;
    for (const auto &client : clients) {
        if (client->status() == 200) {
            ++answered;
            const billing::Nanos charge = expectedCharge(*client);
            reported += charge;
            maxCharge = std::max(maxCharge, charge);
        } else {
            ASSERT_EQ(client->status(), 402) << client->body().constData();
            EXPECT_EQ(openAiError(*client, "insufficient_quota").value("message").toString(),
                      "Insufficient balance. Top up at the dashboard.");
            ++refused;
        }
    }
    EXPECT_GE(answered, 2);
    EXPECT_GE(refused, 1);
    EXPECT_LE(maxReservations, int((kOpening + kEstimate - 1) / kEstimate));

    test::processEventsFor(100ms);
    billing::Nanos booked = 0;
    for (const billing::LedgerEntry &entry : ledger().entries())
        booked += entry.amount;
    EXPECT_EQ(int(ledger().entries().size()), answered);
    EXPECT_EQ(booked, reported);
    EXPECT_EQ(ledger().balance(), kOpening - booked);
    EXPECT_GE(ledger().balance(), -maxCharge * maxReservations);
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
    EXPECT_EQ(sim->stats().requests(), answered);
}

} // namespace
} // namespace sy::integration
