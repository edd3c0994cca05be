// Anthropic client on an Anthropic channel: bytes kept, only the model renamed each way.
#include "api/anthropic/AnthropicPassThrough.h"
#include "api/anthropic/AnthropicWire.h"

#include "AnthropicTestUtil.h"

#include <QJsonDocument>

namespace sy::api::anthropic {
namespace {

using test::object;

ClientRequest client(const QByteArray &raw, bool stream = false)
{
    ClientRequest c;
    c.format = Format::Anthropic;
    c.raw = raw;
    c.body = QJsonDocument::fromJson(raw).object();
    c.stream = stream;
    return c;
}

WriterOptions options()
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/claude");
    o.requestId = "req-1";
    return o;
}

TEST(AnthropicPassThroughTest, RequestKeepsEveryByteButTheModelAndRoutingFields)
{
    const QByteArray raw = R"({"model":"team/claude","max_tokens":64,"models":["a","b"],"messages":[{"role":"user","content":"caf\u00e9 \"q\""}],)"
                           R"("provider":{"sort":"price"},"future_field":{"x":[1,2.50]},"tools":[{"type":"web_search_20250305","name":"web_search"}]})";
    AnthropicPassThrough t(client(raw), options());
    const WireRequest wire = t.request("claude-up-2", "sk-test-key");
    EXPECT_EQ(wire.path, "/messages");
    EXPECT_EQ(wire.body, QByteArray(R"({"model":"claude-up-2","max_tokens":64,"messages":[{"role":"user","content":"caf\u00e9 \"q\""}],)"
                                    R"("future_field":{"x":[1,2.50]},"tools":[{"type":"web_search_20250305","name":"web_search"}]})"));
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "application/json"},
                                          {"x-api-key", "sk-test-key"}, {"anthropic-version", "2023-06-01"}}));
}

TEST(AnthropicPassThroughTest, RequestAddsTheModelWhenOnlyModelsNamedIt)
{
    AnthropicPassThrough t(client(R"({"models":["team/claude"],"max_tokens":1,"messages":[]})"), options());
    EXPECT_EQ(t.request("claude-up", {}).body, QByteArray(R"({"max_tokens":1,"messages":[],"model":"claude-up"})"));
}

TEST(AnthropicPassThroughTest, EscapedKeysFallBackToAJsonRoundTrip)
{
    // "mod\u0065l" is `model`: a byte edit would leave it for the upstream to read.
    AnthropicPassThrough t(client(R"({"mod\u0065l":"team/claude","max_tokens":1,"provider":{"only":["x"]}})"), options());
    EXPECT_EQ(object(t.request("claude-up", {}).body), object(R"({"model":"claude-up","max_tokens":1})"));
}

TEST(AnthropicPassThroughTest, ClientVersionAndBetaHeadersAreForwarded)
{
    ClientRequest c = client(R"({"model":"m","max_tokens":1,"messages":[]})", true);
    c.forwardHeaders = {{"anthropic-version", "2023-01-01"}, {"Anthropic-Beta", "prompt-caching-2024-07-31"},
                        {"x-other", "no"}};
    AnthropicPassThrough t(c, options());
    EXPECT_EQ(t.request("up", {}).headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "text/event-stream"},
                                                         {"anthropic-version", "2023-01-01"},
                                                         {"anthropic-beta", "prompt-caching-2024-07-31"}}));
}

TEST(AnthropicPassThroughTest, AnswerRenamesTheModelAndReadsUsage)
{
    AnthropicPassThrough t(client(R"({"model":"m","max_tokens":1,"messages":[]})"), options());
    const QByteArray upstream = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}],)"
                                R"("stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":4},"extra":{"kept":true}})";
    const TranslatedAnswer a = t.answer(upstream);
    EXPECT_TRUE(a.problem.isEmpty());
    QByteArray expected = upstream;
    expected.replace(R"("model":"claude-up")", R"("model":"team/claude")");
    EXPECT_EQ(a.body, expected);
    EXPECT_TRUE(a.usage.known);
    EXPECT_EQ(a.usage.inputTokens, 10);
    EXPECT_EQ(a.usage.cacheReadTokens, 90);
    EXPECT_EQ(a.usage.outputTokens, 4);
    EXPECT_TRUE(a.text.isEmpty());   // read only for content logging
    EXPECT_EQ(a.contentType, "application/json");

    WriterOptions logging = options();
    logging.captureText = true;
    AnthropicPassThrough logged(client(R"({"model":"m","max_tokens":1,"messages":[]})"), logging);
    EXPECT_EQ(logged.answer(upstream).text, "Hi there");
}

TEST(AnthropicPassThroughTest, AnswerUsageIsReadAsAFullParseReadsIt)
{
    // Counts and nulls are read from the text; anything else goes through a full parse.
    const QList<QByteArray> usages = {
        R"({"input_tokens":10,"output_tokens":9})",
        R"({"input_tokens":10,"cache_creation_input_tokens":null,"cache_read_input_tokens":0,"output_tokens":4})",
        R"({"input_tokens":5,"input_tokens":null,"output_tokens":1})",
        R"({"input_tokens":null,"input_tokens":7})",
        R"({"input_tokens":10,"output_tokens":9,"service_tier":"standard","cache_creation":{"ephemeral_5m_input_tokens":0}})",
        R"({"input_tokens":1.5,"output_tokens":2})",
        R"({"input_tokens":-1,"output_tokens":2})",
        R"({"input_tokens":010})",
        R"({"inp\u0075t_tokens":3})",
        R"({})",
        R"({"input_tokens":1,})",
        R"([1])",
        R"(null)",
    };
    AnthropicPassThrough t(client(R"({"model":"m","max_tokens":1,"messages":[]})"), options());
    for (const QByteArray &usage : usages) {
        SCOPED_TRACE(usage.toStdString());
        const QByteArray upstream = R"({"model":"x","content":[{"type":"text","text":"a"}],"usage":)" + usage + "}";
        const TranslatedAnswer a = t.answer(upstream);
        TokenUsage expected;
        mergeUsage(QJsonDocument::fromJson(usage).object(), expected);
        EXPECT_EQ(a.usage.known, expected.known);
        EXPECT_EQ(a.usage.inputTokens, expected.inputTokens);
        EXPECT_EQ(a.usage.outputTokens, expected.outputTokens);
        EXPECT_EQ(a.usage.cacheWriteTokens, expected.cacheWriteTokens);
        EXPECT_EQ(a.usage.cacheReadTokens, expected.cacheReadTokens);
    }
}

