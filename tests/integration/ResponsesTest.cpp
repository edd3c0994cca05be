// OpenAI Responses end to end (SPEC §2, §5, §8, §9; docs/formats-responses.md): POST /v1/responses
// served by an openai channel (through Chat Completions) and an anthropic channel, plain and
// streamed; a function-call round trip continued with previous_response_id; unknown and unstored
// previous responses refused; bad input refused before any upstream call; a broken stream ending
// in response.failed; one ledger charge per answered request at the serving channel's price.
//
// The workspace is the fixture's plus channel "delta" (format anthropic) beside "alpha" (openai),
// both serving acme/chat-a; `provider.only` pins a request to one of them. The gateway's upstream
// client keeps a copy of every request it sends, so a test sees the upstream bytes.
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

// The production libcurl client, keeping a copy of each request as sent. Gateway thread.
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

const QJsonArray kWeatherTool{QJsonObject{
    {"type", "function"},
    {"name", "get_weather"},
    {"description", "The weather in a city"},
    {"parameters", QJsonObject{{"type", "object"}, {"properties", QJsonObject{{"city", QJsonObject{{"type", "string"}}}}}}},
}};

// A Responses body for acme/chat-a pinned to `channelId`; `extra` fields are merged in (and win).
QByteArray responsesBody(const char *channelId, const QJsonObject &extra = {})
{
    QJsonObject body{{"model", kModelA}, {"input", "Say hello to the switchyard."}, {"provider", only(channelId)}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// The data objects of a Responses stream, in order.
QList<QJsonObject> streamEvents(const GatewayClient &client)
{
    QList<QJsonObject> out;
    for (const QByteArray &data : client.sseData())
        out.append(QJsonDocument::fromJson(data).object());
    return out;
}

QStringList types(const QList<QJsonObject> &events)
{
    QStringList out;
    for (const QJsonObject &e : events)
        out.append(e.value("type").toString());
    return out;
}

// The items of `response.output` of one type.
QList<QJsonObject> items(const QJsonObject &response, const QString &type)
{
    QList<QJsonObject> out;
    for (const QJsonValue &item : response.value("output").toArray()) {
        if (item.toObject().value("type").toString() == type)
            out.append(item.toObject());
    }
    return out;
}

QString expectedResponseId(const GatewayClient &client)
{
    QByteArray requestId = client.header("x-request-id");
    if (requestId.startsWith("req_"))
        requestId = requestId.mid(4);
    return QStringLiteral("resp_") + QString::fromLatin1(requestId);
}

billing::Nanos charge(qint64 prompt, qint64 completion, const config::Price &price)
{
    return std::llround(double(prompt) * price.prompt * 1000.0) + std::llround(double(completion) * price.completion * 1000.0);
}

class ResponsesTest : public GatewayFixture {
protected:
    void SetUp() override
    {
        GatewayFixture::SetUp();
        config::Config config = baseConfig();
        config.balance = 10.0;
        config.models[0].capabilities = {"chat", "tools", "vision"};  // vision: image input reaches the codec
        config::Channel delta = config.channels.front();
        delta.id = kAnthropicChannel;
        delta.provider = kAnthropicChannel;
        delta.format = QStringLiteral("anthropic");
        delta.baseUrl = simBaseUrl(kAnthropicChannel);
        delta.credentials = {QStringLiteral("sk-test-upstream-delta")};
        delta.models = {config::ChannelModel{kModelA, "chat-a-up", kDeltaPrice}};
        config.channels.push_back(delta);
        startGateway(config, std::make_unique<CapturingUpstream>(&sent));
    }

    std::unique_ptr<GatewayClient> responses(const QByteArray &body) { return call("POST", "/v1/responses", body); }

    billing::Ledger &ledger() { return gateway->state().ledger; }

    bool ledgerSettlesAt(size_t count)
    {
        const bool reached = test::waitUntil([&] { return ledger().entries().size() >= count; }, 3s);
        test::processEventsFor(50ms);
        return reached && ledger().entries().size() == count;
    }

    std::vector<upstream::UpstreamRequest> sent;
};

TEST_F(ResponsesTest, PlainRequestIsAResponseObjectOnBothChannelFormats)
{
    for (const char *channelId : {kOpenAiChannel, kAnthropicChannel}) {
        const auto client = responses(responsesBody(channelId, {{"instructions", "Be brief."}, {"max_output_tokens", 200}}));
        ASSERT_EQ(client->status(), 200) << channelId << ' ' << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), channelId);
        const QJsonObject response = client->json();
        EXPECT_EQ(response.value("object").toString(), "response");
        EXPECT_EQ(response.value("id").toString(), expectedResponseId(*client));
        EXPECT_EQ(response.value("status").toString(), "completed") << client->body().constData();
        EXPECT_EQ(response.value("model").toString(), kModelA);
        EXPECT_EQ(response.value("max_output_tokens").toInt(), 200);
        const QList<QJsonObject> messages = items(response, "message");
        ASSERT_EQ(messages.size(), 1) << client->body().constData();
        const QJsonObject text = messages[0].value("content").toArray().at(0).toObject();
        EXPECT_EQ(text.value("type").toString(), "output_text");
        EXPECT_FALSE(text.value("text").toString().isEmpty());
        EXPECT_EQ(response.value("output_text").toString(), text.value("text").toString());
        EXPECT_GT(response.value("usage").toObject().value("output_tokens").toInt(), 0);
        ASSERT_FALSE(sent.empty());
        const QByteArray path = QByteArray(channelId) == kOpenAiChannel ? "/alpha/v1/chat/completions" : "/delta/v1/messages";
        EXPECT_TRUE(sent.back().url.endsWith(path)) << sent.back().url.constData();
        const QJsonObject upstream = QJsonDocument::fromJson(sent.back().body).object();
        EXPECT_TRUE(sent.back().body.contains("Be brief.")) << sent.back().body.constData();
        EXPECT_FALSE(upstream.contains("input")) << sent.back().body.constData();
    }
}

