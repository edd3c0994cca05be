// The Gemini format end to end (SPEC §2, §4, §5, §8, §9): Gemini clients served by OpenAI-,
// Anthropic- and Gemini-format channels, plain and streamed in both framings (SSE with alt=sse, a
// JSON array without); OpenAI and Anthropic clients served by a gemini channel; failover from a
// gemini channel answering 429 RESOURCE_EXHAUSTED to another format; refusals of bad input in
// Gemini's shape before any upstream call; a stream broken after it began; one ledger charge per
// answered request at the serving channel's price.
//
// The fixture's workspace gains "delta" (format anthropic) and "epsilon" (format gemini) beside
// "alpha" (openai), all serving acme/chat-a; `provider.only` pins a request to one of them. The
// gateway's real upstream client is wrapped to keep a copy of every request it sends.
#include "GatewayFixture.h"

#include "billing/Ledger.h"
#include "upstream/CurlUpstreamClient.h"

#include <cmath>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

constexpr char kOpenAiChannel[] = "alpha";
constexpr char kAnthropicChannel[] = "delta";
constexpr char kGeminiChannel[] = "epsilon";
const config::Price kAlphaPrice{1.0, 2.0};  // the fixture's alpha price for acme/chat-a
const config::Price kDeltaPrice{5.0, 6.0};
const config::Price kEpsilonPrice{7.0, 9.0};

// The model route with the public id written plainly (its '/' kept).
const QByteArray kGenerate = "/v1beta/models/acme/chat-a:generateContent";
const QByteArray kStreamSse = "/v1beta/models/acme/chat-a:streamGenerateContent?alt=sse";
const QByteArray kStreamArray = "/v1beta/models/acme/chat-a:streamGenerateContent";

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

QJsonObject only(const char *channelId) { return QJsonObject{{"only", QJsonArray{channelId}}}; }

