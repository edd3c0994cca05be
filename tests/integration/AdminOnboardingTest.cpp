// Onboarding through the admin API (docs/admin-api.md): presets, model discovery of saved and
// unsaved settings, channel tests, client setup texts and usage history. Raw loopback upstreams
// (tests/unit/upstream/LoopbackHttpServer) play providers that list models, reject keys, answer
// HTML or hang; the simulator serves the fixture's channels.
#include "GatewayFixture.h"
#include "service/AdminApi.h"
#include "unit/upstream/LoopbackHttpServer.h"

#include <QJsonDocument>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;
using upstream::test::LoopbackHttpServer;
using upstream::test::ReceivedRequest;
using upstream::test::Step;

constexpr char kUpstreamKey[] = "sk-test-onboarding-0123456789";
constexpr char kAdminToken[] = "admin-test-token-onboarding";

QList<Step> json(int status, const QByteArray &body)
{
    return {Step::write(LoopbackHttpServer::response(status, body, {{"content-type", "application/json"}}))};
}

class AdminOnboardingTest : public GatewayFixture {
protected:
    struct Answer {
        int status = 0;
        QByteArray body;
        QJsonObject object() const { return QJsonDocument::fromJson(body).object(); }
    };

    // The admin API in-process (as the dashboard calls it); waits (bounded) for a later answer.
    Answer admin(const QByteArray &method, const QByteArray &target, const QJsonObject &body = {})
    {
        auto answer = std::make_shared<std::optional<Answer>>();
        gateway->admin()->invoke(method, target, body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(),
                                 [answer](int status, const QByteArray &bytes) { *answer = Answer{status, bytes}; });
        EXPECT_TRUE(sy::test::waitUntil([&] { return answer->has_value(); })) << target.constData();
        return answer->value_or(Answer{});
    }

    QJsonObject unsaved(const char *preset = "openai") const
    {
        return {{"preset", preset}, {"base_url", QString::fromLatin1(raw.url("/v1"))}, {"credential", kUpstreamKey}};
    }

    LoopbackHttpServer raw;
};

TEST_F(AdminOnboardingTest, PresetsAreListed)
{
    startGateway();
    const Answer answer = admin("GET", "/admin/presets");
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonArray presets = answer.object().value("presets").toArray();
    EXPECT_GE(presets.size(), 15);
    EXPECT_EQ(presets.first().toObject().value("id").toString(), QStringLiteral("openai"));
    EXPECT_EQ(admin("GET", "/admin/presets/ollama").object().value("base_url").toString(),
              QStringLiteral("http://127.0.0.1:11434/v1"));
}

TEST_F(AdminOnboardingTest, DiscoveryListsTheProvidersModelsWithPresetPrices)
{
    raw.setScript([](const ReceivedRequest &) { return json(200, R"({"data":[{"id":"gpt-4.1"},{"id":"my-finetune"}]})"); });
    startGateway();
    const Answer answer = admin("POST", "/admin/discover", unsaved());
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonArray models = answer.object().value("models").toArray();
    ASSERT_EQ(models.size(), 2);
    EXPECT_EQ(models[0].toObject().value("upstream").toString(), QStringLiteral("gpt-4.1"));
    EXPECT_TRUE(models[0].toObject().value("known_price").toBool());
    EXPECT_DOUBLE_EQ(models[0].toObject().value("prompt").toDouble(), 2.0);
    EXPECT_FALSE(models[1].toObject().value("known_price").toBool(true));
    ASSERT_EQ(raw.requests().size(), 1);
    EXPECT_EQ(raw.requests()[0].method, "GET");
    EXPECT_EQ(raw.requests()[0].target, "/v1/models");
    EXPECT_EQ(http::headerValue(raw.requests()[0].headers, "authorization"), QByteArray("Bearer ") + kUpstreamKey);
}

TEST_F(AdminOnboardingTest, ARejectedKeyIsA502WithTheProvidersTextRedacted)
{
    raw.setScript([](const ReceivedRequest &) {
        return json(401, QByteArray(R"({"error":{"message":"Incorrect API key provided: )") + kUpstreamKey + R"("}})");
    });
    startGateway();
    const std::size_t channelsBefore = gateway->workspace()->config().channels.size();
    const Answer answer = admin("POST", "/admin/discover", unsaved());
    EXPECT_EQ(answer.status, 502);
    const QJsonObject error = answer.object().value("error").toObject();
    EXPECT_EQ(error.value("type").toString(), QStringLiteral("discovery_failed"));
    const QString message = error.value("message").toString();
    EXPECT_TRUE(message.contains(QLatin1String("HTTP 401"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QLatin1String("Incorrect API key provided"))) << message.toStdString();
    EXPECT_FALSE(answer.body.contains(kUpstreamKey)) << answer.body.constData();
    EXPECT_EQ(raw.requests().size(), 1);   // a 401 is not retried as Ollama
    EXPECT_EQ(gateway->workspace()->config().channels.size(), channelsBefore);
}

TEST_F(AdminOnboardingTest, AnHtmlAnswerIsNamed)
{
    raw.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "<!DOCTYPE html><html>Sign in</html>", {{"content-type", "text/html"}}))};
    });
    startGateway();
    const Answer answer = admin("POST", "/admin/discover", unsaved());
    EXPECT_EQ(answer.status, 502);
    EXPECT_TRUE(answer.object().value("error").toObject().value("message").toString().contains(QLatin1String("HTML")))
        << answer.body.constData();
}

