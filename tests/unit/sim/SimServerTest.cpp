// SimServer on loopback port 0, driven by a raw HTTP client: answers, streams, provider
// prefixes and timing. Failure kinds and the control endpoint: SimFailureTest, SimControlTest.
#include "SimServerFixture.h"

#include <QJsonArray>

namespace sy::sim::test {
namespace {

using SimServerTest = SimServerFixture;

using namespace std::chrono_literals;

TEST_F(SimServerTest, PlainCompletionHasOpenAiShapeUsageAndEchoedModel)
{
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions",
                R"({"model":"vendor/m1","messages":[{"role":"user","content":"0123456789abcdef"}]})");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 200);
    EXPECT_EQ(client.header("content-type"), "application/json");
    const QJsonObject body = json(client.body());
    EXPECT_EQ(body["object"].toString(), u"chat.completion");
    EXPECT_EQ(body["model"].toString(), u"vendor/m1");
    const QString content = body["choices"][0]["message"]["content"].toString();
    EXPECT_EQ(content.split(' ').size(), 16);
    EXPECT_EQ(body["usage"]["prompt_tokens"].toInt(), 4);
    EXPECT_EQ(body["usage"]["completion_tokens"].toInt(), 16);
    EXPECT_EQ(body["usage"]["total_tokens"].toInt(), 20);
}

TEST_F(SimServerTest, MaxTokensCapsThePlainAnswer)
{
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", R"({"model":"m","max_completion_tokens":3,"messages":[]})");
    ASSERT_TRUE(client.waitForEnd());
    const QJsonObject body = json(client.body());
    EXPECT_EQ(body["usage"]["completion_tokens"].toInt(), 3);
    EXPECT_EQ(body["choices"][0]["finish_reason"].toString(), u"length");
}

TEST_F(SimServerTest, StreamSendsContentChunksThenFinishUsageAndDone)
{
    putRules(R"({"rules":[{"output_tokens":5}]})");
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions",
                R"({"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[]})");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 200);
    EXPECT_EQ(client.header("content-type"), "text/event-stream");
    EXPECT_TRUE(client.isComplete());
    const QList<QByteArray> events = client.sseData();
    ASSERT_EQ(events.size(), 8);  // 5 content, finish, usage, [DONE]
    QString text;
    for (int i = 0; i < 5; ++i) {
        const QJsonObject chunk = json(events[i]);
        EXPECT_EQ(chunk["object"].toString(), u"chat.completion.chunk");
        EXPECT_EQ(chunk["model"].toString(), u"m1");
        text += chunk["choices"][0]["delta"]["content"].toString();
    }
    EXPECT_EQ(text.split(' ').size(), 5);
    EXPECT_EQ(json(events[5])["choices"][0]["finish_reason"].toString(), u"stop");
    const QJsonObject usage = json(events[6]);
    EXPECT_TRUE(usage["choices"].toArray().isEmpty());
    EXPECT_EQ(usage["usage"]["completion_tokens"].toInt(), 5);
    EXPECT_EQ(usage["usage"]["total_tokens"].toInt(), 6);
    EXPECT_EQ(events[7], "[DONE]");
}

TEST_F(SimServerTest, StreamWithoutIncludeUsageHasNoUsageChunk)
{
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", R"({"model":"m1","stream":true,"messages":[]})");
    ASSERT_TRUE(client.waitForEnd());
    const QList<QByteArray> events = client.sseData();
    ASSERT_EQ(events.size(), 18);  // 16 content, finish, [DONE]
    EXPECT_FALSE(client.body().contains("\"usage\""));
    EXPECT_EQ(events.last(), "[DONE]");
}

TEST_F(SimServerTest, ModelsListsTheConfiguredModelsPerProvider)
{
    putRules(R"({"models":["m1","m2"],"providers":{"yandex":["y1"]},"rules":[]})");
    RawHttpClient cloudru(port), yandex(port), bare(port);
    cloudru.send("GET", "/cloudru/v1/models");
    yandex.send("GET", "/yandex/v1/models");
    bare.send("GET", "/v1/models");
    ASSERT_TRUE(cloudru.waitForEnd() && yandex.waitForEnd() && bare.waitForEnd());
    const QJsonObject list = json(cloudru.body());
    EXPECT_EQ(list["object"].toString(), u"list");
    ASSERT_EQ(list["data"].toArray().size(), 2);
    EXPECT_EQ(list["data"][0]["id"].toString(), u"m1");
    EXPECT_EQ(list["data"][0]["owned_by"].toString(), u"cloudru");
    EXPECT_EQ(json(yandex.body())["data"][0]["id"].toString(), u"y1");
    EXPECT_EQ(json(bare.body())["data"].toArray().size(), 2);
}

