// Cross-format routing end to end (SPEC §2, §4, §5, §8, §9): OpenAI and Anthropic clients served by
// OpenAI- and Anthropic-format channels, plain and streamed, with failover between the formats,
// refusals of bad /v1/messages input before any upstream call, a stream broken after its first
// event, and one ledger charge per answered request at the serving channel's price.
//
// The fixture's workspace gains channel "delta" (format anthropic) beside "alpha" (openai), both
// serving acme/chat-a; `provider.only` pins a request to one of them. The gateway's real upstream
// client is wrapped to keep a copy of every request it sends, so a test sees the upstream bytes.
#include "GatewayFixture.h"

#include "billing/Ledger.h"
#include "upstream/CurlUpstreamClient.h"

#include <cmath>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

constexpr char kAnthropicChannel[] = "delta";
constexpr char kOpenAiChannel[] = "alpha";
const config::Price kDeltaPrice{5.0, 6.0};
const config::Price kAlphaPrice{1.0, 2.0};  // the fixture's alpha price for acme/chat-a

// The production libcurl client, keeping a copy of each request as sent (URL and body bytes).
// Thread: the gateway thread, as the wrapped client.
class CapturingUpstream final : public upstream::UpstreamClient {
public:
    explicit CapturingUpstream(std::vector<upstream::UpstreamRequest> *sent) : m_sent(sent) {}
    upstream::TransferId send(upstream::UpstreamRequest request, upstream::StreamHandler *handler) override
    {
        m_sent->push_back(request);
        return m_real.send(std::move(request), handler);
    }
    void cancel(upstream::TransferId id) override { m_real.cancel(id); }
    int activeTransfers() const override { return m_real.activeTransfers(); }

private:
    std::vector<upstream::UpstreamRequest> *m_sent;  // owned by the test
    upstream::CurlUpstreamClient m_real;
};

// The `event:` names of an SSE body, in order.
QStringList eventNames(const QByteArray &body)
{
    QStringList names;
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith("event:"))
            names.append(QString::fromUtf8(line.mid(6).trimmed()));
    }
    return names;
}

QJsonObject only(const char *channelId) { return QJsonObject{{"only", QJsonArray{channelId}}}; }

QJsonObject userText(const QString &text) { return QJsonObject{{"role", "user"}, {"content", text}}; }