TEST_F(ResponsesTest, StreamIsTheResponsesEventSequenceOnBothChannelFormats)
{
    for (const char *channelId : {kOpenAiChannel, kAnthropicChannel}) {
        const auto client = responses(responsesBody(channelId, {{"stream", true}}));
        ASSERT_EQ(client->status(), 200) << channelId << ' ' << client->body().constData();
        EXPECT_TRUE(client->header("content-type").startsWith("text/event-stream"));
        EXPECT_FALSE(client->body().contains("[DONE]")) << channelId;
        EXPECT_TRUE(client->body().startsWith("event: response.created\n")) << client->body().left(200).constData();
        const QList<QJsonObject> events = streamEvents(*client);
        const QStringList sequence = types(events);
        ASSERT_GE(sequence.size(), 9) << channelId << ' ' << client->body().constData();
        EXPECT_EQ(sequence.mid(0, 4), QStringList({"response.created", "response.in_progress", "response.output_item.added",
                                                   "response.content_part.added"})) << channelId;
        EXPECT_EQ(sequence.mid(sequence.size() - 4), QStringList({"response.output_text.done", "response.content_part.done",
                                                                  "response.output_item.done", "response.completed"})) << channelId;
        QString streamed;
        for (qsizetype i = 0; i < events.size(); ++i) {
            EXPECT_EQ(events[i].value("sequence_number").toInt(), i) << channelId;
            if (sequence[i] == "response.output_text.delta")
                streamed += events[i].value("delta").toString();
        }
        const QJsonObject completed = events.last().value("response").toObject();
        EXPECT_EQ(completed.value("id").toString(), expectedResponseId(*client));
        EXPECT_FALSE(streamed.isEmpty());
        EXPECT_EQ(completed.value("output_text").toString(), streamed) << channelId;
        EXPECT_GT(completed.value("usage").toObject().value("output_tokens").toInt(), 0) << client->body().constData();
    }
}

