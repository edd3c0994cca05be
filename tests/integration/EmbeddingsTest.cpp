// POST /v1/embeddings end to end (SPEC §2, §3, §8): OpenAI and Gemini channels answering in
// OpenAI's list shape, failover only between channels of the one model, base64 and dimensions,
// the 400s before any upstream call, one charge at the serving channel's prompt price, key limits.
#include "Embeddings.h"
#include "GatewayFixture.h"

#include <QtEndian>
#include <cmath>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

constexpr char kEmbed[] = "acme/embed";
constexpr char kEmbedOther[] = "acme/embed-other";
constexpr char kEmbedVirtual[] = "acme/embed-auto";
constexpr char kText[] = "The switchyard sorts the trains.";

class EmbeddingsTest : public GatewayFixture {
protected:
    // acme/embed on embopen (openai, 0.5 per 1M prompt tokens), embspare (openai, 0.7), embgem
    // (gemini, 0.2) and embanth (anthropic); acme/embed-other on embother; the virtual
    // acme/embed-auto = acme/embed then acme/embed-other.
    config::Config embeddingsConfig() const
    {
        config::Config config = baseConfig();
        const auto addChannel = [&](const QString &id, const QString &format, const QString &baseUrl,
                                    const QString &model, const QString &upstream, double prompt) {
            config::Channel channel;
            channel.id = id;
            channel.provider = id;
            channel.format = format;
            channel.baseUrl = baseUrl;
            channel.credentials = {QStringLiteral("sk-test-upstream-") + id};
            channel.timeouts = {2000ms, 3000ms, 3000ms};
            channel.models = {config::ChannelModel{model, upstream, config::Price{prompt, 0.0}}};
            config.channels.push_back(channel);
        };
        addChannel("embopen", "openai", simBaseUrl("embopen"), kEmbed, "embed-up", 0.5);
        addChannel("embspare", "openai", simBaseUrl("embspare"), kEmbed, "embed-up", 0.7);
        addChannel("embgem", "gemini", QStringLiteral("http://127.0.0.1:%1/embgem/v1beta").arg(simPort), kEmbed,
                   "embed-gem", 0.2);
        addChannel("embanth", "anthropic", simBaseUrl("embanth"), kEmbed, "embed-anth", 0.1);
        addChannel("embother", "openai", simBaseUrl("embother"), kEmbedOther, "embed-other-up", 0.1);
        config::Model embed;
        embed.id = kEmbed;
        embed.capabilities = {"embeddings"};
        config::Model other;
        other.id = kEmbedOther;
        other.capabilities = {"embeddings"};
        config.models.push_back(embed);
        config.models.push_back(other);
        config.virtualModels.push_back(config::VirtualModel{kEmbedVirtual, kEmbed, {kEmbedOther}});
        config.defaultModel = kEmbedOther;
        return config;
    }

    static QByteArray body(const QJsonObject &fields, const QStringList &order = {})
    {
        QJsonObject out{{"model", kEmbed}, {"input", kText}};
        if (!order.isEmpty())
            out.insert("provider", QJsonObject{{"order", QJsonArray::fromStringList(order)}, {"allow_fallbacks", false}});
        for (auto it = fields.begin(); it != fields.end(); ++it)
            out.insert(it.key(), it.value());
        return QJsonDocument(out).toJson(QJsonDocument::Compact);
    }

    // `provider.only` keeps exactly these channels, in the order given.
    static QByteArray bodyVia(const QStringList &channels, const QJsonObject &fields = {})
    {
        QJsonObject out{{"model", kEmbed}, {"input", kText}};
        out.insert("provider", QJsonObject{{"only", QJsonArray::fromStringList(channels)},
                                           {"order", QJsonArray::fromStringList(channels)}});
        for (auto it = fields.begin(); it != fields.end(); ++it)
            out.insert(it.key(), it.value());
        return QJsonDocument(out).toJson(QJsonDocument::Compact);
    }

    std::unique_ptr<GatewayClient> embed(const QByteArray &requestBody, RequestHeaders headers = {})
    {
        return call("POST", "/v1/embeddings", requestBody, std::move(headers));
    }

    static std::vector<float> floatsOf(const QJsonValue &embedding)
    {
        std::vector<float> out;
        if (embedding.isString()) {
            const QByteArray raw = QByteArray::fromBase64(embedding.toString().toLatin1());
            for (qsizetype i = 0; i + 4 <= raw.size(); i += 4)
                out.push_back(qFromLittleEndian<float>(raw.constData() + i));
        } else {
            for (const QJsonValue &value : embedding.toArray())
                out.push_back(float(value.toDouble()));
        }
        return out;
    }