// An Anthropic Messages body for acme/chat-a; `extra` fields are merged in (and win).
QByteArray messagesBody(const QJsonObject &extra = {})
{
    QJsonObject body{{"model", kModelA}, {"max_tokens", 256}, {"messages", QJsonArray{userText("Say hello to the switchyard.")}}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// Usage × price in nanos (prices are per 1M tokens), worked out here rather than with billing::Pricing.
billing::Nanos charge(qint64 prompt, qint64 completion, const config::Price &price)
{
    return std::llround(double(prompt) * price.prompt * 1000.0) + std::llround(double(completion) * price.completion * 1000.0);
}

class CrossFormatTest : public GatewayFixture {
protected:
    config::Config crossConfig() const
    {
        config::Config config = baseConfig();
        config.balance = 10.0;
        config.models[0].capabilities = {"chat", "tools"};  // acme/chat-a: no vision
        config::Channel delta = config.channels.front();
        delta.id = kAnthropicChannel;
        delta.provider = kAnthropicChannel;
        delta.format = QStringLiteral("anthropic");
        delta.baseUrl = simBaseUrl(kAnthropicChannel);
        delta.credentials = {QStringLiteral("sk-test-upstream-delta")};
        delta.models = {config::ChannelModel{kModelA, "chat-a-up", kDeltaPrice}};
        config.channels.push_back(delta);
        return config;
    }

    void startCross() { startGateway(crossConfig(), std::make_unique<CapturingUpstream>(&sent)); }

    std::unique_ptr<GatewayClient> messages(const QByteArray &body, RequestHeaders headers = {})
    {
        return call("POST", "/v1/messages", body, std::move(headers));
    }

    // The error object of an Anthropic-shaped error body; fails the test when `type` differs.
    static QJsonObject anthropicError(const GatewayClient &client, const QString &type)
    {
        const QJsonObject body = client.json();
        EXPECT_EQ(body.value("type").toString(), "error") << client.body().constData();
        const QJsonObject error = body.value("error").toObject();
        EXPECT_EQ(error.value("type").toString(), type) << client.body().constData();
        return error;
    }

    billing::Ledger &ledger() { return gateway->state().ledger; }

    // Waits (bounded) for `count` ledger entries, then a little longer to see that no more come.
    bool ledgerSettlesAt(size_t count)
    {
        const bool reached = test::waitUntil([&] { return ledger().entries().size() >= count; }, 3s);
        test::processEventsFor(50ms);
        return reached && ledger().entries().size() == count;
    }

    std::vector<upstream::UpstreamRequest> sent;
};

TEST_F(CrossFormatTest, OpenAiClientIsServedByAnAnthropicChannelPlainAndStreamed)
{
    startCross();
    const auto plain = chat(chatBody(kModelA, {{"provider", only(kAnthropicChannel)}}));
    ASSERT_EQ(plain->status(), 200) << plain->body().constData();
    EXPECT_EQ(plain->header("x-tsarrouter-provider"), kAnthropicChannel);
    const QJsonObject completion = plain->json();
    EXPECT_EQ(completion.value("object").toString(), "chat.completion");
    EXPECT_EQ(completion.value("model").toString(), kModelA);
    const QJsonObject choice = completion.value("choices").toArray().at(0).toObject();
    EXPECT_FALSE(choice.value("message").toObject().value("content").toString().isEmpty()) << plain->body().constData();
    EXPECT_EQ(choice.value("finish_reason").toString(), "stop");
    EXPECT_GT(completion.value("usage").toObject().value("completion_tokens").toInt(), 0);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_TRUE(sent[0].url.endsWith("/delta/v1/messages")) << sent[0].url.constData();

    const auto stream = chat(streamBody(kModelA, {{"provider", only(kAnthropicChannel)},
                                                  {"stream_options", QJsonObject{{"include_usage", true}}}}));
    ASSERT_EQ(stream->status(), 200) << stream->body().constData();
    EXPECT_TRUE(eventNames(stream->body()).isEmpty()) << "Anthropic event names leaked: " << stream->body().constData();
    const QList<QByteArray> data = stream->sseData();
    ASSERT_GE(data.size(), 3) << stream->body().constData();
    EXPECT_EQ(data.last(), "[DONE]");
    QString text;
    bool usageSeen = false;
    for (qsizetype i = 0; i + 1 < data.size(); ++i) {
        const QJsonObject chunk = QJsonDocument::fromJson(data[i]).object();
        EXPECT_EQ(chunk.value("object").toString(), "chat.completion.chunk") << data[i].constData();
        const QJsonArray choices = chunk.value("choices").toArray();
        if (!choices.isEmpty())
            text += choices.at(0).toObject().value("delta").toObject().value("content").toString();
        usageSeen = usageSeen || chunk.value("usage").toObject().value("completion_tokens").toInt() > 0;
    }
    EXPECT_FALSE(text.isEmpty());
    EXPECT_TRUE(usageSeen) << stream->body().constData();
    EXPECT_EQ(hits(kAnthropicChannel), 2);
}

TEST_F(CrossFormatTest, AnthropicClientIsServedByAnOpenAiChannelPlainAndStreamed)
{
    startCross();
    const auto plain = messages(messagesBody({{"provider", only(kOpenAiChannel)}}));
    ASSERT_EQ(plain->status(), 200) << plain->body().constData();
    EXPECT_EQ(plain->header("x-tsarrouter-provider"), kOpenAiChannel);
    const QJsonObject message = plain->json();
    EXPECT_EQ(message.value("type").toString(), "message");
    EXPECT_EQ(message.value("role").toString(), "assistant");
    EXPECT_EQ(message.value("model").toString(), kModelA);
    EXPECT_EQ(message.value("stop_reason").toString(), "end_turn");
    const QJsonObject block = message.value("content").toArray().at(0).toObject();
    EXPECT_EQ(block.value("type").toString(), "text");
    EXPECT_FALSE(block.value("text").toString().isEmpty());
    EXPECT_GT(message.value("usage").toObject().value("output_tokens").toInt(), 0);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_TRUE(sent[0].url.endsWith("/alpha/v1/chat/completions")) << sent[0].url.constData();

    const auto stream = messages(messagesBody({{"provider", only(kOpenAiChannel)}, {"stream", true}}));
    ASSERT_EQ(stream->status(), 200) << stream->body().constData();
    QStringList events = eventNames(stream->body());
    events.removeAll("ping");  // keep-alive, allowed anywhere
    ASSERT_GE(events.size(), 5) << stream->body().constData();
    EXPECT_EQ(events.first(), "message_start");
    EXPECT_EQ(events.at(1), "content_block_start");
    EXPECT_TRUE(events.contains("content_block_delta"));
    EXPECT_EQ(events.at(events.size() - 2), "message_delta");
    EXPECT_EQ(events.last(), "message_stop");
    EXPECT_FALSE(stream->body().contains("[DONE]"));
    EXPECT_EQ(hits(kOpenAiChannel), 2);
}

TEST_F(CrossFormatTest, AnthropicClientOnAnAnthropicChannelKeepsTheRequestBytes)
{
    startCross();
    const QJsonObject unknown{{"x_switchyard_unknown", QJsonObject{{"kept", true}}}};
    for (const bool streamed : {false, true}) {
        QJsonObject extra = unknown;
        extra.insert("provider", only(kAnthropicChannel));
        extra.insert("stream", streamed);
        const auto client = messages(messagesBody(extra));
        ASSERT_EQ(client->status(), 200) << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), kAnthropicChannel);
        ASSERT_FALSE(sent.empty());
        const upstream::UpstreamRequest &upstream = sent.back();
        EXPECT_TRUE(upstream.url.endsWith("/delta/v1/messages")) << upstream.url.constData();
        const QJsonObject forwarded = QJsonDocument::fromJson(upstream.body).object();
        EXPECT_EQ(forwarded.value("x_switchyard_unknown").toObject(), unknown.value("x_switchyard_unknown").toObject())
            << upstream.body.constData();
        EXPECT_EQ(forwarded.value("model").toString(), "chat-a-up") << upstream.body.constData();
        if (streamed) {
            const QStringList events = eventNames(client->body());
            ASSERT_FALSE(events.isEmpty()) << client->body().constData();
            EXPECT_EQ(events.first(), "message_start");
            EXPECT_TRUE(events.contains("ping"));
            EXPECT_EQ(events.last(), "message_stop");
        } else {
            EXPECT_EQ(client->json().value("model").toString(), kModelA) << client->body().constData();
        }
    }
    EXPECT_EQ(sent.size(), 2u);
}

