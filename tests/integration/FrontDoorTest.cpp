// What the gateway refuses before any upstream is asked (SPEC §2, §8, §9): keys, malformed
// bodies, unknown routes, size limits, foreign Host/Origin headers and the key guardrail.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

class FrontDoorTest : public GatewayFixture {
protected:
    // Expects the OpenAI error shape with `type`; returns error.message.
    static QString expectOpenAiError(const GatewayClient &client, const QString &type)
    {
        const QJsonObject error = client.json().value("error").toObject();
        EXPECT_FALSE(error.isEmpty()) << client.body().constData();
        EXPECT_EQ(error.value("type").toString(), type) << client.body().constData();
        EXPECT_TRUE(error.contains("param"));
        EXPECT_TRUE(error.contains("code"));
        return error.value("message").toString();
    }
};

TEST_F(FrontDoorTest, MissingKeyIs401)
{
    startGateway();
    GatewayClient client(gatewayPort);
    client.send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(client.waitForEnd());
    ASSERT_EQ(client.status(), 401);
    expectOpenAiError(client, "authentication_error");
    EXPECT_EQ(client.json().value("error").toObject().value("code").toString(), "missing_api_key");
    EXPECT_FALSE(client.header("x-request-id").isEmpty());
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, WrongKeyIs401)
{
    startGateway();
    const auto client = chat(chatBody(kModelA), {{"Authorization", "Bearer sk-not-a-key"}});
    ASSERT_EQ(client->status(), 401);
    const QString message = expectOpenAiError(*client, "authentication_error");
    EXPECT_FALSE(message.contains("sk-not-a-key")) << "the secret is echoed back";
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, DisabledKeyIs401)
{
    config::Config config = baseConfig();
    config.keys.front().enabled = false;
    startGateway(std::move(config));
    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 401);
    expectOpenAiError(*client, "authentication_error");
}

TEST_F(FrontDoorTest, MalformedJsonIs400NamingTheProblem)
{
    startGateway();
    const auto client = chat(R"({"model":"acme/chat-a","messages":[)");
    ASSERT_EQ(client->status(), 400) << client->body().constData();
    const QString message = expectOpenAiError(*client, "invalid_request_error");
    EXPECT_TRUE(message.contains("not valid JSON")) << message.toStdString();
    EXPECT_TRUE(message.contains("offset")) << message.toStdString();
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, MissingMessagesIs400NamingTheField)
{
    startGateway();
    const auto client = chat(R"({"model":"acme/chat-a"})");
    ASSERT_EQ(client->status(), 400) << client->body().constData();
    expectOpenAiError(*client, "invalid_request_error");
    EXPECT_EQ(client->json().value("error").toObject().value("param").toString(), "messages");
}

TEST_F(FrontDoorTest, UnknownV1RouteIs404InOpenAiShape)
{
    startGateway();
    const auto client = call("POST", "/v1/nope", "{}");
    ASSERT_EQ(client->status(), 404) << client->body().constData();
    const QString message = expectOpenAiError(*client, "not_found_error");
    EXPECT_TRUE(message.contains("/v1/nope")) << message.toStdString();
}

TEST_F(FrontDoorTest, WrongMethodIs405)
{
    startGateway();
    const auto client = call("GET", "/v1/chat/completions");
    EXPECT_EQ(client->status(), 405) << client->body().constData();
}

TEST_F(FrontDoorTest, BodyOverLimitIs413)
{
    config::Config config = baseConfig();
    config.settings.maxBodyBytes = 4096;
    startGateway(std::move(config));
    const QString big(8192, QLatin1Char('x'));
    const auto client = chat(chatBody(kModelA, {{"user", big}}));
    ASSERT_EQ(client->status(), 413) << client->body().constData();
    expectOpenAiError(*client, "invalid_request_error");
    EXPECT_EQ(sim->stats().requests(), 0);

    // Just under the limit still goes through.
    const auto small = chat(chatBody(kModelA));
    EXPECT_EQ(small->status(), 200) << small->body().constData();
}

TEST_F(FrontDoorTest, HeaderBlockOver64KiBIs431)
{
    startGateway();
    const auto client = chat(chatBody(kModelA), {{"X-Padding", QByteArray(70 * 1024, 'p')}});
    ASSERT_EQ(client->status(), 431) << client->body().constData();
    expectOpenAiError(*client, "invalid_request_error");
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, ForeignHostIs403)
{
    startGateway();
    const auto client = chat(chatBody(kModelA), {{"Host", "evil.example.com"}});
    ASSERT_EQ(client->status(), 403) << client->body().constData();
    const QString message = expectOpenAiError(*client, "permission_error");
    EXPECT_TRUE(message.contains("Host")) << message.toStdString();
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, LoopbackHostNamesAreAccepted)
{
    startGateway();
    const QByteArray port = QByteArray::number(gatewayPort);
    for (const QByteArray &host : {"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}) {
        const auto client = chat(chatBody(kModelA), {{"Host", host}});
        EXPECT_EQ(client->status(), 200) << host.constData();
    }
}

TEST_F(FrontDoorTest, ForeignBrowserOriginIs403)
{
    startGateway();
    const auto client = chat(chatBody(kModelA), {{"Origin", "https://evil.example.com"}});
    ASSERT_EQ(client->status(), 403) << client->body().constData();
    EXPECT_FALSE(client->hasHeader("access-control-allow-origin"));
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(FrontDoorTest, KeyGuardrailBlocksOtherModels)
{
    startGateway();
    const auto client = chat(chatBody(kModelB), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    ASSERT_EQ(client->status(), 403) << client->body().constData();
    const QString message = expectOpenAiError(*client, "permission_error");
    EXPECT_EQ(message, "Request blocked by guardrail policy");
    EXPECT_EQ(sim->stats().requests(), 0);

    const auto allowed = chat(chatBody(kModelA), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    EXPECT_EQ(allowed->status(), 200) << allowed->body().constData();
}

// SPEC §6: `x-request-id` on every response, refusals of the HTTP front included.
TEST_F(FrontDoorTest, FrontRefusalsCarryRequestId)
{
    config::Config config = baseConfig();
    config.settings.maxBodyBytes = 4096;
    startGateway(std::move(config));
    const auto foreignHost = chat(chatBody(kModelA), {{"Host", "evil.example.com"}});
    const auto tooLarge = chat(chatBody(kModelA, {{"user", QString(8192, QLatin1Char('x'))}}));
    const auto headersTooLarge = chat(chatBody(kModelA), {{"X-Padding", QByteArray(70 * 1024, 'p')}});
    const auto unknownPath = call("GET", "/nope");
    ASSERT_EQ(foreignHost->status(), 403);
    ASSERT_EQ(tooLarge->status(), 413);
    ASSERT_EQ(headersTooLarge->status(), 431);
    ASSERT_EQ(unknownPath->status(), 404);
    EXPECT_FALSE(foreignHost->header("x-request-id").isEmpty()) << "403 bad host";
    EXPECT_FALSE(tooLarge->header("x-request-id").isEmpty()) << "413";
    EXPECT_FALSE(headersTooLarge->header("x-request-id").isEmpty()) << "431";
    EXPECT_FALSE(unknownPath->header("x-request-id").isEmpty()) << "404 outside /v1";
}

} // namespace
} // namespace sy::integration