TEST_F(SimServerTest, ProviderPrefixSelectsTheProvidersRules)
{
    putRules(R"({"rules":[{"provider":"cloudru","failure":"status:503"},
                           {"provider":"yandex","model":"m1","failure":"status:429","retry_after_s":7}]})");
    EXPECT_EQ(chat("/cloudru/v1/chat/completions", "m1"), 503);
    EXPECT_EQ(chat("/yandex/v1/chat/completions", "m1"), 429);
    EXPECT_EQ(chat("/yandex/v1/chat/completions", "m2"), 200);
    EXPECT_EQ(chat("/v1/chat/completions", "m1"), 200);
    const QJsonObject stats = getStats();
    EXPECT_EQ(stats["providers"]["cloudru"].toInt(), 1);
    EXPECT_EQ(stats["providers"]["yandex"].toInt(), 2);
    EXPECT_EQ(stats["providers"]["default"].toInt(), 1);
    EXPECT_EQ(stats["provider_models"]["yandex"]["m2"].toInt(), 1);
    EXPECT_EQ(stats["failures"]["status:503"].toInt(), 1);
}

TEST_F(SimServerTest, InvalidBodyIsAnOpenAi400)
{
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", "{\"messages\":[]}");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 400);
    EXPECT_EQ(json(client.body())["error"]["type"].toString(), u"invalid_request_error");
}

TEST_F(SimServerTest, UnknownPathIsAnOpenAi404)
{
    RawHttpClient client(port);
    client.send("GET", "/cloudru/v1/nothing");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 404);
    EXPECT_TRUE(json(client.body())["error"]["message"].isString());
}

TEST_F(SimServerTest, LatencyDelaysTheHeaders)
{
    putRules(R"({"rules":[{"latency_ms":150}]})");
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", R"({"model":"m","messages":[]})");
    ASSERT_TRUE(client.waitForEnd());
    EXPECT_EQ(client.status(), 200);
    EXPECT_GE(*client.msToHeaders(), 140);
}

TEST_F(SimServerTest, TtftDelaysTheFirstChunkAndTokensArePaced)
{
    putRules(R"({"rules":[{"ttft_ms":200,"tokens_per_s":40,"output_tokens":5}]})");
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", R"({"model":"m","stream":true,"messages":[]})");
    ASSERT_TRUE(client.waitForHeaders());
    EXPECT_TRUE(client.body().isEmpty());
    ASSERT_TRUE(client.waitForEnd());
    ASSERT_TRUE(client.msToFirstBodyByte());
    EXPECT_GE(*client.msToFirstBodyByte() - *client.msToHeaders(), 190);
    EXPECT_EQ(client.sseData().size(), 7);
    ASSERT_TRUE(client.msToComplete());
    EXPECT_GE(*client.msToComplete(), 200 + 4 * 25 - 10);  // four more chunks at 25 ms each
}

TEST_F(SimServerTest, ClientLeavingMidStreamStopsTheExchange)
{
    putRules(R"({"rules":[{"tokens_per_s":20,"output_tokens":100}]})");
    auto client = std::make_unique<RawHttpClient>(port);
    client->send("POST", "/v1/chat/completions", R"({"model":"m","stream":true,"messages":[]})");
    ASSERT_TRUE(client->waitForBody(1));
    EXPECT_EQ(server->stats().inFlight(), 1);
    client->close();
    client.reset();
    EXPECT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 0; }, 5s));
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 200);
}

TEST_F(SimServerTest, ClientLeavingDuringLatencyEndsTheExchange)
{
    putRules(R"({"rules":[{"latency_ms":60000}]})");
    auto client = std::make_unique<RawHttpClient>(port);
    client->send("POST", "/v1/chat/completions", R"({"model":"m","messages":[]})");
    ASSERT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 1; }, 5s));
    client.reset();
    EXPECT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 0; }, 5s));
}

TEST_F(SimServerTest, DefaultProviderRuleAppliesToTheBarePathOnly)
{
    putRules(R"({"rules":[{"provider":"default","failure":"status:500"}]})");
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 500);
    EXPECT_EQ(chat("/cloudru/v1/chat/completions", "m"), 200);
}

TEST_F(SimServerTest, ManyConcurrentStreamsAllComplete)
{
    putRules(R"({"rules":[{"ttft_ms":50,"tokens_per_s":200,"output_tokens":10}]})");
    std::vector<std::unique_ptr<RawHttpClient>> clients;
    for (int i = 0; i < 100; ++i) {
        clients.push_back(std::make_unique<RawHttpClient>(port));
        clients.back()->send("POST", "/v1/chat/completions", R"({"model":"m","stream":true,"messages":[]})");
    }
    EXPECT_TRUE(sy::test::waitUntil([&] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->isComplete() || c->isClosed(); });
    }, 20s));
    for (const auto &client : clients) {
        EXPECT_TRUE(client->isComplete());
        EXPECT_EQ(client->sseData().size(), 12);
    }
    EXPECT_EQ(server->stats().requests(), 100);
    EXPECT_EQ(server->stats().inFlight(), 0);
}

} // namespace
} // namespace sy::sim::test