TEST_F(AdminOnboardingTest, AnEmptyListIsAFailure)
{
    raw.setScript([](const ReceivedRequest &request) {
        return json(request.target == "/api/tags" ? 404 : 200, R"({"data":[]})");
    });
    startGateway();
    const Answer answer = admin("POST", "/admin/discover", unsaved());
    EXPECT_EQ(answer.status, 502);
    EXPECT_TRUE(answer.object().value("error").toObject().value("message").toString().contains(QLatin1String("no models")))
        << answer.body.constData();
}

TEST_F(AdminOnboardingTest, ASavedChannelThatHangsTimesOut)
{
    raw.setScript([](const ReceivedRequest &) { return QList<Step>{}; });
    config::Config config = baseConfig();
    channel(config, "alpha").baseUrl = QString::fromLatin1(raw.url("/v1"));
    channel(config, "alpha").timeouts = {1000ms, 300ms, 300ms};
    startGateway(config);
    const Answer answer = admin("POST", "/admin/channels/alpha/discover");
    EXPECT_EQ(answer.status, 502);
    const QString message = answer.object().value("error").toObject().value("message").toString();
    EXPECT_TRUE(message.contains(QLatin1String("no response byte within 300 ms"))) << message.toStdString();
}

TEST_F(AdminOnboardingTest, OllamasOwnListIsAskedWhenTheOpenAiListIsMissing)
{
    raw.setScript([](const ReceivedRequest &request) {
        if (request.target == "/api/tags")
            return json(200, R"({"models":[{"name":"llama3.2:latest"},{"name":"qwen3:8b"}]})");
        return json(404, R"({"error":"not found"})");
    });
    startGateway();
    QJsonObject body = unsaved("ollama");
    body.remove("credential");
    const Answer answer = admin("POST", "/admin/discover", body);
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonArray models = answer.object().value("models").toArray();
    ASSERT_EQ(models.size(), 2);
    EXPECT_EQ(models[0].toObject().value("upstream").toString(), QStringLiteral("llama3.2:latest"));
    ASSERT_EQ(raw.requests().size(), 2);
    EXPECT_EQ(raw.requests()[1].target, "/api/tags");
    EXPECT_TRUE(http::headerValue(raw.requests()[0].headers, "authorization").isEmpty());
}

TEST_F(AdminOnboardingTest, AnthropicDiscoverySendsItsKeyAndVersion)
{
    raw.setScript([](const ReceivedRequest &) { return json(200, R"({"data":[{"id":"claude-sonnet-4-5","type":"model"}]})"); });
    startGateway();
    const Answer answer = admin("POST", "/admin/discover", unsaved("anthropic"));
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    EXPECT_TRUE(answer.object().value("models").toArray().first().toObject().value("known_price").toBool());
    ASSERT_EQ(raw.requests().size(), 1);
    EXPECT_EQ(http::headerValue(raw.requests()[0].headers, "x-api-key"), QByteArray(kUpstreamKey));
    EXPECT_EQ(http::headerValue(raw.requests()[0].headers, "anthropic-version"), QByteArray("2023-06-01"));
    EXPECT_TRUE(http::headerValue(raw.requests()[0].headers, "authorization").isEmpty());
}

TEST_F(AdminOnboardingTest, ANonHttpBaseUrlIsRefusedNamingTheField)
{
    startGateway();
    QJsonObject body = unsaved();
    body.insert("base_url", "ftp://files.example/v1");
    const Answer answer = admin("POST", "/admin/discover", body);
    EXPECT_EQ(answer.status, 400);
    EXPECT_EQ(answer.object().value("error").toObject().value("param").toString(), QStringLiteral("base_url"));
}

