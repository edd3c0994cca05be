// The whole cross-format matrix end to end (SPEC §2, §4, §5, §8): every ingress format — Chat
// Completions, Anthropic Messages, OpenAI Responses, Gemini — against a channel of every format —
// openai, anthropic, gemini — plain and streamed, each answered in the client's own format with the
// answer's text, and charged once at the serving channel's price. Then one request per ingress
// that fails over across formats: the gemini channel answers 429 RESOURCE_EXHAUSTED, the anthropic
// one serves it.
#include "GatewayFixture.h"

#include "billing/Ledger.h"

#include <cmath>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

struct ChannelSpec {
    const char *id;
    const char *format;
    config::Price price;
};
const ChannelSpec kOpenAi{"alpha", "openai", {1.0, 2.0}};   // the fixture's own alpha price
const ChannelSpec kAnthropic{"delta", "anthropic", {5.0, 6.0}};
const ChannelSpec kGemini{"gemma", "gemini", {3.0, 4.0}};

enum class Ingress { Chat, Messages, Responses, Gemini };

const char *ingressName(Ingress ingress)
{
    switch (ingress) {
    case Ingress::Chat: return "Chat";
    case Ingress::Messages: return "Messages";
    case Ingress::Responses: return "Responses";
    case Ingress::Gemini: return "Gemini";
    }
    return "?";
}

billing::Nanos charge(qint64 prompt, qint64 completion, const config::Price &price)
{
    return std::llround(double(prompt) * price.prompt * 1000.0) + std::llround(double(completion) * price.completion * 1000.0);
}

// The JSON objects carried by `data:` lines of an SSE body (other lines and [DONE] skipped).
QList<QJsonObject> sseData(const QByteArray &body)
{
    QList<QJsonObject> objects;
    for (const QByteArray &line : body.split('\n')) {
        const QByteArray trimmed = line.trimmed();
        if (trimmed.startsWith("data:")) {
            const QJsonDocument doc = QJsonDocument::fromJson(trimmed.mid(5).trimmed());
            if (doc.isObject())
                objects.append(doc.object());
        }
    }
    return objects;
}

QString geminiText(const QJsonObject &chunk)
{
    QString text;
    const QJsonArray parts = chunk.value("candidates").toArray().at(0).toObject().value("content").toObject().value("parts").toArray();
    for (const QJsonValue &part : parts)
        text += part.toObject().value("text").toString();
    return text;
}

// The request for `ingress`, pinned by `provider` (a routing field every format accepts).
struct Sent {
    QByteArray path;
    QByteArray body;
    RequestHeaders headers;
};

Sent requestFor(Ingress ingress, bool stream, const QJsonObject &provider)
{
    const QString prompt = QStringLiteral("Say hello to the switchyard.");
    QJsonObject body{{"provider", provider}};
    Sent sent;
    switch (ingress) {
    case Ingress::Chat:
        sent.path = "/v1/chat/completions";
        body.insert("model", kModelA);
        body.insert("messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", prompt}}});
        body.insert("stream", stream);
        break;
    case Ingress::Messages:
        sent.path = "/v1/messages";
        body.insert("model", kModelA);
        body.insert("max_tokens", 256);
        body.insert("messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", prompt}}});
        body.insert("stream", stream);
        break;
    case Ingress::Responses:
        sent.path = "/v1/responses";
        body.insert("model", kModelA);
        body.insert("input", prompt);
        body.insert("stream", stream);
        break;
    case Ingress::Gemini:
        sent.path = QByteArray("/v1beta/models/") + kModelA + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
        body.insert("contents", QJsonArray{QJsonObject{{"role", "user"}, {"parts", QJsonArray{QJsonObject{{"text", prompt}}}}}});
        break;
    }
    sent.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return sent;
}

// The answer's text as the client reads it in its format; fails the test on a wrong shape.
QString answerText(Ingress ingress, bool stream, const QByteArray &body)
{
    QString text;
    if (!stream) {
        const QJsonObject json = QJsonDocument::fromJson(body).object();
        switch (ingress) {
        case Ingress::Chat: return json.value("choices").toArray().at(0).toObject().value("message").toObject().value("content").toString();
        case Ingress::Messages: return json.value("content").toArray().at(0).toObject().value("text").toString();
        case Ingress::Responses:
            EXPECT_EQ(json.value("object").toString(), "response") << body.constData();
            return json.value("output_text").toString();
        case Ingress::Gemini: return geminiText(json);
        }
    }
    const QList<QJsonObject> events = sseData(body);
    for (const QJsonObject &event : events) {
        switch (ingress) {
        case Ingress::Chat:
            text += event.value("choices").toArray().at(0).toObject().value("delta").toObject().value("content").toString();
            break;
        case Ingress::Messages:
            if (event.value("type").toString() == QLatin1String("content_block_delta"))
                text += event.value("delta").toObject().value("text").toString();
            break;
        case Ingress::Responses:
            if (event.value("type").toString() == QLatin1String("response.output_text.delta"))
                text += event.value("delta").toString();
            break;
        case Ingress::Gemini: text += geminiText(event); break;
        }
    }
    // Each format's clean end.
    switch (ingress) {
    case Ingress::Chat: EXPECT_TRUE(body.trimmed().endsWith("data: [DONE]")) << body.constData(); break;
    case Ingress::Messages: EXPECT_EQ(events.value(events.size() - 1).value("type").toString(), "message_stop"); break;
    case Ingress::Responses: EXPECT_EQ(events.value(events.size() - 1).value("type").toString(), "response.completed"); break;
    case Ingress::Gemini:
        EXPECT_FALSE(events.isEmpty());
        EXPECT_TRUE(events.value(events.size() - 1).contains("usageMetadata")) << body.constData();
        break;
    }
    return text;
}

