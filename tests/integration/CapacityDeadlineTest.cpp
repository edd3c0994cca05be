// Two deadlines of SPEC §8 seen end to end: capacity_wait_s for a request queued behind busy
// channels (refused at the deadline, answered when a slot frees before it), and the
// `insufficient_balance` attempt status of a free primary's paid fallback once the balance has
// run out while the request was running.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class CapacityDeadlineTest : public GatewayFixture {
protected:
    // acme/chat-a's two channels (alpha, beta) and acme/chat-b's one (gamma) take one request each.
    config::Config oneSlotEach(int capacityWaitS) const
    {
        config::Config config = baseConfig();
        for (config::Channel &c : config.channels) {
            c.maxConcurrent = 1;
            c.timeouts.firstByte = 5s;
        }
        config.settings.capacityWaitS = capacityWaitS;
        return config;
    }

    std::unique_ptr<GatewayClient> sendChat(const QString &model)
    {
        return send("POST", "/v1/chat/completions", chatBody(model));
    }

    // Fills both chat-a channels with a request that takes about 1.5 s upstream.
    void fillBothChannels(std::unique_ptr<GatewayClient> &first, std::unique_ptr<GatewayClient> &second)
    {
        addRule(R"({"model":"chat-a-up","latency_ms":1500})");
        first = sendChat(kModelA);
        second = sendChat(kModelA);
        ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 2; }, 3s));
    }
};

TEST_F(CapacityDeadlineTest, QueuedRequestIsRefusedAtTheOneSecondCapacityDeadline)
{
    startGateway(oneSlotEach(1));
    std::unique_ptr<GatewayClient> first, second;
    ASSERT_NO_FATAL_FAILURE(fillBothChannels(first, second));

    const auto refused = chat(chatBody(kModelA));
    ASSERT_EQ(refused->status(), 429) << refused->body().constData();
    const QJsonObject error = openAiError(*refused, "rate_limit_exceeded");
    EXPECT_EQ(error.value("message").toString(), "All upstream capacity for this model is busy. Retry shortly.");
    EXPECT_GE(refused->header("retry-after").toInt(), 1);
    EXPECT_GE(refused->elapsedMs(), 900);
    EXPECT_LE(refused->elapsedMs(), 1400);
    EXPECT_EQ(gateway->state().refusals.value("capacity_busy"), 1u);
    EXPECT_EQ(gateway->state().capacity.totalQueued(), 0);
    EXPECT_EQ(sim->stats().requests(), 2);

    ASSERT_TRUE(first->waitForEnd());
    ASSERT_TRUE(second->waitForEnd());
    EXPECT_EQ(first->status(), 200);
    EXPECT_EQ(second->status(), 200);
}

TEST_F(CapacityDeadlineTest, QueuedRequestIsAnsweredWhenASlotFreesBeforeTheTwoSecondDeadline)
{
    startGateway(oneSlotEach(2));
    std::unique_ptr<GatewayClient> first, second;
    ASSERT_NO_FATAL_FAILURE(fillBothChannels(first, second));

    // A slot frees after about 1.5 s, inside the 2 s wait; the request then runs its own 1.5 s.
    const auto queued = sendChat(kModelA);
    ASSERT_TRUE(queued->waitForEnd(6s));
    ASSERT_EQ(queued->status(), 200) << queued->body().constData();
    const qint64 queuedMs = queued->header("x-lovely-queued-ms").toLongLong();
    EXPECT_GE(queuedMs, 1000) << queued->header("x-lovely-queued-ms").constData();
    EXPECT_LT(queuedMs, 2000) << queued->header("x-lovely-queued-ms").constData();
    EXPECT_EQ(attemptStatuses(attempts(*queued)), QStringList{"ok"});
    EXPECT_EQ(gateway->state().refusals.value("capacity_busy"), 0u);
    EXPECT_EQ(hits("alpha") + hits("beta"), 3);

    ASSERT_TRUE(first->waitForEnd());
    ASSERT_TRUE(second->waitForEnd());
    EXPECT_EQ(first->status(), 200);
    EXPECT_EQ(second->status(), 200);
}

TEST_F(CapacityDeadlineTest, PaidFallbackOfAFreePrimaryIsRefusedOnceTheBalanceRunsOut)
{
    config::Config config = baseConfig();
    config.balance = 1.0;          // metered, with credit: the request is admitted
    config.models[0].free = true;  // acme/chat-a; its fallback acme/chat-b is paid
    startGateway(std::move(config));
    // The primary's channels answer 503 after a while, leaving time to spend the balance.
    addRule(R"({"model":"chat-a-up","failure":"status:503","latency_ms":300})");

    const auto client = send("POST", "/v1/chat/completions",
                             chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));

    // Another request's charge (booked through the ledger) uses the balance up meanwhile.
    billing::Ledger &ledger = gateway->state().ledger;
    const auto admitted = ledger.tryAdmit(QStringLiteral("other"), std::nullopt, 0);
    ASSERT_TRUE(std::holds_alternative<billing::ReservationId>(admitted));
    billing::LedgerEntry charge;
    charge.requestId = QStringLiteral("other-request");
    charge.amount = billing::fromCurrency(5.0);
    ASSERT_TRUE(ledger.settle(std::get<billing::ReservationId>(admitted), std::move(charge)));
    ASSERT_LE(ledger.balance() - ledger.reservedInFlight(), 0);

    ASSERT_TRUE(client->waitForEnd(5s));
    EXPECT_EQ(client->status(), 502) << client->body().constData();
    const QJsonObject error = QJsonDocument::fromJson(client->body()).object().value("error").toObject();
    const QJsonArray trace = error.value("metadata").toObject().value("attempts").toArray();
    ASSERT_FALSE(trace.isEmpty()) << client->body().constData();
    const QJsonObject last = trace.last().toObject();
    EXPECT_EQ(last.value("status").toString(), "insufficient_balance") << client->body().constData();
    EXPECT_EQ(last.value("model").toString(), kModelB) << client->body().constData();
    for (int i = 0; i + 1 < trace.size(); ++i) {
        EXPECT_EQ(trace[i].toObject().value("model").toString(), kModelA) << client->body().constData();
        EXPECT_NE(trace[i].toObject().value("status").toString(), "insufficient_balance");
    }
    EXPECT_EQ(hits("gamma"), 0);
    EXPECT_GE(hits("alpha") + hits("beta"), 1);
    // Nothing charged for this request: only the other request's charge is booked.
    ASSERT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s));
    EXPECT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.reservationsInFlight(), 0);
}

} // namespace
} // namespace sy::integration