TEST_F(AdminOnboardingTest, ChannelTestSendsOneTinyRequestPerModelAndChargesNothing)
{
    startGateway();
    const int loggedBefore = gateway->requestLog().size();
    const std::size_t ledgerBefore = gateway->state().ledger.entriesAfter(0).size();
    const Answer answer = admin("POST", "/admin/channels/alpha/test", {});
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonArray results = answer.object().value("results").toArray();
    ASSERT_EQ(results.size(), 2);
    for (const QJsonValue &value : results) {
        const QJsonObject result = value.toObject();
        EXPECT_TRUE(result.value("ok").toBool()) << QJsonDocument(result).toJson().constData();
        EXPECT_EQ(result.value("status").toInt(), 200);
        EXPECT_GE(result.value("latency_ms").toInt(-1), 0);
        EXPECT_EQ(result.value("error").toString(), QString());
    }
    EXPECT_EQ(results[0].toObject().value("model").toString(), QString::fromLatin1(kModelA));
    EXPECT_EQ(hitsForModel("chat-a-up"), 1);
    EXPECT_EQ(hitsForModel("old-up"), 1);
    EXPECT_EQ(gateway->requestLog().size(), loggedBefore);
    EXPECT_EQ(gateway->state().ledger.entriesAfter(0).size(), ledgerBefore);
}

TEST_F(AdminOnboardingTest, ChannelTestOfChosenModelsReportsTheProvidersErrorRedacted)
{
    raw.setScript([](const ReceivedRequest &request) {
        const QByteArray key = http::headerValue(request.headers, "authorization").mid(7);
        return json(401, R"({"error":{"message":"Incorrect API key provided: )" + key + R"("}})");
    });
    startGateway();
    QJsonObject body{{"format", "openai"}, {"base_url", QString::fromLatin1(raw.url("/v1"))},
                     {"credential", kUpstreamKey}, {"models", QJsonArray{"gpt-4.1"}}};
    const Answer answer = admin("POST", "/admin/test", body);
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonObject result = answer.object().value("results").toArray().first().toObject();
    EXPECT_EQ(result.value("model").toString(), QStringLiteral("gpt-4.1"));
    EXPECT_FALSE(result.value("ok").toBool(true));
    EXPECT_EQ(result.value("status").toInt(), 401);
    EXPECT_TRUE(result.value("error").toString().contains(QLatin1String("Incorrect API key provided")));
    EXPECT_FALSE(answer.body.contains(kUpstreamKey)) << answer.body.constData();
    ASSERT_EQ(raw.requests().size(), 1);
    const QJsonObject sent = QJsonDocument::fromJson(raw.requests()[0].body).object();
    EXPECT_EQ(raw.requests()[0].target, "/v1/chat/completions");
    EXPECT_EQ(sent.value("model").toString(), QStringLiteral("gpt-4.1"));
    EXPECT_EQ(sent.value("max_tokens").toInt(), 1);
}

TEST_F(AdminOnboardingTest, AzureChannelsSendTheKeyInTheApiKeyHeader)
{
    raw.setScript([](const ReceivedRequest &) {
        return json(200, R"({"id":"x","object":"chat.completion","created":1,"model":"gpt-4.1",)"
                         R"("choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],)"
                         R"("usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})");
    });
    config::Config config = baseConfig();
    channel(config, "gamma").baseUrl = QString::fromLatin1(raw.url("/openai/v1"));
    channel(config, "gamma").auth = QStringLiteral("api-key");
    startGateway(config);
    const auto client = chat(chatBody(kModelB));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_EQ(raw.requests().size(), 1);
    EXPECT_EQ(http::headerValue(raw.requests()[0].headers, "api-key"), QByteArray("sk-upstream-gamma"));
    EXPECT_TRUE(http::headerValue(raw.requests()[0].headers, "authorization").isEmpty());
}

TEST_F(AdminOnboardingTest, DiscoveryAnswersOverHttpToo)
{
    raw.setScript([](const ReceivedRequest &) { return json(200, R"({"data":[{"id":"m-1"}]})"); });
    config::Config config = baseConfig();
    config.adminToken = QString::fromLatin1(kAdminToken);
    startGateway(config);
    const auto client = call("POST", "/admin/discover", QJsonDocument(unsaved()).toJson(),
                             {{"authorization", QByteArray("Bearer ") + kAdminToken}, {"content-type", "application/json"}});
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(QJsonDocument::fromJson(client->body()).object().value("models").toArray().size(), 1);
}

TEST_F(AdminOnboardingTest, ConnectListsClientsAndFillsInTheGatewaysUrl)
{
    startGateway();
    const Answer list = admin("GET", "/admin/connect");
    ASSERT_EQ(list.status, 200);
    EXPECT_EQ(list.object().value("clients").toArray().size(), 10);
    const Answer text = admin("GET", "/admin/connect?client=claude-code&secret=sk-test-abc&model=acme/chat-a");
    ASSERT_EQ(text.status, 200) << text.body.constData();
    EXPECT_EQ(text.object().value("client").toString(), QStringLiteral("claude-code"));
    EXPECT_TRUE(text.object().value("supported").toBool());
    const QString body = text.object().value("text").toString();
    EXPECT_TRUE(body.contains(QStringLiteral("http://127.0.0.1:%1").arg(gatewayPort))) << body.toStdString();
    EXPECT_TRUE(body.contains(QLatin1String("sk-test-abc")));
    EXPECT_EQ(admin("GET", "/admin/connect?client=notepad").status, 404);
}