TEST(AnthropicPassThroughTest, AnswerWithoutContentOrNotAnObjectIsAProblem)
{
    AnthropicPassThrough t(client(R"({"model":"m"})"), options());
    for (const QByteArray &body : {QByteArray("oops"), QByteArray("[]"), QByteArray(R"({"model":"x","content":[ ]})"),
                                  QByteArray(R"({"type":"error","error":{"type":"api_error","message":"x"}})")}) {
        SCOPED_TRACE(body.toStdString());
        EXPECT_FALSE(t.answer(body).problem.isEmpty());
    }
}

TEST(AnthropicPassThroughTest, StreamEventsPassAsTheyCameWithTheModelRenamedInMessageStart)
{
    AnthropicPassThrough t(client(R"({"model":"m","stream":true})", true), options());

    const TranslatedEvent start = t.event({"message_start",
        R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[],"usage":{"input_tokens":20,"cache_creation_input_tokens":5,"output_tokens":1}}})"});
    EXPECT_EQ(start.out, QByteArray("event: message_start\ndata: "
        R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"team/claude","content":[],"usage":{"input_tokens":20,"cache_creation_input_tokens":5,"output_tokens":1}}})"
        "\n\n"));
    EXPECT_FALSE(start.content);
    ASSERT_TRUE(start.usage.has_value());
    EXPECT_EQ(start.usage->inputTokens, 20);
    EXPECT_EQ(start.usage->cacheWriteTokens, 5);

    const TranslatedEvent ping = t.event({"ping", R"({"type": "ping"})"});
    EXPECT_EQ(ping.out, QByteArray("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
    EXPECT_FALSE(ping.content);

    const QByteArray blockStart = R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})";
    const TranslatedEvent opened = t.event({"content_block_start", blockStart});
    EXPECT_EQ(opened.out, "event: content_block_start\ndata: " + blockStart + "\n\n");
    EXPECT_TRUE(opened.content);

    const QByteArray delta = R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}})";
    EXPECT_EQ(t.event({"content_block_delta", delta}).out, "event: content_block_delta\ndata: " + delta + "\n\n");
    const TranslatedEvent stop = t.event({"content_block_stop", R"({"type":"content_block_stop","index":0})"});
    EXPECT_TRUE(stop.content) << "content stays committed once it began";
    EXPECT_FALSE(stop.usage.has_value());

    const TranslatedEvent messageDelta = t.event({"message_delta",
        R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42}})"});
    ASSERT_TRUE(messageDelta.usage.has_value());
    EXPECT_EQ(messageDelta.usage->inputTokens, 20) << "merged with message_start's";
    EXPECT_EQ(messageDelta.usage->cacheWriteTokens, 5);
    EXPECT_EQ(messageDelta.usage->outputTokens, 42);

    EXPECT_EQ(t.event({"message_stop", R"({"type":"message_stop"})"}).out,
              QByteArray("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    EXPECT_TRUE(t.endOfStream().isEmpty());
}

TEST(AnthropicPassThroughTest, ErrorEventIsAnUpstreamError)
{
    AnthropicPassThrough t(client(R"({"model":"m"})", true), options());
    const TranslatedEvent e = t.event({"error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"});
    EXPECT_TRUE(e.upstreamError);
    EXPECT_EQ(e.errorMessage, "Overloaded");
    EXPECT_TRUE(e.out.isEmpty());
}

TEST(AnthropicPassThroughTest, EventsThatAreNotJsonObjectsAreMalformed)
{
    AnthropicPassThrough t(client(R"({"model":"m"})", true), options());
    EXPECT_TRUE(t.event({"content_block_delta", "not json"}).malformed);
    EXPECT_TRUE(t.event({"message_start", R"({"type":"message_start","message":"x"})"}).malformed);
    EXPECT_TRUE(t.event({"message_delta", R"({"type":"message_delta",)"}).malformed);
}

TEST(AnthropicPassThroughTest, UnnamedEventsAreRecognisedByTheirType)
{
    AnthropicPassThrough t(client(R"({"model":"m"})", true), options());
    const TranslatedEvent start = t.event({"", R"({"type":"message_start","message":{"model":"claude-up","usage":{"input_tokens":3}}})"});
    EXPECT_EQ(start.out, QByteArray(R"(data: {"type":"message_start","message":{"model":"team/claude","usage":{"input_tokens":3}}})" "\n\n"));
    EXPECT_TRUE(t.event({"", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})"}).content);
}

TEST(AnthropicPassThroughTest, InterruptedIsTheAnthropicErrorEvent)
{
    AnthropicPassThrough t(client(R"({"model":"m"})", true), options());
    EXPECT_EQ(t.interrupted(QStringLiteral("idle timeout")),
              QByteArray(R"(event: error)" "\n" R"(data: {"type":"error","error":{"type":"api_error","message":"idle timeout"}})" "\n\n"));
}

} // namespace
} // namespace sy::api::anthropic
