// A plain (non-streaming) completion through the gateway to the simulator, the model list and
// the liveness route (SPEC §2, §6).
#include "GatewayFixture.h"

#include <QDate>

namespace sy::integration {
namespace {

class PlainCompletionTest : public GatewayFixture {};

TEST_F(PlainCompletionTest, AnswersInOpenAiShapeWithPublicModelAndUsage)
{
    startGateway();
    const auto client = chat(chatBody(kModelA));

    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("content-type"), "application/json");
    const QJsonObject answer = client->json();
    EXPECT_EQ(answer.value("object").toString(), "chat.completion");
    EXPECT_FALSE(answer.value("id").toString().isEmpty());
    // The client sees the public id, never the channel's upstream name.
    EXPECT_EQ(answer.value("model").toString(), kModelA);
    const QJsonObject choice = answer.value("choices").toArray().first().toObject();
    EXPECT_EQ(choice.value("message").toObject().value("role").toString(), "assistant");
    EXPECT_FALSE(choice.value("message").toObject().value("content").toString().isEmpty());
    EXPECT_EQ(choice.value("finish_reason").toString(), "stop");
    const QJsonObject usage = answer.value("usage").toObject();
    EXPECT_GT(usage.value("prompt_tokens").toInt(), 0);
    EXPECT_GT(usage.value("completion_tokens").toInt(), 0);
    EXPECT_EQ(usage.value("total_tokens").toInt(),
              usage.value("prompt_tokens").toInt() + usage.value("completion_tokens").toInt());

    // The first channel in configuration order answered, under its upstream model name.
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_EQ(hitsForModel("chat-a-up"), 1);
    EXPECT_EQ(hitsForModel(kModelA), 0);
}

TEST_F(PlainCompletionTest, CarriesRequestIdAndTraceHeaders)
{
    startGateway();
    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();

    EXPECT_TRUE(client->header("x-request-id").startsWith("req_")) << client->header("x-request-id").constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelA);
    const QJsonArray trace = attempts(*client);
    ASSERT_EQ(trace.size(), 1);
    const QJsonObject only = trace.first().toObject();
    EXPECT_EQ(only.value("provider").toString(), "alpha");
    EXPECT_EQ(only.value("model").toString(), kModelA);
    EXPECT_EQ(only.value("status").toString(), "ok");
    EXPECT_TRUE(only.value("latency_ms").isDouble());
    EXPECT_GE(only.value("latency_ms").toDouble(), 0);
    EXPECT_FALSE(client->hasHeader("x-model-deprecated"));
    EXPECT_EQ(gateway->counters().succeeded, 1u);
}

TEST_F(PlainCompletionTest, RequestIdsDifferBetweenRequests)
{
    startGateway();
    const auto first = chat(chatBody(kModelA));
    const auto second = chat(chatBody(kModelA));
    ASSERT_EQ(first->status(), 200);
    ASSERT_EQ(second->status(), 200);
    EXPECT_FALSE(first->header("x-request-id").isEmpty());
    EXPECT_NE(first->header("x-request-id"), second->header("x-request-id"));
}

TEST_F(PlainCompletionTest, DeprecatedModelAnswersWithSunsetHeaders)
{
    startGateway();
    const auto client = chat(chatBody(kModelOld));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->json().value("model").toString(), kModelOld);
    EXPECT_EQ(client->header("x-model-deprecated"), "true");
    EXPECT_EQ(client->header("sunset"), "2099-12-31");
    EXPECT_EQ(hitsForModel("old-up"), 1);
}

TEST_F(PlainCompletionTest, ModelListCarriesPricingAndDeprecation)
{
    startGateway();
    const auto client = call("GET", "/v1/models");
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_FALSE(client->header("x-request-id").isEmpty());
    const QJsonObject list = client->json();
    EXPECT_EQ(list.value("object").toString(), "list");

    QHash<QString, QJsonObject> byId;
    for (const QJsonValue &entry : list.value("data").toArray())
        byId.insert(entry.toObject().value("id").toString(), entry.toObject());
    ASSERT_TRUE(byId.contains(kModelA)) << client->body().constData();
    ASSERT_TRUE(byId.contains(kModelB));
    ASSERT_TRUE(byId.contains(kModelOld));
    EXPECT_TRUE(byId.contains(kVirtual));

    const QJsonObject a = byId.value(kModelA);
    EXPECT_EQ(a.value("object").toString(), "model");
    EXPECT_EQ(a.value("context_length").toInt(), 8192);
    // Two channels serve it; the cheaper one (alpha: 1 + 2) sets the listed price.
    const QJsonObject pricing = a.value("pricing").toObject();
    EXPECT_DOUBLE_EQ(pricing.value("prompt").toDouble(), 1.0);
    EXPECT_DOUBLE_EQ(pricing.value("completion").toDouble(), 2.0);
    EXPECT_EQ(pricing.value("currency").toString(), "USD");
    EXPECT_FALSE(a.contains("deprecated"));

    const QJsonObject b = byId.value(kModelB).value("pricing").toObject();
    EXPECT_DOUBLE_EQ(b.value("prompt").toDouble(), 0.25);
    EXPECT_DOUBLE_EQ(b.value("completion").toDouble(), 1.25);
    EXPECT_EQ(byId.value(kModelOld).value("deprecated").toString(), "2099-12-31");
    // Listing models never reaches an upstream.
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(PlainCompletionTest, AnthropicClientsGetTheModelListInAnthropicsShape)
{
    startGateway();
    const auto client = call("GET", "/v1/models", {}, {{"anthropic-version", "2023-06-01"}});
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject list = client->json();
    EXPECT_FALSE(list.contains("object"));
    EXPECT_FALSE(list.value("has_more").toBool(true));
    const QJsonArray data = list.value("data").toArray();
    ASSERT_FALSE(data.isEmpty());
    EXPECT_EQ(list.value("first_id").toString(), data.first().toObject().value("id").toString());
    EXPECT_EQ(list.value("last_id").toString(), data.last().toObject().value("id").toString());
    for (const QJsonValue &entry : data) {
        EXPECT_EQ(entry.toObject().value("type").toString(), "model");
        EXPECT_EQ(entry.toObject().value("display_name"), entry.toObject().value("id"));
        EXPECT_TRUE(entry.toObject().contains("created_at"));
    }
}

TEST_F(PlainCompletionTest, ModelListNeedsAKey)
{
    startGateway();
    GatewayClient client(gatewayPort);
    client.send("GET", "/v1/models");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 401);
    EXPECT_EQ(client.json().value("error").toObject().value("type").toString(), "authentication_error");
}

TEST_F(PlainCompletionTest, HealthAnswersWithoutAKey)
{
    startGateway();
    GatewayClient client(gatewayPort);
    client.send("GET", "/health");
    ASSERT_TRUE(client.waitForEnd());
    ASSERT_EQ(client.status(), 200) << client.body().constData();
    const QJsonObject health = client.json();
    EXPECT_EQ(health.value("status").toString(), "ok");
    EXPECT_EQ(health.value("in_flight").toInt(), 0);
    EXPECT_EQ(health.value("channels").toInt(), 3);
    EXPECT_FALSE(client.header("x-request-id").isEmpty());
}

} // namespace
} // namespace sy::integration
