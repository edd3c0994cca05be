// The capacity queue (SPEC §8): each channel's max concurrent requests; a request that finds
// every channel of its model full queues (FIFO) for at most capacity_wait_s, is answered with
// `x-lovely-queued-ms`, or refused with 429; a client that leaves the queue frees its place.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class CapacityQueueTest : public GatewayFixture {
protected:
    // acme/chat-a's two channels (alpha, beta) and acme/chat-b's one (gamma) take one request each.
    config::Config oneSlotEach() const
    {
        config::Config config = baseConfig();
        for (config::Channel &c : config.channels) {
            c.maxConcurrent = 1;
            c.timeouts.firstByte = 5s;
        }
        return config;
    }

    limits::CapacityQueue &capacity() { return gateway->state().capacity; }

    std::unique_ptr<GatewayClient> sendChat(const QString &model)
    {
        return send("POST", "/v1/chat/completions", chatBody(model));
    }
};

TEST_F(CapacityQueueTest, RequestQueuesWhenEveryChannelOfTheModelIsBusy)
{
    startGateway(oneSlotEach());
    addRule(R"({"model":"chat-a-up","latency_ms":500})");

    const auto first = sendChat(kModelA);
    const auto second = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 2; }, 3s));
    const auto third = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return capacity().totalQueued() >= 1; }, 3s));
    EXPECT_EQ(sim->stats().requests(), 2);

    for (GatewayClient *client : {first.get(), second.get(), third.get()}) {
        ASSERT_TRUE(client->waitForEnd());
        EXPECT_EQ(client->status(), 200) << client->body().constData();
    }
    // The second found alpha full and took beta at once.
    EXPECT_EQ(first->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(second->header("x-tsarrouter-provider"), "beta");
    EXPECT_FALSE(first->hasHeader("x-lovely-queued-ms"));
    EXPECT_FALSE(second->hasHeader("x-lovely-queued-ms"));
    const qint64 queuedMs = third->header("x-lovely-queued-ms").toLongLong();
    EXPECT_GE(queuedMs, 300) << third->header("x-lovely-queued-ms").constData();
    EXPECT_LE(queuedMs, third->elapsedMs());
    EXPECT_EQ(attemptStatuses(attempts(*third)), QStringList{"ok"});
    EXPECT_EQ(hits("alpha") + hits("beta"), 3);
    EXPECT_EQ(capacity().inUse("alpha") + capacity().inUse("beta"), 0);
}

TEST_F(CapacityQueueTest, QueueTimeoutIs429AndTheRefusedRequestIsNotCharged)
{
    config::Config config = oneSlotEach();
    config.settings.capacityWaitS = 1;
    config.balance = 1.0;
    startGateway(std::move(config));
    addRule(R"({"model":"chat-a-up","latency_ms":2500})");

    auto first = sendChat(kModelA);
    auto second = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 2; }, 3s));
    const auto refused = chat(chatBody(kModelA));
    ASSERT_EQ(refused->status(), 429) << refused->body().constData();
    const QJsonObject error = openAiError(*refused, "rate_limit_exceeded");
    EXPECT_EQ(error.value("message").toString(), "All upstream capacity for this model is busy. Retry shortly.");
    EXPECT_GE(refused->header("retry-after").toInt(), 1);
    EXPECT_GE(refused->elapsedMs(), 900);
    EXPECT_LT(refused->elapsedMs(), 2400);
    EXPECT_EQ(gateway->state().refusals.value("capacity_busy"), 1u);
    EXPECT_EQ(capacity().totalQueued(), 0);
    EXPECT_EQ(sim->stats().requests(), 2);
    // Only the two running requests still hold a reservation.
    EXPECT_EQ(gateway->state().ledger.reservationsInFlight(), 2);

    first->disconnect();
    second->disconnect();
    ASSERT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s));
    EXPECT_TRUE(gateway->state().ledger.entries().empty());
    EXPECT_EQ(gateway->state().ledger.balance(), billing::fromCurrency(1.0));
}