// A GenerateContentRequest with one user turn; `extra` members are merged in (and win).
QByteArray geminiBody(const QJsonObject &extra = {})
{
    QJsonObject body{{"contents", QJsonArray{QJsonObject{{"role", "user"}, {"parts", QJsonArray{QJsonObject{{"text", "Say hello to the switchyard."}}}}}}},
                     {"generationConfig", QJsonObject{{"maxOutputTokens", 256}}}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// The chunks of a Gemini stream in either framing; fails the test on anything else.
QList<QJsonObject> streamChunks(const QByteArray &body, bool jsonArray)
{
    QList<QJsonObject> out;
    if (jsonArray) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
        EXPECT_TRUE(doc.isArray()) << error.errorString().toStdString() << ": " << body.constData();
        for (const QJsonValue &value : doc.array())
            out.append(value.toObject());
        return out;
    }
    for (const QByteArray &line : body.split('\n')) {
        const QByteArray trimmed = line.trimmed();
        if (trimmed.isEmpty())
            continue;
        EXPECT_TRUE(trimmed.startsWith("data: ")) << body.constData();
        const QJsonDocument doc = QJsonDocument::fromJson(trimmed.mid(6));
        EXPECT_TRUE(doc.isObject()) << trimmed.constData();
        out.append(doc.object());
    }
    return out;
}

QJsonObject firstCandidate(const QJsonObject &response) { return response.value("candidates").toArray().at(0).toObject(); }

QString textOf(const QJsonObject &response)
{
    QString text;
    for (const QJsonValue &part : firstCandidate(response).value("content").toObject().value("parts").toArray())
        text += part.toObject().value("text").toString();
    return text;
}

billing::Nanos charge(qint64 prompt, qint64 completion, const config::Price &price)
{
    return std::llround(double(prompt) * price.prompt * 1000.0) + std::llround(double(completion) * price.completion * 1000.0);
}

class GeminiFormatTest : public GatewayFixture {
protected:
    config::Config geminiConfig() const
    {
        config::Config config = baseConfig();
        config.balance = 10.0;
        config.models[0].capabilities = {"chat", "tools"};
        const auto addChannel = [&](const char *id, const char *format, const QString &baseUrl, const config::Price &price) {
            config::Channel channel = config.channels.front();
            channel.id = id;
            channel.provider = id;
            channel.format = QString::fromLatin1(format);
            channel.baseUrl = baseUrl;
            channel.credentials = {QStringLiteral("sk-test-upstream-") + id};
            channel.models = {config::ChannelModel{kModelA, "chat-a-up", price}};
            config.channels.push_back(channel);
        };
        addChannel(kAnthropicChannel, "anthropic", simBaseUrl(kAnthropicChannel), kDeltaPrice);
        addChannel(kGeminiChannel, "gemini", simBaseUrl(kGeminiChannel) + QStringLiteral("beta"), kEpsilonPrice);
        return config;
    }

    void start() { startGateway(geminiConfig(), std::make_unique<CapturingUpstream>(&sent)); }

    billing::Ledger &ledger() { return gateway->state().ledger; }

    bool ledgerSettlesAt(size_t count)
    {
        const bool reached = test::waitUntil([&] { return ledger().entries().size() >= count; }, 3s);
        test::processEventsFor(50ms);
        return reached && ledger().entries().size() == count;
    }

    // Checks a plain Gemini answer from any channel.
    static void expectGeminiAnswer(const GatewayClient &client)
    {
        const QJsonObject body = client.json();
        EXPECT_EQ(body.value("modelVersion").toString(), kModelA) << client.body().constData();
        EXPECT_FALSE(textOf(body).isEmpty()) << client.body().constData();
        EXPECT_EQ(firstCandidate(body).value("finishReason").toString(), "STOP") << client.body().constData();
        EXPECT_EQ(firstCandidate(body).value("content").toObject().value("role").toString(), "model");
        const QJsonObject usage = body.value("usageMetadata").toObject();
        EXPECT_GT(usage.value("promptTokenCount").toInt(), 0) << client.body().constData();
        EXPECT_GT(usage.value("candidatesTokenCount").toInt(), 0) << client.body().constData();
    }

    // Checks a streamed Gemini answer: text chunks, the last one with finishReason and usage.
    static void expectGeminiStream(const GatewayClient &client, bool jsonArray)
    {
        EXPECT_TRUE(client.header("content-type").startsWith(jsonArray ? "application/json" : "text/event-stream"))
            << client.header("content-type").constData();
        const QList<QJsonObject> chunks = streamChunks(client.body(), jsonArray);
        ASSERT_GE(chunks.size(), 2) << client.body().constData();
        QString text;
        for (const QJsonObject &chunk : chunks) {
            EXPECT_EQ(chunk.value("modelVersion").toString(), kModelA) << client.body().constData();
            EXPECT_FALSE(chunk.contains("error")) << client.body().constData();
            text += textOf(chunk);
        }
        EXPECT_FALSE(text.isEmpty()) << client.body().constData();
        EXPECT_EQ(firstCandidate(chunks.last()).value("finishReason").toString(), "STOP") << client.body().constData();
        EXPECT_GT(chunks.last().value("usageMetadata").toObject().value("candidatesTokenCount").toInt(), 0)
            << client.body().constData();
    }

    std::vector<upstream::UpstreamRequest> sent;
};

TEST_F(GeminiFormatTest, GeminiClientIsServedByEveryChannelFormatPlainAndInBothStreamFramings)
{
    start();
    const std::vector<std::pair<const char *, QByteArray>> channels{
        {kOpenAiChannel, "/alpha/v1/chat/completions"},
        {kAnthropicChannel, "/delta/v1/messages"},
        {kGeminiChannel, "/epsilon/v1beta/models/chat-a-up:"},
    };
    for (const auto &[channelId, upstreamPath] : channels) {
        SCOPED_TRACE(channelId);
        const auto plain = call("POST", kGenerate, geminiBody({{"provider", only(channelId)}}));
        ASSERT_EQ(plain->status(), 200) << plain->body().constData();
        EXPECT_EQ(plain->header("x-tsarrouter-provider"), channelId);
        expectGeminiAnswer(*plain);
        ASSERT_FALSE(sent.empty());
        EXPECT_TRUE(sent.back().url.contains(upstreamPath)) << sent.back().url.constData();

        for (const bool jsonArray : {false, true}) {
            SCOPED_TRACE(jsonArray ? "json array" : "sse");
            const auto stream = call("POST", jsonArray ? kStreamArray : kStreamSse, geminiBody({{"provider", only(channelId)}}));
            ASSERT_EQ(stream->status(), 200) << stream->body().constData();
            EXPECT_EQ(stream->header("x-tsarrouter-provider"), channelId);
            expectGeminiStream(*stream, jsonArray);
            if (QByteArrayView(channelId) == kGeminiChannel) {
                EXPECT_TRUE(sent.back().url.endsWith("/epsilon/v1beta/models/chat-a-up:streamGenerateContent?alt=sse"))
                    << sent.back().url.constData();
            }
        }
    }
    EXPECT_EQ(hits(kOpenAiChannel), 3);
    EXPECT_EQ(hits(kAnthropicChannel), 3);
    EXPECT_EQ(hits(kGeminiChannel), 3);
}

TEST_F(GeminiFormatTest, GeminiClientOnAGeminiChannelKeepsTheBodyBytes)
{
    start();
    const QJsonArray safety{QJsonObject{{"category", "HARM_CATEGORY_HARASSMENT"}, {"threshold", "BLOCK_NONE"}}};
    const auto client = call("POST", kGenerate, geminiBody({{"provider", only(kGeminiChannel)}, {"safetySettings", safety},
                                                            {"cachedContent", "cachedContents/sk-test-cache"}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_EQ(sent.size(), 1u);
    const QJsonObject forwarded = QJsonDocument::fromJson(sent[0].body).object();
    EXPECT_EQ(forwarded.value("safetySettings").toArray(), safety) << sent[0].body.constData();
    EXPECT_EQ(forwarded.value("cachedContent").toString(), "cachedContents/sk-test-cache");
    EXPECT_FALSE(forwarded.contains("provider")) << sent[0].body.constData();
    EXPECT_TRUE(sent[0].url.endsWith("/epsilon/v1beta/models/chat-a-up:generateContent")) << sent[0].url.constData();
}

TEST_F(GeminiFormatTest, ModelIdWithASlashMayBeWrittenAsPercent2FAndTakesARoutingSuffix)
{
    start();
    for (const QByteArray &path : {QByteArray("/v1beta/models/acme%2Fchat-a:generateContent"),
                                  QByteArray("/v1beta/models/acme/chat-a:nitro:generateContent")}) {
        SCOPED_TRACE(path.toStdString());
        const auto client = call("POST", path, geminiBody({{"provider", only(kGeminiChannel)}}));
        ASSERT_EQ(client->status(), 200) << client->body().constData();
        EXPECT_EQ(client->json().value("modelVersion").toString(), kModelA);
    }
}

TEST_F(GeminiFormatTest, OpenAiAndAnthropicClientsAreServedByAGeminiChannel)
{
    start();
    const auto plain = chat(chatBody(kModelA, {{"provider", only(kGeminiChannel)}}));
    ASSERT_EQ(plain->status(), 200) << plain->body().constData();
    EXPECT_EQ(plain->header("x-tsarrouter-provider"), kGeminiChannel);
    const QJsonObject choice = plain->json().value("choices").toArray().at(0).toObject();
    EXPECT_FALSE(choice.value("message").toObject().value("content").toString().isEmpty()) << plain->body().constData();
    EXPECT_EQ(choice.value("finish_reason").toString(), "stop");
    EXPECT_EQ(plain->json().value("model").toString(), kModelA);
    ASSERT_FALSE(sent.empty());
    EXPECT_TRUE(sent.back().url.endsWith("/epsilon/v1beta/models/chat-a-up:generateContent")) << sent.back().url.constData();
    EXPECT_EQ(http::headerValue(sent.back().headers, "x-goog-api-key"), "sk-test-upstream-epsilon");

    const auto stream = chat(streamBody(kModelA, {{"provider", only(kGeminiChannel)},
                                                  {"stream_options", QJsonObject{{"include_usage", true}}}}));
    ASSERT_EQ(stream->status(), 200) << stream->body().constData();
    const QList<QByteArray> data = stream->sseData();
    ASSERT_GE(data.size(), 3) << stream->body().constData();
    EXPECT_EQ(data.last(), "[DONE]");
    QString text;
    for (qsizetype i = 0; i + 1 < data.size(); ++i) {
        const QJsonArray choices = QJsonDocument::fromJson(data[i]).object().value("choices").toArray();
        if (!choices.isEmpty())
            text += choices.at(0).toObject().value("delta").toObject().value("content").toString();
    }
    EXPECT_FALSE(text.isEmpty()) << stream->body().constData();

    const QByteArray messages = QJsonDocument(QJsonObject{
        {"model", kModelA}, {"max_tokens", 64}, {"stream", true}, {"provider", only(kGeminiChannel)},
        {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}}).toJson(QJsonDocument::Compact);
    const auto anthropic = call("POST", "/v1/messages", messages);
    ASSERT_EQ(anthropic->status(), 200) << anthropic->body().constData();
    EXPECT_TRUE(anthropic->body().startsWith("event: message_start")) << anthropic->body().constData();
    EXPECT_TRUE(anthropic->body().contains("event: content_block_delta")) << anthropic->body().constData();
    EXPECT_TRUE(anthropic->body().contains("event: message_stop")) << anthropic->body().constData();
    EXPECT_EQ(hits(kGeminiChannel), 3);
}

TEST_F(GeminiFormatTest, FunctionCallComesBackWholeOnEveryChannelFormat)
{
    start();
    const QJsonArray tools{QJsonObject{{"functionDeclarations", QJsonArray{QJsonObject{
        {"name", "get_weather"}, {"description", "Weather now"},
        {"parameters", QJsonObject{{"type", "OBJECT"}, {"properties", QJsonObject{{"city", QJsonObject{{"type", "STRING"}}}}}}}}}}}};
    for (const char *channelId : {kOpenAiChannel, kAnthropicChannel, kGeminiChannel}) {
        SCOPED_TRACE(channelId);
        const auto plain = call("POST", kGenerate, geminiBody({{"provider", only(channelId)}, {"tools", tools}}));
        ASSERT_EQ(plain->status(), 200) << plain->body().constData();
        const QJsonArray parts = firstCandidate(plain->json()).value("content").toObject().value("parts").toArray();
        bool called = false;
        for (const QJsonValue &part : parts)
            called = called || part.toObject().value("functionCall").toObject().value("name") == QLatin1String("get_weather");
        EXPECT_TRUE(called) << plain->body().constData();

        const auto stream = call("POST", kStreamSse, geminiBody({{"provider", only(channelId)}, {"tools", tools}}));
        ASSERT_EQ(stream->status(), 200) << stream->body().constData();
        EXPECT_TRUE(stream->body().contains(R"("functionCall":{)")) << stream->body().constData();
        EXPECT_FALSE(stream->body().contains("partial")) << stream->body().constData();
    }
}

TEST_F(GeminiFormatTest, GeminiChannelAnswering429ResourceExhaustedFailsOverToAnotherFormat)
{
    addRule(R"({"provider":"epsilon","failure":"status:429"})");
    const QJsonObject order{{"order", QJsonArray{kGeminiChannel, kOpenAiChannel}}, {"allow_fallbacks", false}};
    const std::vector<std::pair<QByteArray, QByteArray>> requests{
        {kGenerate, geminiBody({{"provider", order}})},
        {kStreamSse, geminiBody({{"provider", order}})},
        {kStreamArray, geminiBody({{"provider", order}})},
        {"/v1/chat/completions", chatBody(kModelA, {{"provider", order}})},
        {"/v1/chat/completions", streamBody(kModelA, {{"provider", order}})},
    };
    for (const auto &[path, body] : requests) {
        SCOPED_TRACE(path.toStdString());
        // A fresh gateway each time: the failures before would already have taken epsilon out of rotation.
        gateway.reset();
        sent.clear();
        start();
        const auto client = call("POST", path, body);
        ASSERT_EQ(client->status(), 200) << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), kOpenAiChannel);
        const QJsonArray tried = attempts(*client);
        const QStringList providers = attemptProviders(tried);
        ASSERT_GE(providers.size(), 2) << client->header("x-tsarrouter-attempts").constData();
        EXPECT_EQ(providers.first(), kGeminiChannel);
        EXPECT_EQ(providers.last(), kOpenAiChannel);
        EXPECT_EQ(attemptStatuses(tried).last(), "ok");
        EXPECT_FALSE(client->body().contains("RESOURCE_EXHAUSTED")) << client->body().constData();
    }
    EXPECT_GE(hits(kGeminiChannel), 5);
    EXPECT_EQ(hits(kOpenAiChannel), 5);
}

TEST_F(GeminiFormatTest, BadInputIs400InGeminiShapeWithoutUpstreamCallOrCharge)
{
    start();
    const auto withContents = [](const QJsonArray &contents) {
        return geminiBody({{"provider", only(kGeminiChannel)}, {"contents", contents}});
    };
    const QJsonObject userHi{{"role", "user"}, {"parts", QJsonArray{QJsonObject{{"text", "hi"}}}}};
    const std::vector<std::pair<QByteArray, QString>> cases{
        {withContents({userHi, userHi, QJsonObject{{"role", "user"}, {"parts", QJsonArray{QJsonObject{{"hologram", QJsonObject{}}}}}}}),
         "contents[2].parts[0]"},
        {withContents({QJsonObject{{"role", "user"}, {"parts", QJsonArray{QJsonObject{
             {"functionResponse", QJsonObject{{"name", "nobody_called"}, {"response", QJsonObject{}}}}}}}}}),
         "contents[0].parts[0].functionResponse"},
        {withContents({QJsonObject{{"role", "assistant"}, {"parts", QJsonArray{QJsonObject{{"text", "x"}}}}}}), "contents[0].role"},
        {geminiBody({{"provider", only(kGeminiChannel)}, {"generationConfig", QJsonObject{{"temperature", "hot"}}}}),
         "generationConfig.temperature"},
    };
    for (const auto &[body, field] : cases) {
        for (const QByteArray &path : {kGenerate, kStreamSse, kStreamArray}) {
            SCOPED_TRACE(field.toStdString() + " " + path.toStdString());
            const auto client = call("POST", path, body);
            ASSERT_EQ(client->status(), 400) << client->body().constData();
            EXPECT_TRUE(client->header("content-type").startsWith("application/json"));
            const QJsonObject error = client->json().value("error").toObject();
            EXPECT_EQ(error.value("code").toInt(), 400) << client->body().constData();
            EXPECT_EQ(error.value("status").toString(), "INVALID_ARGUMENT") << client->body().constData();
            EXPECT_TRUE(error.value("message").toString().startsWith(field)) << client->body().constData();
            const QJsonObject info = error.value("details").toArray().at(0).toObject();
            EXPECT_EQ(info.value("@type").toString(), "type.googleapis.com/google.rpc.ErrorInfo");
            EXPECT_FALSE(info.value("reason").toString().isEmpty()) << client->body().constData();
        }
    }
    EXPECT_EQ(sim->stats().requests(), 0);
    EXPECT_TRUE(sent.empty());
    test::processEventsFor(50ms);
    EXPECT_TRUE(ledger().entries().empty());
}

TEST_F(GeminiFormatTest, GatewayErrorsCarryTheirReason)
{
    start();
    const auto unknownModel = call("POST", "/v1beta/models/acme/nope:generateContent", geminiBody());
    EXPECT_EQ(unknownModel->status(), 400) << unknownModel->body().constData();
    const QJsonObject error = unknownModel->json().value("error").toObject();
    EXPECT_EQ(error.value("status").toString(), "INVALID_ARGUMENT");
    EXPECT_EQ(error.value("details").toArray().at(0).toObject().value("reason").toString(), "model_not_found")
        << unknownModel->body().constData();

    const auto unknownRoute = call("POST", "/v1beta/tunedModels/x:generateContent", geminiBody());
    EXPECT_EQ(unknownRoute->status(), 404) << unknownRoute->body().constData();
    const QJsonObject notFound = unknownRoute->json().value("error").toObject();
    EXPECT_EQ(notFound.value("status").toString(), "NOT_FOUND") << unknownRoute->body().constData();
    EXPECT_EQ(notFound.value("details").toArray().at(0).toObject().value("reason").toString(), "unknown_route")
        << unknownRoute->body().constData();

    const auto badKey = call("POST", kGenerate, geminiBody(), {{"Authorization", "Bearer sk-test-not-a-key"}});
    EXPECT_EQ(badKey->status(), 401) << badKey->body().constData();
    EXPECT_EQ(badKey->json().value("error").toObject().value("status").toString(), "UNAUTHENTICATED") << badKey->body().constData();
}

TEST_F(GeminiFormatTest, StreamBrokenAfterItBeganEndsWithAnErrorObjectInBothFramings)
{
    start();
    for (const char *failure : {"drop_mid_stream", "error_mid_stream"}) {
        for (const char *channelId : {kGeminiChannel, kOpenAiChannel}) {
            for (const bool jsonArray : {false, true}) {
                SCOPED_TRACE(std::string(failure) + " " + channelId + (jsonArray ? " array" : " sse"));
                addRule(QByteArray(R"({"provider":")") + channelId + R"(","failure":")" + failure + R"("})");
                const auto client = call("POST", jsonArray ? kStreamArray : kStreamSse, geminiBody({{"provider", only(channelId)}}));
                ASSERT_EQ(client->status(), 200) << client->body().constData();
                const QList<QJsonObject> chunks = streamChunks(client->body(), jsonArray);
                ASSERT_GE(chunks.size(), 2) << client->body().constData();
                EXPECT_FALSE(textOf(chunks.first()).isEmpty()) << client->body().constData();
                const QJsonObject error = chunks.last().value("error").toObject();
                EXPECT_EQ(error.value("status").toString(), "INTERNAL") << client->body().constData();
                for (qsizetype i = 0; i + 1 < chunks.size(); ++i)
                    EXPECT_FALSE(firstCandidate(chunks[i]).contains("finishReason")) << client->body().constData();
                EXPECT_EQ(attemptProviders(attempts(*client)), QStringList{channelId}) << "a begun stream never fails over";
                sim->state().rules.clear();
            }
        }
    }
}

TEST_F(GeminiFormatTest, EachAnsweredRequestIsChargedOnceAtTheServingChannelsPrice)
{
    start();
    struct Case {
        QByteArray path;
        QByteArray body;
        const char *channel;
        config::Price price;
    };
    const std::vector<Case> cases{
        {kGenerate, geminiBody({{"provider", only(kGeminiChannel)}}), kGeminiChannel, kEpsilonPrice},
        {kGenerate, geminiBody({{"provider", only(kOpenAiChannel)}}), kOpenAiChannel, kAlphaPrice},
        {kGenerate, geminiBody({{"provider", only(kAnthropicChannel)}}), kAnthropicChannel, kDeltaPrice},
        {kStreamArray, geminiBody({{"provider", only(kGeminiChannel)}}), kGeminiChannel, kEpsilonPrice},
        {kStreamSse, geminiBody({{"provider", only(kOpenAiChannel)}}), kOpenAiChannel, kAlphaPrice},
        {"/v1/chat/completions", chatBody(kModelA, {{"provider", only(kGeminiChannel)}}), kGeminiChannel, kEpsilonPrice},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.path.toStdString() + " via " + c.channel);
        const size_t before = ledger().entries().size();
        const auto client = call("POST", c.path, c.body);
        ASSERT_EQ(client->status(), 200) << client->body().constData();
        qint64 prompt = 0;
        qint64 completion = 0;
        if (c.path == "/v1/chat/completions") {
            prompt = client->json().value("usage").toObject().value("prompt_tokens").toInteger();
            completion = client->json().value("usage").toObject().value("completion_tokens").toInteger();
        } else {
            const QList<QJsonObject> chunks = c.path == kGenerate ? QList<QJsonObject>{client->json()}
                                                                   : streamChunks(client->body(), c.path == kStreamArray);
            ASSERT_FALSE(chunks.isEmpty());
            const QJsonObject usage = chunks.last().value("usageMetadata").toObject();
            prompt = usage.value("promptTokenCount").toInteger();
            completion = usage.value("candidatesTokenCount").toInteger();
        }
        ASSERT_GT(prompt, 0) << client->body().constData();
        ASSERT_GT(completion, 0) << client->body().constData();
        ASSERT_TRUE(ledgerSettlesAt(before + 1)) << ledger().entries().size() - before << " entries";
        const billing::LedgerEntry &entry = ledger().entries().back();
        EXPECT_EQ(entry.kind, billing::LedgerEntry::Kind::Charge);
        EXPECT_EQ(entry.channelId, c.channel);
        EXPECT_EQ(entry.modelId, kModelA);
        EXPECT_EQ(entry.promptTokens, prompt);
        EXPECT_EQ(entry.completionTokens, completion);
        EXPECT_EQ(entry.amount, charge(prompt, completion, c.price));
    }
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

} // namespace
} // namespace sy::integration