TEST_F(CrossFormatTest, OverloadedAnthropicChannelFailsOverToAnOpenAiOneOnBothRoutes)
{
    addRule(R"({"provider":"delta","failure":"status:529"})");
    const QJsonObject order{{"order", QJsonArray{kAnthropicChannel, kOpenAiChannel}}, {"allow_fallbacks", false}};
    const std::vector<std::pair<QByteArray, QByteArray>> requests{
        {"/v1/chat/completions", chatBody(kModelA, {{"provider", order}})},
        {"/v1/chat/completions", streamBody(kModelA, {{"provider", order}})},
        {"/v1/messages", messagesBody({{"provider", order}})},
        {"/v1/messages", messagesBody({{"provider", order}, {"stream", true}})},
    };
    for (const auto &[path, body] : requests) {
        // A fresh gateway each time: the failures of the request before would already have
        // moved delta out of rotation (SPEC §3.5, §4 health), and this test is about failover.
        gateway.reset();
        startCross();
        const auto client = call("POST", path, body);
        ASSERT_EQ(client->status(), 200) << path.constData() << ' ' << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), kOpenAiChannel);
        const QJsonArray tried = attempts(*client);
        const QStringList providers = attemptProviders(tried);
        ASSERT_GE(providers.size(), 2) << path.constData() << ' ' << body.constData() << ' '
                                       << client->header("x-tsarrouter-attempts").constData();
        EXPECT_EQ(providers.first(), kAnthropicChannel);
        EXPECT_EQ(providers.last(), kOpenAiChannel);
        const QStringList statuses = attemptStatuses(tried);
        EXPECT_EQ(statuses.first(), "error");
        EXPECT_EQ(statuses.last(), "ok");
    }
    EXPECT_GE(hits(kAnthropicChannel), 4);
    EXPECT_EQ(hits(kOpenAiChannel), 4);
}