TEST_F(AdminOnboardingTest, UsageHistoryCountsTodaysRequestsByKeyAndModel)
{
    startGateway();
    ASSERT_EQ(chat(chatBody(kModelA))->status(), 200);
    ASSERT_EQ(chat(chatBody(kModelB))->status(), 200);
    ASSERT_TRUE(sy::test::waitUntil([&] { return gateway->requestLog().size() >= 2; }));
    const Answer byModel = admin("GET", "/admin/usage/history?days=7&by=model");
    ASSERT_EQ(byModel.status, 200) << byModel.body.constData();
    const QJsonArray days = byModel.object().value("days").toArray();
    ASSERT_EQ(days.size(), 7);
    EXPECT_EQ(byModel.object().value("currency").toString(), QStringLiteral("USD"));
    const QJsonArray today = days.last().toObject().value("rows").toArray();
    ASSERT_EQ(today.size(), 2) << byModel.body.constData();
    EXPECT_EQ(today[0].toObject().value("name").toString(), QString::fromLatin1(kModelA));
    EXPECT_EQ(today[0].toObject().value("requests").toInt(), 1);
    EXPECT_GT(today[0].toObject().value("prompt_tokens").toInt(), 0);
    const Answer csv = admin("GET", "/admin/usage/history?days=1&by=key&format=csv");
    ASSERT_EQ(csv.status, 200);
    EXPECT_TRUE(csv.body.startsWith("date,name,requests,prompt_tokens,completion_tokens,cost\n")) << csv.body.constData();
    EXPECT_EQ(csv.body.count('\n'), 2) << csv.body.constData();
    EXPECT_EQ(admin("GET", "/admin/usage/history?by=channel").status, 400);
}

TEST_F(AdminOnboardingTest, PeriodicProbesReachOnlyTheChannelsThatAskForThem)
{
    config::Config config = baseConfig();
    channel(config, "alpha").probeIntervalS = 1;
    startGateway(config);
    ASSERT_TRUE(sy::test::waitUntil([&] { return hitsForModel("chat-a-up") >= 1; }, std::chrono::seconds(5)));
    EXPECT_GE(gateway->admin()->probesSent(), 1u);
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_EQ(hits("gamma"), 0);
    EXPECT_EQ(gateway->requestLog().size(), 0);
}

TEST_F(AdminOnboardingTest, AFailingProbeFeedsTheHealthTracker)
{
    config::Config config = baseConfig();
    channel(config, "gamma").baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(closedPort());
    channel(config, "gamma").probeIntervalS = 1;
    startGateway(config);
    EXPECT_TRUE(sy::test::waitUntil([&] { return gateway->state().health.failedRecently("gamma"); }, std::chrono::seconds(5)));
    EXPECT_FALSE(gateway->state().health.failedRecently("alpha"));
}

// A manual test is a probe the user asked for: its failures count as the channel's, with no
// periodic probes configured. Tests of unsaved settings have no channel and feed nothing.
TEST_F(AdminOnboardingTest, AManualChannelTestFeedsTheHealthTracker)
{
    config::Config config = baseConfig();
    channel(config, "gamma").baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(closedPort());
    startGateway(config);
    ASSERT_EQ(gateway->state().health.state("gamma"), failover::HealthState::Healthy);
    for (int i = 0; i < 3; ++i) {
        const Answer answer = admin("POST", "/admin/channels/gamma/test", {});
        ASSERT_EQ(answer.status, 200) << answer.body.constData();
        EXPECT_FALSE(answer.object().value("results").toArray().first().toObject().value("ok").toBool(true));
    }
    EXPECT_TRUE(gateway->state().health.failedRecently("gamma"));
    EXPECT_EQ(gateway->state().health.state("gamma"), failover::HealthState::CoolingDown) << "three failures in a row";
    EXPECT_EQ(gateway->admin()->probesSent(), 0u);

    ASSERT_EQ(admin("POST", "/admin/channels/alpha/test", {}).status, 200);
    EXPECT_FALSE(gateway->state().health.failedRecently("alpha"));
    QJsonObject body{{"format", "openai"}, {"base_url", QStringLiteral("http://127.0.0.1:%1/v1").arg(closedPort())},
                     {"models", QJsonArray{"chat-a-up"}}};
    ASSERT_EQ(admin("POST", "/admin/test", body).status, 200);
    EXPECT_FALSE(gateway->state().health.failedRecently("alpha"));
    EXPECT_FALSE(gateway->state().health.failedRecently("beta"));
}

} // namespace
} // namespace sy::integration