    static void expectVector(const QJsonValue &embedding, const QString &text, int dimensions)
    {
        const std::vector<float> got = floatsOf(embedding);
        const std::vector<float> want = sim::embeddingVector(text, dimensions);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            EXPECT_NEAR(got[i], want[i], 1e-6) << "value " << i;
    }

    qint64 embeddingHits() const
    {
        qint64 total = 0;
        for (const char *provider : {"embopen", "embspare", "embgem", "embanth", "embother"})
            total += hits(provider);
        return total;
    }
};

TEST_F(EmbeddingsTest, OpenAiChannelAnswersWithTheUpstreamNameRewrittenBothWays)
{
    startGateway(embeddingsConfig());
    const auto client = embed(bodyVia({"embopen"}, {{"input", QJsonArray{kText, "second"}}, {"dimensions", 8}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject answer = client->json();
    EXPECT_EQ(answer.value("object").toString(), "list");
    EXPECT_EQ(answer.value("model").toString(), kEmbed);
    const QJsonArray data = answer.value("data").toArray();
    ASSERT_EQ(data.size(), 2);
    EXPECT_EQ(data.at(1).toObject().value("index").toInt(), 1);
    expectVector(data.at(0).toObject().value("embedding"), kText, 8);
    expectVector(data.at(1).toObject().value("embedding"), "second", 8);
    EXPECT_GT(answer.value("usage").toObject().value("prompt_tokens").toInt(), 0);
    EXPECT_EQ(hitsForModel("embed-up"), 1);
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "embopen");
    EXPECT_EQ(client->header("x-tsarrouter-model"), kEmbed);
    EXPECT_EQ(attemptStatuses(attempts(*client)), QStringList{"ok"});
    EXPECT_FALSE(client->header("x-request-id").isEmpty());
}

TEST_F(EmbeddingsTest, GeminiChannelAnswersInOpenAisListShape)
{
    startGateway(embeddingsConfig());
    const auto client = embed(bodyVia({"embgem"}, {{"input", QJsonArray{kText, "second"}}, {"dimensions", 16}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject answer = client->json();
    EXPECT_EQ(answer.value("object").toString(), "list");
    EXPECT_EQ(answer.value("model").toString(), kEmbed);
    const QJsonArray data = answer.value("data").toArray();
    ASSERT_EQ(data.size(), 2);
    EXPECT_EQ(data.at(0).toObject().value("object").toString(), "embedding");
    EXPECT_EQ(data.at(1).toObject().value("index").toInt(), 1);
    expectVector(data.at(0).toObject().value("embedding"), kText, 16);
    expectVector(data.at(1).toObject().value("embedding"), "second", 16);
    // Gemini counts no tokens: one per four characters, rounded up.
    const qint64 characters = QString(kText).size() + QString("second").size();
    const QJsonObject usage = answer.value("usage").toObject();
    EXPECT_EQ(usage.value("prompt_tokens").toInt(), (characters + 3) / 4);
    EXPECT_EQ(usage.value("total_tokens").toInt(), (characters + 3) / 4);
    EXPECT_EQ(hitsForModel("embed-gem"), 1);
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "embgem");
}

TEST_F(EmbeddingsTest, Base64IsLittleEndianFloat32FromEitherChannelFormat)
{
    startGateway(embeddingsConfig());
    for (const char *channel : {"embopen", "embgem"}) {
        const auto client = embed(bodyVia({channel}, {{"encoding_format", "base64"}, {"dimensions", 12}}));
        ASSERT_EQ(client->status(), 200) << channel << ' ' << client->body().constData();
        const QJsonValue embedding = client->json().value("data").toArray().at(0).toObject().value("embedding");
        ASSERT_TRUE(embedding.isString()) << channel << ' ' << client->body().constData();
        expectVector(embedding, kText, 12);
    }
}

TEST_F(EmbeddingsTest, DefaultDimensionsAreTheUpstreamsOwn)
{
    startGateway(embeddingsConfig());
    const auto client = embed(bodyVia({"embopen"}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->json().value("data").toArray().at(0).toObject().value("embedding").toArray().size(), 1536);
}

TEST_F(EmbeddingsTest, FailsOverToAnotherChannelOfTheSameModel)
{
    startGateway(embeddingsConfig());
    addRule(R"({"provider":"embopen","failure":"status:503"})");
    const auto client = embed(bodyVia({"embopen", "embspare"}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "embspare");
    // A plain single-model request retries a transient failure once, then moves on.
    EXPECT_EQ(attemptStatuses(attempts(*client)), (QStringList{"error", "error", "ok"}));
    EXPECT_EQ(attemptProviders(attempts(*client)), (QStringList{"embopen", "embopen", "embspare"}));
    EXPECT_EQ(hits("embopen"), 2);
    EXPECT_EQ(hits("embspare"), 1);
}

TEST_F(EmbeddingsTest, FailsOverAcrossChannelFormats)
{
    startGateway(embeddingsConfig());
    addRule(R"({"provider":"embopen","failure":"status:429"})");
    const auto client = embed(bodyVia({"embopen", "embgem"}, {{"dimensions", 4}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "embgem");
    expectVector(client->json().value("data").toArray().at(0).toObject().value("embedding"), kText, 4);
}

TEST_F(EmbeddingsTest, NeverChangesModel)
{
    startGateway(embeddingsConfig());
    addRule(R"({"model":"embed-up","failure":"status:503"})");
    addRule(R"({"model":"embed-gem","failure":"status:503"})");
    // `models`, a virtual model's fallbacks and the default model (acme/embed-other) are not used.
    for (const QByteArray &request : {bodyVia({"embopen", "embspare", "embgem"}, {{"models", QJsonArray{kEmbedOther}}}),
                                      bodyVia({"embopen", "embspare", "embgem"}, {{"model", kEmbedVirtual}})}) {
        const auto client = embed(request);
        ASSERT_EQ(client->status(), 502) << client->body().constData();
        const QJsonObject error = openAiError(*client, "api_error");
        EXPECT_EQ(error.value("message").toString(), QStringLiteral("All providers failed for model %1").arg(kEmbed));
        EXPECT_FALSE(client->hasHeader("x-tsarrouter-provider"));
    }
    EXPECT_EQ(hits("embother"), 0);
    EXPECT_GT(hits("embopen"), 0);
}

TEST_F(EmbeddingsTest, AnthropicChannelsAreSkippedWithTheReason)
{
    startGateway(embeddingsConfig());
    const auto client = embed(bodyVia({"embanth", "embopen"}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"skipped", "ok"}));
    EXPECT_TRUE(trace.at(0).toObject().value("error").toString().contains("anthropic")) << client->header("x-tsarrouter-attempts").constData();
    EXPECT_EQ(hits("embanth"), 0);
}

TEST_F(EmbeddingsTest, TokenArraysGoToOpenAiChannelsOnly)
{
    startGateway(embeddingsConfig());
    const auto client = embed(bodyVia({"embgem", "embopen"}, {{"input", QJsonArray{QJsonArray{1, 2, 3}, QJsonArray{4, 5}}}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*client)), (QStringList{"skipped", "ok"}));
    EXPECT_EQ(client->json().value("data").toArray().size(), 2);
    EXPECT_EQ(hits("embgem"), 0);
    EXPECT_EQ(hits("embopen"), 1);
}

TEST_F(EmbeddingsTest, BadInputIs400NamingTheFieldWithoutAnUpstreamCall)
{
    config::Config config = embeddingsConfig();
    config.balance = 10.0;
    startGateway(std::move(config));
    struct Case {
        const char *name;
        QByteArray body;
        const char *param;
        const char *code;
    };
    const QByteArray chatModel = QJsonDocument(QJsonObject{{"model", kModelA}, {"input", kText}}).toJson();
    const std::vector<Case> cases{
        {"malformed JSON", "{\"model\":", "", "invalid_json"},
        {"not an object", "[1,2]", "", "invalid_json"},
        {"no model", R"({"input":"x"})", "model", ""},
        {"model not a string", R"({"model":5,"input":"x"})", "model", ""},
        {"unknown model", R"({"model":"acme/none","input":"x"})", "model", "model_not_found"},
        {"chat model", chatModel, "model", "unsupported_model_api"},
        {"no input", body({{"input", QJsonValue()}}), "input", ""},
        {"empty input", body({{"input", ""}}), "input", ""},
        {"empty list", body({{"input", QJsonArray{}}}), "input", ""},
        {"input of a wrong type", body({{"input", 5}}), "input", ""},
        {"mixed list", body({{"input", QJsonArray{"a", 5}}}), "input[1]", ""},
        {"empty string in a list", body({{"input", QJsonArray{"a", ""}}}), "input[1]", ""},
        {"negative token", body({{"input", QJsonArray{1, -2}}}), "input", ""},
        {"dimensions zero", body({{"dimensions", 0}}), "dimensions", ""},
        {"dimensions fraction", body({{"dimensions", 1.5}}), "dimensions", ""},
        {"dimensions text", body({{"dimensions", "8"}}), "dimensions", ""},
        {"encoding_format", body({{"encoding_format", "hex"}}), "encoding_format", ""},
        {"user", body({{"user", 7}}), "user", ""},
    };
    for (const Case &c : cases) {
        const auto client = embed(c.body);
        ASSERT_EQ(client->status(), 400) << c.name << ": " << client->body().constData();
        const QJsonObject error = openAiError(*client, "invalid_request_error");
        EXPECT_EQ(error.value("param").toString(), QString::fromLatin1(c.param)) << c.name;
        if (*c.code)
            EXPECT_EQ(error.value("code").toString(), QString::fromLatin1(c.code)) << c.name;
        EXPECT_FALSE(error.value("message").toString().isEmpty()) << c.name;
    }
    EXPECT_EQ(sim->stats().requests(), 0);
    EXPECT_TRUE(gateway->state().ledger.entries().empty());
    EXPECT_EQ(gateway->state().ledger.reservationsInFlight(), 0);
}

TEST_F(EmbeddingsTest, ChargedOnceAtTheServingChannelsPromptPrice)
{
    config::Config config = embeddingsConfig();
    config.balance = 10.0;
    startGateway(std::move(config));
    addRule(R"({"provider":"embopen","failure":"status:503"})");
    const auto client = embed(bodyVia({"embopen", "embspare"}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const qint64 promptTokens = client->json().value("usage").toObject().value("prompt_tokens").toInt();
    ASSERT_GT(promptTokens, 0);
    const auto &entries = gateway->state().ledger.entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].channelId, "embspare");
    EXPECT_EQ(entries[0].modelId, kEmbed);
    EXPECT_EQ(entries[0].promptTokens, promptTokens);
    EXPECT_EQ(entries[0].completionTokens, 0);
    EXPECT_EQ(entries[0].amount, std::llround(double(promptTokens) * 0.7 * 1000.0));
    EXPECT_EQ(entries[0].requestId.toLatin1(), client->header("x-request-id"));

    // Nothing answered: nothing charged, nothing left reserved.
    addRule(R"({"provider":"embspare","failure":"status:503"})");
    const auto failed = embed(bodyVia({"embopen", "embspare"}));
    ASSERT_EQ(failed->status(), 502) << failed->body().constData();
    EXPECT_EQ(gateway->state().ledger.entries().size(), 1u);
    EXPECT_EQ(gateway->state().ledger.reservationsInFlight(), 0);

    const std::optional<service::RequestRecord> record = gateway->requestLog().find(client->header("x-request-id"));
    ASSERT_TRUE(record);
    EXPECT_EQ(record->endpoint, "embeddings");
    EXPECT_EQ(record->answeringChannel, "embspare");
    EXPECT_EQ(record->promptTokens, promptTokens);
    EXPECT_EQ(record->completionTokens, 0);
    EXPECT_EQ(record->costNanos, entries[0].amount);
    EXPECT_EQ(record->chain, QStringList{kEmbed});
    EXPECT_FALSE(record->stream);
    const std::optional<service::RequestRecord> failedRecord = gateway->requestLog().find(failed->header("x-request-id"));
    ASSERT_TRUE(failedRecord);
    EXPECT_EQ(failedRecord->status, 502);
    EXPECT_TRUE(failedRecord->answeringChannel.isEmpty());
    EXPECT_EQ(failedRecord->promptTokens, 0);
}

TEST_F(EmbeddingsTest, ZeroBalanceIs402BeforeAnyUpstreamCall)
{
    config::Config config = embeddingsConfig();
    config.balance = 0.0;
    startGateway(std::move(config));
    const auto client = embed(bodyVia({"embopen"}));
    ASSERT_EQ(client->status(), 402) << client->body().constData();
    openAiError(*client, "insufficient_quota");
    EXPECT_EQ(embeddingHits(), 0);
}

TEST_F(EmbeddingsTest, KeyRpmLimitApplies)
{
    config::Config config = embeddingsConfig();
    config.keys.front().rpm = 1;
    config.settings.keyLimitWaitS = 0;
    startGateway(std::move(config));
    const auto first = embed(bodyVia({"embopen"}));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    const auto second = embed(bodyVia({"embopen"}));
    ASSERT_EQ(second->status(), 429) << second->body().constData();
    const QJsonObject error = openAiError(*second, "rate_limit_exceeded");
    EXPECT_EQ(error.value("message").toString(), "This API key has reached its rate or concurrency limit.");
    EXPECT_GE(second->header("retry-after").toInt(), 1);
    EXPECT_EQ(hits("embopen"), 1);
}

TEST_F(EmbeddingsTest, ClientThatLeavesWhileWaitingForTheKeyIsForgotten)
{
    config::Config config = embeddingsConfig();
    config.keys.front().maxConcurrent = 1;
    startGateway(std::move(config));
    addRule(R"({"provider":"embopen","latency_ms":600})");

    const auto first = send("POST", "/v1/embeddings", bodyVia({"embopen"}));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    auto leaving = send("POST", "/v1/embeddings", bodyVia({"embopen"}));
    test::processEventsFor(150ms);
    EXPECT_EQ(gateway->counters().inFlight, 2);
    leaving->disconnect();

    ASSERT_TRUE(first->waitForEnd());
    EXPECT_EQ(first->status(), 200) << first->body().constData();
    // The waiter that left never reaches the upstream, does not stay counted, and is logged as 499.
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 2s))
        << "in flight: " << gateway->counters().inFlight;
    EXPECT_EQ(gateway->counters().byStatus.value(499), 1u);
    EXPECT_EQ(gateway->counters().succeeded + gateway->counters().failed, gateway->counters().requests);
    EXPECT_EQ(hits("embopen"), 1);

    // Its slot is free: the next request is admitted at once.
    const auto next = embed(bodyVia({"embopen"}));
    EXPECT_EQ(next->status(), 200) << next->body().constData();
}

TEST_F(EmbeddingsTest, GuardrailAndKeyAreCheckedLikeChat)
{
    startGateway(embeddingsConfig());
    const auto blocked = embed(bodyVia({"embopen"}), {{"Authorization", QByteArray("Bearer ") + kRestrictedSecret}});
    ASSERT_EQ(blocked->status(), 403) << blocked->body().constData();
    const auto unknownKey = embed(bodyVia({"embopen"}), {{"Authorization", "Bearer sk-test-unknown"}});
    ASSERT_EQ(unknownKey->status(), 401) << unknownKey->body().constData();
    EXPECT_EQ(embeddingHits(), 0);
}

TEST_F(EmbeddingsTest, UpstreamClientErrorIsReturnedWithoutFailover)
{
    startGateway(embeddingsConfig());
    addRule(R"({"provider":"embopen","failure":"status:400"})");
    const auto client = embed(bodyVia({"embopen", "embspare"}));
    ASSERT_EQ(client->status(), 400) << client->body().constData();
    EXPECT_EQ(hits("embspare"), 0);
}

TEST_F(EmbeddingsTest, ChannelCapacityQueueTimeoutIs429InOpenAisShape)
{
    config::Config config = embeddingsConfig();
    for (config::Channel &channel : config.channels)
        channel.maxConcurrent = 1;
    config.settings.capacityWaitS = 1;
    startGateway(std::move(config));
    addRule(R"({"provider":"embopen","latency_ms":2500})");

    auto running = send("POST", "/v1/embeddings", bodyVia({"embopen"}));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    const auto refused = embed(bodyVia({"embopen"}));
    ASSERT_EQ(refused->status(), 429) << refused->body().constData();
    const QJsonObject error = openAiError(*refused, "rate_limit_exceeded");
    EXPECT_EQ(error.value("message").toString(), "All upstream capacity for this model is busy. Retry shortly.");
    EXPECT_GE(refused->header("retry-after").toInt(), 1);
    EXPECT_EQ(gateway->state().refusals.value("capacity_busy"), 1u);
    EXPECT_EQ(gateway->state().capacity.totalQueued(), 0);
    EXPECT_EQ(hits("embopen"), 1);
    running->disconnect();
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s));
}

TEST_F(EmbeddingsTest, RequestOutlivingMaxRequestDurationGets504)
{
    config::Config config = embeddingsConfig();
    config.settings.maxRequestS = 1;
    startGateway(std::move(config));
    // embopen hangs until its first-byte timeout (3 s); embspare would answer after that.
    addRule(R"({"provider":"embopen","failure":"hang"})");

    auto client = send("POST", "/v1/embeddings", bodyVia({"embopen", "embspare"}));
    ASSERT_TRUE(client->waitForEnd(8s));
    EXPECT_EQ(client->status(), 504) << client->body().constData();
    const QJsonObject error = openAiError(*client, "api_error");
    EXPECT_TRUE(error.value("message").toString().contains("max_request_s")) << client->body().constData();
    EXPECT_EQ(hits("embspare"), 0);
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

} // namespace
} // namespace sy::integration