TEST_F(CrossFormatTest, ClaudeCodeShapedRequestStreamsThroughBothChannelFormats)
{
    startCross();
    const QJsonArray system{
        QJsonObject{{"type", "text"}, {"text", "You are a coding assistant."}},
        QJsonObject{{"type", "text"}, {"text", "Project notes."}, {"cache_control", QJsonObject{{"type", "ephemeral"}}}},
    };
    const QJsonArray tools{QJsonObject{
        {"name", "Read"},
        {"description", "Reads a file"},
        {"input_schema", QJsonObject{{"type", "object"}, {"properties", QJsonObject{{"file_path", QJsonObject{{"type", "string"}}}}}}},
    }};
    const QJsonArray turns{QJsonObject{{"role", "user"}, {"content", QJsonArray{
        QJsonObject{{"type", "text"}, {"text", "Read main.cpp"}, {"cache_control", QJsonObject{{"type", "ephemeral"}}}}}}}};
    for (const char *channelId : {kAnthropicChannel, kOpenAiChannel}) {
        const auto client = messages(messagesBody({{"system", system}, {"tools", tools}, {"messages", turns},
                                                   {"max_tokens", 8192},
                                                   {"thinking", QJsonObject{{"type", "enabled"}, {"budget_tokens", 1024}}},
                                                   {"metadata", QJsonObject{{"user_id", "user_sk-test-session"}}},
                                                   {"stream", true}, {"provider", only(channelId)}}),
                                     {{"anthropic-version", "2023-06-01"}, {"anthropic-beta", "interleaved-thinking-2025-05-14"}});
        ASSERT_EQ(client->status(), 200) << channelId << ' ' << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), channelId);
        const QStringList events = eventNames(client->body());
        ASSERT_FALSE(events.isEmpty()) << client->body().constData();
        EXPECT_EQ(events.first(), "message_start") << channelId;
        EXPECT_EQ(events.last(), "message_stop") << channelId;
        EXPECT_TRUE(client->body().contains(R"("type":"tool_use")")) << channelId << ' ' << client->body().constData();
        EXPECT_TRUE(client->body().contains(R"("name":"Read")")) << channelId << ' ' << client->body().constData();
        EXPECT_TRUE(client->body().contains(R"("stop_reason":"tool_use")")) << channelId << ' ' << client->body().constData();
    }
    EXPECT_EQ(hits(kAnthropicChannel), 1);
    EXPECT_EQ(hits(kOpenAiChannel), 1);
}

