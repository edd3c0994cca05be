// The model chain (SPEC §3 steps 1–2, §4): `models` fallbacks, virtual models, unknown ids, and
// how upstream client errors behave inside a chain.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

class ModelChainTest : public GatewayFixture {
protected:
    // A body with only `models` (no `model`): the first entry is the primary.
    static QByteArray chainBody(const QStringList &models, bool stream = false)
    {
        QJsonObject body{{"models", QJsonArray::fromStringList(models)},
                         {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}},
                         {"provider", fixedOrder()}};
        if (stream)
            body.insert("stream", true);
        return QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
};

TEST_F(ModelChainTest, FailingPrimaryFallsBackToTheNextModel)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");

    const auto client = chat(chainBody({kModelA, kModelB}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->json().value("model").toString(), kModelB);
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "gamma");
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta", "gamma"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error", "ok"}));
    EXPECT_EQ(trace.first().toObject().value("model").toString(), kModelA);
    EXPECT_EQ(trace.last().toObject().value("model").toString(), kModelB);
    // Chains try each candidate once, and the fallback is asked under its upstream name.
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 1);
    EXPECT_EQ(hitsForModel("chat-b-up"), 1);
}

TEST_F(ModelChainTest, StreamingChainSwitchesModelBeforeTheFirstChunk)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"reset"})");

    const auto client = chat(chainBody({kModelA, kModelB}, true));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    const QList<QByteArray> events = client->sseData();
    ASSERT_FALSE(events.isEmpty());
    EXPECT_EQ(events.last(), "[DONE]");
    EXPECT_EQ(QJsonDocument::fromJson(events.first()).object().value("model").toString(), kModelB);
}

TEST_F(ModelChainTest, VirtualModelAnswersWithItsPrimary)
{
    startGateway();
    const auto client = chat(chatBody(kVirtual));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelA);
    EXPECT_EQ(client->json().value("model").toString(), kModelA);
    EXPECT_EQ(hitsForModel("chat-a-up"), 1);
}

TEST_F(ModelChainTest, VirtualModelExpandsToItsFallbacks)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:500"})");

    const auto client = chat(chatBody(kVirtual));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    EXPECT_EQ(attemptProviders(attempts(*client)), (QStringList{"alpha", "beta", "gamma"}));
}

TEST_F(ModelChainTest, UnknownPrimaryIsRejectedWithoutUpstreamCalls)
{
    startGateway();
    const auto client = chat(chatBody("acme/nope", {{"models", QJsonArray{kModelB}}}));
    ASSERT_EQ(client->status(), 400) << client->body().constData();
    const QJsonObject error = client->json().value("error").toObject();
    EXPECT_EQ(error.value("type").toString(), "invalid_request_error");
    EXPECT_EQ(error.value("code").toString(), "model_not_found");
    EXPECT_EQ(error.value("param").toString(), "model");
    EXPECT_TRUE(error.value("message").toString().contains("acme/nope"));
    EXPECT_FALSE(client->header("x-request-id").isEmpty());
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(ModelChainTest, UnknownFallbackIsSkippedSilently)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");

    const auto client = chat(chainBody({kModelA, "acme/nope", kModelB}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    const QJsonArray trace = attempts(*client);
    for (const QJsonValue &attempt : trace)
        EXPECT_NE(attempt.toObject().value("model").toString(), "acme/nope");
    EXPECT_EQ(trace.size(), 3);
}

TEST_F(ModelChainTest, UpstreamBadRequestInAChainDoesNotStopIt)
{
    startGateway();
    addRule(R"({"provider":"alpha","model":"chat-a-up","failure":"status:400"})");

    const auto client = chat(chainBody({kModelA, kModelB}));
    // Not handed back at once as for a single model: a later candidate answers.
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonArray trace = attempts(*client);
    ASSERT_GE(trace.size(), 2);
    EXPECT_EQ(trace.first().toObject().value("provider").toString(), "alpha");
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("400"));
    EXPECT_EQ(trace.last().toObject().value("status").toString(), "ok");
    EXPECT_NE(client->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta") + hits("gamma"), 1);
}

TEST_F(ModelChainTest, ChainEndingInBadRequestReturnsThatStatusAndBody)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");
    addRule(R"({"model":"chat-b-up","failure":"status:422"})");

    const auto client = chat(chainBody({kModelA, kModelB}));
    ASSERT_EQ(client->status(), 422) << client->body().constData();
    EXPECT_TRUE(client->json().value("error").toObject().value("message").toString().contains("chat-b-up"))
        << client->body().constData();
}

// SPEC §4: with a chain, "if nobody answered and the last error was one of these [400, 404,
// 413, 422], that status and text are returned" — otherwise the normal 502.
TEST_F(ModelChainTest, ChainEndingInServerErrorIs502EvenAfterAnEarlierBadRequest)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:400"})");
    addRule(R"({"model":"chat-b-up","failure":"status:503"})");

    const auto client = chat(chainBody({kModelA, kModelB}));
    EXPECT_EQ(client->status(), 502) << client->body().constData();
    EXPECT_EQ(client->json().value("error").toObject().value("message").toString(),
              "All providers failed for model chain [acme/chat-a, acme/chat-b]");
    EXPECT_EQ(hits("gamma"), 1);
}

// SPEC §8 guardrail: a key that may use only some models must not be answered by another one,
// whether the model is named as `model` or reached as a fallback.
TEST_F(ModelChainTest, GuardrailAppliesToFallbackModelsToo)
{
    startGateway();
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");

    const auto client = chat(chainBody({kModelA, kModelB}),
                             {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    EXPECT_NE(client->status(), 200) << client->body().constData();
    EXPECT_NE(client->header("x-tsarrouter-model"), kModelB);
    EXPECT_EQ(hits("gamma"), 0) << "a model outside the key's allowed list was called";
}

} // namespace
} // namespace sy::integration