class FormatMatrixFixture : public GatewayFixture {
protected:
    void startMatrix()
    {
        config::Config config = baseConfig();
        config.balance = 10.0;
        for (const ChannelSpec *spec : {&kAnthropic, &kGemini}) {
            config::Channel added = config.channels.front();
            added.id = spec->id;
            added.provider = spec->id;
            added.format = spec->format;
            added.baseUrl = QString(spec->format) == QLatin1String("gemini")
                ? QStringLiteral("http://127.0.0.1:%1/%2/v1beta").arg(simPort).arg(spec->id)
                : simBaseUrl(spec->id);
            added.credentials = {QStringLiteral("sk-test-upstream-") + spec->id};
            added.models = {config::ChannelModel{kModelA, "chat-a-up", spec->price}};
            config.channels.push_back(added);
        }
        startGateway(std::move(config));
    }

    std::unique_ptr<GatewayClient> send(Ingress ingress, bool stream, const QJsonObject &provider)
    {
        Sent sent = requestFor(ingress, stream, provider);
        return call("POST", sent.path, sent.body, std::move(sent.headers));
    }

    // The single charge booked for the request that `client` got an answer to (bounded wait).
    std::optional<billing::LedgerEntry> onlyCharge(const GatewayClient &client)
    {
        const QString id = QString::fromLatin1(client.header("x-request-id"));
        const auto charges = [&] {
            std::vector<billing::LedgerEntry> found;
            for (const billing::LedgerEntry &e : gateway->state().ledger.entries()) {
                if (e.kind == billing::LedgerEntry::Kind::Charge && e.requestId == id)
                    found.push_back(e);
            }
            return found;
        };
        test::waitUntil([&] { return !charges().empty(); }, 3s);
        test::processEventsFor(50ms);
        const std::vector<billing::LedgerEntry> found = charges();
        EXPECT_EQ(found.size(), 1u) << "charges for " << id.toStdString();
        if (found.size() != 1)
            return std::nullopt;
        return found.front();
    }
};

struct Cell {
    Ingress ingress;
    const ChannelSpec *channel;
    bool stream;
};

class FormatMatrixTest : public FormatMatrixFixture, public ::testing::WithParamInterface<Cell> {};

TEST_P(FormatMatrixTest, AnsweredInTheClientsFormatAndChargedOnceAtTheChannelsPrice)
{
    const Cell cell = GetParam();
    startMatrix();
    const auto client = send(cell.ingress, cell.stream, QJsonObject{{"only", QJsonArray{cell.channel->id}}});
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), cell.channel->id);
    EXPECT_FALSE(answerText(cell.ingress, cell.stream, client->body()).isEmpty()) << client->body().constData();
    const std::optional<billing::LedgerEntry> entry = onlyCharge(*client);
    ASSERT_TRUE(entry);
    EXPECT_EQ(entry->channelId, cell.channel->id);
    EXPECT_GT(entry->completionTokens, 0);
    EXPECT_EQ(entry->amount, charge(entry->promptTokens, entry->completionTokens, cell.channel->price));
}

std::vector<Cell> everyCell()
{
    std::vector<Cell> cells;
    for (Ingress ingress : {Ingress::Chat, Ingress::Messages, Ingress::Responses, Ingress::Gemini})
        for (const ChannelSpec *channel : {&kOpenAi, &kAnthropic, &kGemini})
            for (bool stream : {false, true})
                cells.push_back({ingress, channel, stream});
    return cells;
}

INSTANTIATE_TEST_SUITE_P(Matrix, FormatMatrixTest, ::testing::ValuesIn(everyCell()), [](const auto &info) {
    const Cell &cell = info.param;
    return std::string(ingressName(cell.ingress)) + "_to_" + cell.channel->format + (cell.stream ? "_Stream" : "_Plain");
});

class CrossFormatFailoverTest : public FormatMatrixFixture, public ::testing::WithParamInterface<std::tuple<Ingress, bool>> {};

TEST_P(CrossFormatFailoverTest, AGeminiRateLimitFailsOverToTheAnthropicChannelInOneRequest)
{
    const auto [ingress, stream] = GetParam();
    startMatrix();
    addRule(R"({"provider":"gemma","failure":"status:429"})");
    const QJsonObject provider{{"order", QJsonArray{kGemini.id, kAnthropic.id}}, {"only", QJsonArray{kGemini.id, kAnthropic.id}}};
    const auto client = send(ingress, stream, provider);
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(attemptProviders(attempts(*client)), QStringList({kGemini.id, kAnthropic.id}));
    EXPECT_FALSE(answerText(ingress, stream, client->body()).isEmpty());
    EXPECT_EQ(hits("gemma"), 1);
    const std::optional<billing::LedgerEntry> entry = onlyCharge(*client);
    ASSERT_TRUE(entry);
    EXPECT_EQ(entry->channelId, kAnthropic.id);
    EXPECT_EQ(entry->amount, charge(entry->promptTokens, entry->completionTokens, kAnthropic.price));
}

INSTANTIATE_TEST_SUITE_P(EveryIngress, CrossFormatFailoverTest,
                         ::testing::Combine(::testing::Values(Ingress::Chat, Ingress::Messages, Ingress::Responses, Ingress::Gemini),
                                            ::testing::Bool()),
                         [](const auto &info) {
                             return std::string(ingressName(std::get<0>(info.param))) + (std::get<1>(info.param) ? "_Stream" : "_Plain");
                         });

} // namespace
} // namespace sy::integration