TEST_F(CrossFormatTest, BadMessagesInputIs400InAnthropicShapeWithoutUpstreamCallOrCharge)
{
    startCross();
    const QJsonObject pinned{{"provider", only(kAnthropicChannel)}};
    const auto withMessages = [&](const QJsonArray &turns) {
        QJsonObject extra = pinned;
        extra.insert("messages", turns);
        return messagesBody(extra);
    };
    QJsonObject noMaxTokens = QJsonDocument::fromJson(messagesBody(pinned)).object();
    noMaxTokens.remove("max_tokens");
    const std::vector<std::pair<QByteArray, QString>> cases{
        {withMessages({QJsonObject{{"role", "user"}, {"content", QJsonArray{QJsonObject{{"type", "hologram"}, {"text", "hi"}}}}}}),
         "messages.0.content.0.type"},
        {QJsonDocument(noMaxTokens).toJson(QJsonDocument::Compact), "max_tokens"},
        {withMessages({QJsonObject{{"role", "user"}, {"content", QJsonArray{QJsonObject{
             {"type", "tool_result"}, {"tool_use_id", "toolu_missing"}, {"content", "42"}}}}}}),
         "messages.0.content.0.tool_use_id"},
        {withMessages({QJsonObject{{"role", "user"}, {"content", QJsonArray{
             QJsonObject{{"type", "image"}, {"source", QJsonObject{{"type", "base64"}, {"media_type", "image/png"}, {"data", "iVBORw0KGgo="}}}},
             QJsonObject{{"type", "text"}, {"text", "What is this?"}}}}}}),
         "image"},
    };
    for (const auto &[body, field] : cases) {
        for (const bool streamed : {false, true}) {
            QJsonObject request = QJsonDocument::fromJson(body).object();
            request.insert("stream", streamed);
            const auto client = messages(QJsonDocument(request).toJson(QJsonDocument::Compact));
            ASSERT_EQ(client->status(), 400) << qPrintable(field) << ' ' << client->body().constData();
            EXPECT_TRUE(client->header("content-type").startsWith("application/json")) << qPrintable(field);
            const QJsonObject error = anthropicError(*client, "invalid_request_error");
            EXPECT_TRUE(error.value("message").toString().contains(field)) << qPrintable(field) << ' ' << client->body().constData();
        }
    }
    EXPECT_EQ(sim->stats().requests(), 0);
    EXPECT_TRUE(sent.empty());
    test::processEventsFor(50ms);
    EXPECT_TRUE(ledger().entries().empty());
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

TEST_F(CrossFormatTest, StreamBrokenAfterItsFirstEventEndsWithAnErrorEventAndNoMessageStop)
{
    startCross();
    for (const char *failure : {"drop_mid_stream", "error_mid_stream"}) {
        for (const char *channelId : {kAnthropicChannel, kOpenAiChannel}) {
            addRule(QByteArray(R"({"provider":")") + channelId + R"(","failure":")" + failure + R"("})");
            const auto client = messages(messagesBody({{"provider", only(channelId)}, {"stream", true}}));
            ASSERT_EQ(client->status(), 200) << failure << ' ' << channelId << ' ' << client->body().constData();
            const QStringList events = eventNames(client->body());
            ASSERT_FALSE(events.isEmpty()) << failure << ' ' << channelId;
            EXPECT_EQ(events.first(), "message_start") << failure << ' ' << channelId;
            EXPECT_TRUE(events.contains("content_block_delta")) << failure << ' ' << channelId << ' ' << client->body().constData();
            EXPECT_EQ(events.last(), "error") << failure << ' ' << channelId << ' ' << client->body().constData();
            EXPECT_FALSE(events.contains("message_stop")) << failure << ' ' << channelId;
            EXPECT_EQ(attemptProviders(attempts(*client)), QStringList{channelId}) << "a pinned stream never fails over";
            sim->state().rules.clear();
        }
    }
}

TEST_F(CrossFormatTest, EachAnsweredRequestIsChargedOnceAtTheServingChannelsPriceOnBothRoutes)
{
    startCross();
    struct Case {
        QByteArray path;
        QByteArray body;
        const char *channel;
        config::Price price;
    };
    const std::vector<Case> cases{
        {"/v1/chat/completions", chatBody(kModelA, {{"provider", only(kAnthropicChannel)}}), kAnthropicChannel, kDeltaPrice},
        {"/v1/chat/completions", chatBody(kModelA, {{"provider", only(kOpenAiChannel)}}), kOpenAiChannel, kAlphaPrice},
        {"/v1/messages", messagesBody({{"provider", only(kAnthropicChannel)}}), kAnthropicChannel, kDeltaPrice},
        {"/v1/messages", messagesBody({{"provider", only(kOpenAiChannel)}}), kOpenAiChannel, kAlphaPrice},
    };
    for (const Case &c : cases) {
        const size_t before = ledger().entries().size();
        const auto client = call("POST", c.path, c.body);
        ASSERT_EQ(client->status(), 200) << c.path.constData() << ' ' << client->body().constData();
        const QJsonObject usage = client->json().value("usage").toObject();
        const bool openAi = c.path == "/v1/chat/completions";
        const qint64 prompt = usage.value(openAi ? "prompt_tokens" : "input_tokens").toInteger();
        const qint64 completion = usage.value(openAi ? "completion_tokens" : "output_tokens").toInteger();
        ASSERT_GT(prompt, 0) << client->body().constData();
        ASSERT_GT(completion, 0) << client->body().constData();
        ASSERT_TRUE(ledgerSettlesAt(before + 1)) << c.path.constData() << " via " << c.channel << ": "
                                                 << ledger().entries().size() - before << " entries";
        const billing::LedgerEntry &entry = ledger().entries().back();
        EXPECT_EQ(entry.kind, billing::LedgerEntry::Kind::Charge);
        EXPECT_EQ(entry.channelId, c.channel);
        EXPECT_EQ(entry.modelId, kModelA);
        EXPECT_EQ(entry.requestId.toLatin1(), client->header("x-request-id"));
        EXPECT_EQ(entry.promptTokens, prompt) << c.path.constData() << " via " << c.channel;
        EXPECT_EQ(entry.completionTokens, completion) << c.path.constData() << " via " << c.channel;
        EXPECT_EQ(entry.amount, charge(prompt, completion, c.price)) << c.path.constData() << " via " << c.channel;
    }
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

} // namespace
} // namespace sy::integration