TEST_F(ResponsesTest, FunctionCallRoundTripContinuesThePreviousResponse)
{
    for (const char *channelId : {kOpenAiChannel, kAnthropicChannel}) {
        for (const bool streamed : {false, true}) {
            const auto first = responses(responsesBody(channelId, {{"input", "What is the weather in Oslo?"}, {"tools", kWeatherTool},
                                                                   {"stream", streamed}}));
            ASSERT_EQ(first->status(), 200) << channelId << ' ' << first->body().constData();
            const QJsonObject answer = streamed ? streamEvents(*first).last().value("response").toObject() : first->json();
            const QList<QJsonObject> calls = items(answer, "function_call");
            ASSERT_EQ(calls.size(), 1) << channelId << ' ' << first->body().constData();
            EXPECT_EQ(calls[0].value("name").toString(), "get_weather");
            const QString callId = calls[0].value("call_id").toString();
            ASSERT_FALSE(callId.isEmpty());

            const QJsonArray output{QJsonObject{{"type", "function_call_output"}, {"call_id", callId}, {"output", "Rain, 7 degrees"}}};
            const auto second = responses(responsesBody(channelId, {{"input", output}, {"tools", kWeatherTool},
                                                                    {"previous_response_id", answer.value("id")}}));
            ASSERT_EQ(second->status(), 200) << channelId << ' ' << second->body().constData();
            const QJsonObject final = second->json();
            EXPECT_EQ(final.value("previous_response_id"), answer.value("id"));
            EXPECT_TRUE(items(final, "function_call").isEmpty()) << "the tool result is the last turn: a text answer";
            EXPECT_FALSE(final.value("output_text").toString().isEmpty()) << second->body().constData();

            // The channel got the whole conversation: the first question, the call, its result.
            const QByteArray upstream = sent.back().body;
            EXPECT_TRUE(upstream.contains("What is the weather in Oslo?")) << upstream.constData();
            EXPECT_TRUE(upstream.contains(callId.toUtf8())) << upstream.constData();
            EXPECT_TRUE(upstream.contains("Rain, 7 degrees")) << upstream.constData();
        }
    }
}

TEST_F(ResponsesTest, UnknownPreviousResponseIs400WithoutUpstreamCall)
{
    const auto client = responses(responsesBody(kOpenAiChannel, {{"previous_response_id", "resp_never_given"}}));
    ASSERT_EQ(client->status(), 400) << client->body().constData();
    const QJsonObject error = openAiError(*client, "invalid_request_error");
    EXPECT_EQ(error.value("code").toString(), "previous_response_not_found");
    EXPECT_EQ(error.value("param").toString(), "previous_response_id");
    EXPECT_TRUE(sent.empty());
}

TEST_F(ResponsesTest, UnstoredResponseCannotBeContinued)
{
    const auto first = responses(responsesBody(kOpenAiChannel, {{"store", false}}));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    EXPECT_EQ(first->json().value("store"), false);
    const auto stored = responses(responsesBody(kOpenAiChannel));
    ASSERT_EQ(stored->status(), 200) << stored->body().constData();

    const auto unstored = responses(responsesBody(kOpenAiChannel, {{"previous_response_id", first->json().value("id")}}));
    ASSERT_EQ(unstored->status(), 400) << unstored->body().constData();
    EXPECT_EQ(openAiError(*unstored, "invalid_request_error").value("code").toString(), "previous_response_not_found");
    const auto continued = responses(responsesBody(kOpenAiChannel, {{"previous_response_id", stored->json().value("id")}}));
    EXPECT_EQ(continued->status(), 200) << continued->body().constData();
    EXPECT_EQ(sent.size(), 3u);
}