TEST_F(CapacityQueueTest, ClientThatLeavesTheQueueLetsTheNextQueuedRequestIn)
{
    startGateway(oneSlotEach());
    addRule(R"({"provider":"gamma","latency_ms":600})");

    const auto running = sendChat(kModelB);
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    auto leaving = sendChat(kModelB);
    ASSERT_TRUE(test::waitUntil([this] { return capacity().queued("gamma") == 1; }, 3s));
    const auto waiting = sendChat(kModelB);
    ASSERT_TRUE(test::waitUntil([this] { return capacity().queued("gamma") == 2; }, 3s));

    leaving->disconnect();
    EXPECT_TRUE(test::waitUntil([this] { return capacity().queued("gamma") == 1; }, 2s));
    ASSERT_TRUE(running->waitForEnd());
    ASSERT_TRUE(waiting->waitForEnd());
    EXPECT_EQ(running->status(), 200);
    ASSERT_EQ(waiting->status(), 200) << waiting->body().constData();
    EXPECT_GT(waiting->header("x-lovely-queued-ms").toLongLong(), 0);
    // Served right after the running one, not after a phantom turn of the one that left.
    EXPECT_LT(waiting->elapsedMs(), 1600);
    EXPECT_EQ(hits("gamma"), 2);
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s));
    EXPECT_EQ(gateway->counters().byStatus.value(499), 1u);
    EXPECT_EQ(capacity().inUse("gamma"), 0);
}

TEST_F(CapacityQueueTest, QueuedRequestsAreServedInArrivalOrder)
{
    startGateway(oneSlotEach());
    addRule(R"({"provider":"gamma","latency_ms":250})");

    std::vector<std::unique_ptr<GatewayClient>> clients;
    clients.push_back(sendChat(kModelB));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    for (int queued = 1; queued <= 3; ++queued) {
        clients.push_back(sendChat(kModelB));
        ASSERT_TRUE(test::waitUntil([this, queued] { return capacity().queued("gamma") == queued; }, 3s));
    }

    std::vector<size_t> finishOrder;
    const bool allEnded = test::waitUntil([&] {
        for (size_t i = 0; i < clients.size(); ++i) {
            if (clients[i]->isComplete() && std::find(finishOrder.begin(), finishOrder.end(), i) == finishOrder.end())
                finishOrder.push_back(i);
        }
        return finishOrder.size() == clients.size();
    }, 5s);
    ASSERT_TRUE(allEnded);
    EXPECT_EQ(finishOrder, (std::vector<size_t>{0, 1, 2, 3}));
    qint64 previousQueuedMs = 0;
    for (size_t i = 1; i < clients.size(); ++i) {
        EXPECT_EQ(clients[i]->status(), 200) << clients[i]->body().constData();
        const qint64 queuedMs = clients[i]->header("x-lovely-queued-ms").toLongLong();
        EXPECT_GT(queuedMs, previousQueuedMs) << "request " << i;
        previousQueuedMs = queuedMs;
    }
    EXPECT_EQ(hits("gamma"), 4);
}

TEST_F(CapacityQueueTest, QueuedRequestTakesTheFirstSlotFreedOnAnyChannelOfItsModel)
{
    startGateway(oneSlotEach());
    addRule(R"({"provider":"alpha","latency_ms":1000})");
    addRule(R"({"provider":"beta","latency_ms":200})");

    const auto slow = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    const auto quick = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 2; }, 3s));
    const auto queued = sendChat(kModelA);
    ASSERT_TRUE(test::waitUntil([this] { return capacity().totalQueued() >= 1; }, 3s));

    // beta frees after about 200 ms, long before alpha: the queued request must not keep
    // waiting for alpha while beta sits idle (or goes to whoever arrives next).
    ASSERT_TRUE(quick->waitForEnd());
    ASSERT_TRUE(queued->waitForEnd());
    ASSERT_EQ(queued->status(), 200) << queued->body().constData();
    EXPECT_EQ(queued->header("x-tsarrouter-provider"), "beta");
    EXPECT_LT(queued->header("x-lovely-queued-ms").toLongLong(), 600) << "queued behind the slower channel";
    ASSERT_TRUE(slow->waitForEnd());
    EXPECT_EQ(slow->status(), 200);
}

} // namespace
} // namespace sy::integration