TEST_F(ResponsesTest, BadInputIs400NamingTheFieldWithoutUpstreamCallOrCharge)
{
    const std::vector<std::pair<QJsonObject, QString>> cases{
        {{{"input", QJsonArray{QJsonObject{{"type", "function_call_output"}, {"call_id", "call_missing"}, {"output", "1"}}}}},
         "input[0].call_id"},
        {{{"tools", QJsonArray{QJsonObject{{"type", "web_search"}}}}}, "tools[0].type"},
        {{{"input", QJsonArray{QJsonObject{{"role", "user"}, {"content", "a"}}, QJsonObject{{"type", "hologram"}}}}}, "input[1].type"},
        {{{"input", QJsonArray{QJsonObject{{"role", "user"}, {"content", QJsonArray{
             QJsonObject{{"type", "input_image"}, {"file_id", "file-1"}}}}}}}},
         "input[0].content[0].file_id"},
    };
    for (const auto &[extra, field] : cases) {
        for (const bool streamed : {false, true}) {
            QJsonObject body = extra;
            body.insert("stream", streamed);
            const auto client = responses(responsesBody(kOpenAiChannel, body));
            ASSERT_EQ(client->status(), 400) << qPrintable(field) << ' ' << client->body().constData();
            const QJsonObject error = openAiError(*client, "invalid_request_error");
            EXPECT_EQ(error.value("param").toString(), field) << client->body().constData();
            EXPECT_TRUE(error.value("message").toString().contains(field)) << client->body().constData();
        }
    }
    EXPECT_TRUE(sent.empty());
    EXPECT_EQ(sim->stats().requests(), 0);
    test::processEventsFor(50ms);
    EXPECT_TRUE(ledger().entries().empty());
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

TEST_F(ResponsesTest, StreamBrokenAfterItBeganEndsWithResponseFailed)
{
    for (const char *channelId : {kOpenAiChannel, kAnthropicChannel}) {
        addRule(QByteArray(R"({"provider":")") + channelId + R"(","failure":"drop_mid_stream"})");
        const auto client = responses(responsesBody(channelId, {{"stream", true}}));
        ASSERT_EQ(client->status(), 200) << channelId << ' ' << client->body().constData();
        const QList<QJsonObject> events = streamEvents(*client);
        ASSERT_FALSE(events.isEmpty()) << channelId;
        const QStringList sequence = types(events);
        EXPECT_EQ(sequence.first(), "response.created");
        EXPECT_TRUE(sequence.contains("response.output_text.delta")) << channelId << ' ' << client->body().constData();
        EXPECT_EQ(sequence.last(), "response.failed") << channelId << ' ' << client->body().constData();
        EXPECT_FALSE(sequence.contains("response.completed"));
        const QJsonObject response = events.last().value("response").toObject();
        EXPECT_EQ(response.value("status").toString(), "failed");
        EXPECT_EQ(response.value("error").toObject().value("code").toString(), "stream_interrupted");
        EXPECT_FALSE(client->body().contains("[DONE]"));
        sim->state().rules.clear();
    }
}

TEST_F(ResponsesTest, EachAnsweredRequestIsChargedOnceAtTheServingChannelsPrice)
{
    struct Case {
        const char *channel;
        bool stream;
        config::Price price;
    };
    for (const Case &c : {Case{kOpenAiChannel, false, kAlphaPrice}, Case{kOpenAiChannel, true, kAlphaPrice},
                          Case{kAnthropicChannel, false, kDeltaPrice}, Case{kAnthropicChannel, true, kDeltaPrice}}) {
        const size_t before = ledger().entries().size();
        const auto client = responses(responsesBody(c.channel, {{"stream", c.stream}}));
        ASSERT_EQ(client->status(), 200) << c.channel << ' ' << client->body().constData();
        const QJsonObject response = c.stream ? streamEvents(*client).last().value("response").toObject() : client->json();
        const QJsonObject usage = response.value("usage").toObject();
        const qint64 prompt = usage.value("input_tokens").toInteger();
        const qint64 completion = usage.value("output_tokens").toInteger();
        ASSERT_GT(prompt, 0) << client->body().constData();
        ASSERT_GT(completion, 0) << client->body().constData();
        EXPECT_EQ(usage.value("total_tokens").toInteger(), prompt + completion);
        ASSERT_TRUE(ledgerSettlesAt(before + 1)) << c.channel << (c.stream ? " stream: " : " plain: ")
                                                 << ledger().entries().size() - before << " entries";
        const billing::LedgerEntry &entry = ledger().entries().back();
        EXPECT_EQ(entry.kind, billing::LedgerEntry::Kind::Charge);
        EXPECT_EQ(entry.channelId, c.channel);
        EXPECT_EQ(entry.requestId.toLatin1(), client->header("x-request-id"));
        EXPECT_EQ(entry.promptTokens, prompt) << c.channel;
        EXPECT_EQ(entry.completionTokens, completion) << c.channel;
        EXPECT_EQ(entry.amount, charge(prompt, completion, c.price)) << c.channel;
    }
    EXPECT_EQ(ledger().reservationsInFlight(), 0);
}

} // namespace
} // namespace sy::integration
