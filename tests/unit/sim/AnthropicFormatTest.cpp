// Anthropic Messages on the simulator: request reading, plain answers, the named stream events,
// tool_use answers, count_tokens, the model list and Anthropic-shaped errors, on loopback.
#include "AnthropicFormat.h"
#include "FormatTestSupport.h"
#include "SimServerFixture.h"

#include <QJsonArray>

namespace sy::sim::test {
namespace {

using AnthropicFormatTest = SimServerFixture;

const sy::test::HeaderList kKey{{"x-api-key", "sk-test-anthropic"}, {"anthropic-version", "2023-06-01"}};

QByteArray names(const QList<QPair<QByteArray, QByteArray>> &events)
{
    QByteArrayList out;
    for (const auto &event : events)
        out.append(event.first);
    return out.join(',');
}

TEST(AnthropicRequestTest, ReadsModelCapStreamSystemBlocksAndToolResults)
{
    const RequestParse parsed = AnthropicFormat().parseRequest(postOf(R"({"model":"claude-x","max_tokens":9,"stream":true,
        "system":[{"type":"text","text":"0123456789"}],
        "messages":[{"role":"user","content":[{"type":"text","text":"0123456789"},
                                               {"type":"image","source":{"type":"base64","data":"AAAA"}}]},
                    {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
                    {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"01234567"}]}],
        "tools":[{"name":"f","input_schema":{"type":"object"}}]})", kKey), "/v1/messages");
    ASSERT_TRUE(parsed.request) << qPrintable(parsed.error);
    EXPECT_EQ(parsed.request->model, u"claude-x");
    EXPECT_EQ(parsed.request->maxTokens, 9);
    EXPECT_TRUE(parsed.request->stream);
    EXPECT_EQ(parsed.request->promptTokens, 7);  // 10 + 10 + 2 ("{}") + 8 characters
    EXPECT_EQ(parsed.request->firstToolName, u"f");
    EXPECT_FALSE(parsed.request->lastTurnIsUserText);  // the last turn is a tool result
}

TEST(AnthropicRequestTest, MaxTokensIsRequiredExceptForCountTokens)
{
    const QByteArray body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
    const RequestParse messages = AnthropicFormat().parseRequest(postOf(body, kKey), "/v1/messages");
    EXPECT_FALSE(messages.request);
    EXPECT_EQ(messages.status, 400);
    EXPECT_TRUE(messages.error.contains(u"max_tokens"));
    EXPECT_TRUE(AnthropicFormat().parseRequest(postOf(body, kKey), "/v1/messages/count_tokens").request);
}

TEST(AnthropicRequestTest, KeyIsRequiredInXApiKeyOrBearer)
{
    const QByteArray body = R"({"model":"m","max_tokens":5,"messages":[]})";
    EXPECT_EQ(AnthropicFormat().parseRequest(postOf(body), "/v1/messages").status, 401);
    EXPECT_TRUE(AnthropicFormat().parseRequest(postOf(body, {{"authorization", "Bearer sk-test-1"}}), "/v1/messages").request);
    EXPECT_TRUE(AnthropicFormat().parseRequest(postOf(body, {{"x-api-key", "sk-test-1"}}), "/v1/messages").request);
}

TEST_F(AnthropicFormatTest, PlainAnswerHasAnthropicMessageShape)
{
    const auto client = call("POST", "/anthropic/v1/messages",
                             R"({"model":"claude-sim","max_tokens":100,"system":"be brief",
                                 "messages":[{"role":"user","content":"0123456789abcdef"}]})", kKey);
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject body = json(client->body());
    EXPECT_TRUE(body["id"].toString().startsWith(u"msg_"));
    EXPECT_EQ(body["type"].toString(), u"message");
    EXPECT_EQ(body["role"].toString(), u"assistant");
    EXPECT_EQ(body["model"].toString(), u"claude-sim");
    EXPECT_EQ(body["content"][0]["type"].toString(), u"text");
    EXPECT_EQ(body["content"][0]["text"].toString().split(' ').size(), 16);
    EXPECT_EQ(body["stop_reason"].toString(), u"end_turn");
    EXPECT_TRUE(body["stop_sequence"].isNull());
    EXPECT_EQ(body["usage"]["input_tokens"].toInt(), 6);  // 8 + 16 characters
    EXPECT_EQ(body["usage"]["output_tokens"].toInt(), 16);
    EXPECT_EQ(body["usage"]["cache_creation_input_tokens"].toInt(), 0);
    EXPECT_EQ(body["usage"]["cache_read_input_tokens"].toInt(), 0);
    EXPECT_EQ(getStats()["providers"]["anthropic"].toInt(), 1);
}

TEST_F(AnthropicFormatTest, MaxTokensCutIsStopReasonMaxTokens)
{
    const auto client = call("POST", "/v1/messages", R"({"model":"m","max_tokens":3,"messages":[]})", kKey);
    const QJsonObject body = json(client->body());
    EXPECT_EQ(body["stop_reason"].toString(), u"max_tokens");
    EXPECT_EQ(body["usage"]["output_tokens"].toInt(), 3);
}

TEST_F(AnthropicFormatTest, StreamSendsTheNamedEventsInAnthropicsOrder)
{
    putRules(R"({"rules":[{"output_tokens":3}]})");
    const auto client = call("POST", "/anthropic/v1/messages",
                             R"({"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]})", kKey);
    EXPECT_EQ(client->status(), 200);
    EXPECT_EQ(client->header("content-type"), "text/event-stream");
    EXPECT_TRUE(client->isComplete());
    const auto events = namedEvents(client->body());
    EXPECT_EQ(names(events), "message_start,content_block_start,ping,content_block_delta,content_block_delta,"
                             "content_block_delta,content_block_stop,message_delta,message_stop");
    QString text;
    for (const auto &[name, data] : events) {
        const QJsonObject payload = json(data);
        EXPECT_EQ(payload["type"].toString().toLatin1(), name);  // every data names its event
        if (name == "content_block_delta") {
            EXPECT_EQ(payload["delta"]["type"].toString(), u"text_delta");
            text += payload["delta"]["text"].toString();
        }
    }
    EXPECT_EQ(text.split(' ').size(), 3);
    EXPECT_EQ(json(events[0].second)["message"]["usage"]["input_tokens"].toInt(), 1);
    EXPECT_EQ(json(events[1].second)["content_block"]["type"].toString(), u"text");
    const QJsonObject delta = json(events[7].second);
    EXPECT_EQ(delta["delta"]["stop_reason"].toString(), u"end_turn");
    EXPECT_EQ(delta["usage"]["output_tokens"].toInt(), 3);
    // Each event is `event: NAME\ndata: {json}\n\n`.
    EXPECT_TRUE(client->body().startsWith("event: message_start\ndata: {"));
    EXPECT_TRUE(client->body().endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
}

TEST_F(AnthropicFormatTest, ToolsRequestEndingInUserTextGetsAToolUse)
{
    const QByteArray request = R"({"model":"m","max_tokens":50,"tools":[{"name":"get_weather","input_schema":{"type":"object"}},
                                   {"name":"other","input_schema":{"type":"object"}}],
                                   "messages":[{"role":"user","content":"weather?"}]})";
    const QJsonObject plain = json(call("POST", "/v1/messages", request, kKey)->body());
    EXPECT_EQ(plain["stop_reason"].toString(), u"tool_use");
    ASSERT_EQ(plain["content"].toArray().size(), 1);
    EXPECT_EQ(plain["content"][0]["type"].toString(), u"tool_use");
    EXPECT_EQ(plain["content"][0]["name"].toString(), u"get_weather");
    EXPECT_TRUE(plain["content"][0]["id"].toString().startsWith(u"toolu_"));
    EXPECT_TRUE(plain["content"][0]["input"].isObject());

    QByteArray streamed = request;
    streamed.replace("\"max_tokens\":50", "\"max_tokens\":50,\"stream\":true");
    const auto events = namedEvents(call("POST", "/v1/messages", streamed, kKey)->body());
    EXPECT_EQ(names(events), "message_start,content_block_start,ping,content_block_delta,content_block_delta,"
                             "content_block_stop,message_delta,message_stop");
    EXPECT_EQ(json(events[1].second)["content_block"]["type"].toString(), u"tool_use");
    EXPECT_EQ(json(events[1].second)["content_block"]["name"].toString(), u"get_weather");
    QByteArray input;
    for (int i : {3, 4}) {
        EXPECT_EQ(json(events[i].second)["delta"]["type"].toString(), u"input_json_delta");
        input += json(events[i].second)["delta"]["partial_json"].toString().toUtf8();
    }
    EXPECT_TRUE(QJsonDocument::fromJson(input).isObject()) << input.constData();
    EXPECT_EQ(json(events[6].second)["delta"]["stop_reason"].toString(), u"tool_use");
}

TEST_F(AnthropicFormatTest, ToolResultTurnGetsTextNotAnotherToolCall)
{
    const QJsonObject body = json(call("POST", "/v1/messages", R"({"model":"m","max_tokens":50,
        "tools":[{"name":"f","input_schema":{}}],
        "messages":[{"role":"user","content":"go"},
                    {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},
                    {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"42"}]}]})", kKey)->body());
    EXPECT_EQ(body["stop_reason"].toString(), u"end_turn");
    EXPECT_EQ(body["content"][0]["type"].toString(), u"text");
}

TEST_F(AnthropicFormatTest, MissingMaxTokensIsAnInvalidRequestError)
{
    const auto client = call("POST", "/v1/messages", R"({"model":"m","messages":[]})", kKey);
    EXPECT_EQ(client->status(), 400);
    const QJsonObject body = json(client->body());
    EXPECT_EQ(body["type"].toString(), u"error");
    EXPECT_EQ(body["error"]["type"].toString(), u"invalid_request_error");
    EXPECT_TRUE(body["error"]["message"].toString().contains(u"max_tokens"));
}

TEST_F(AnthropicFormatTest, MissingKeyIsAnAuthenticationError)
{
    const auto client = call("POST", "/v1/messages", R"({"model":"m","max_tokens":5,"messages":[]})");
    EXPECT_EQ(client->status(), 401);
    EXPECT_EQ(json(client->body())["error"]["type"].toString(), u"authentication_error");
}

TEST_F(AnthropicFormatTest, UnknownMessagesPathIsANotFoundError)
{
    const auto client = call("POST", "/anthropic/v1/messages/batches", "{}", kKey);
    EXPECT_EQ(client->status(), 404);
    EXPECT_EQ(json(client->body())["error"]["type"].toString(), u"not_found_error");
}

TEST_F(AnthropicFormatTest, CountTokensAnswersInputTokens)
{
    const auto client = call("POST", "/anthropic/v1/messages/count_tokens",
                             R"({"model":"m","system":"0123","messages":[{"role":"user","content":"0123456789ab"}]})", kKey);
    EXPECT_EQ(client->status(), 200);
    EXPECT_EQ(json(client->body()), QJsonObject({{"input_tokens", 4}}));
    EXPECT_EQ(getStats()["requests"].toInt(), 0);
}

TEST_F(AnthropicFormatTest, ModelListWithAnthropicVersionHasAnthropicsShape)
{
    putRules(R"({"models":["c1","c2"],"rules":[]})");
    const QJsonObject list = json(call("GET", "/anthropic/v1/models", {}, kKey)->body());
    ASSERT_EQ(list["data"].toArray().size(), 2);
    EXPECT_EQ(list["data"][0]["type"].toString(), u"model");
    EXPECT_EQ(list["data"][0]["id"].toString(), u"c1");
    EXPECT_EQ(list["data"][0]["display_name"].toString(), u"c1");
    EXPECT_FALSE(list["data"][0]["created_at"].toString().isEmpty());
    EXPECT_EQ(list["has_more"].toBool(true), false);
    EXPECT_EQ(list["first_id"].toString(), u"c1");
    EXPECT_EQ(list["last_id"].toString(), u"c2");
    // Without the header the same path is OpenAI's list.
    EXPECT_EQ(json(call("GET", "/anthropic/v1/models")->body())["object"].toString(), u"list");
}

TEST(AnthropicErrorTest, StatusesMapToAnthropicErrorTypes)
{
    EXPECT_EQ(AnthropicFormat::errorType(529), "overloaded_error");
    EXPECT_EQ(AnthropicFormat::errorType(429), "rate_limit_error");
    EXPECT_EQ(AnthropicFormat::errorType(500), "api_error");
    EXPECT_EQ(AnthropicFormat::errorType(401), "authentication_error");
    EXPECT_EQ(AnthropicFormat::errorType(404), "not_found_error");
    EXPECT_EQ(AnthropicFormat::errorType(400), "invalid_request_error");
    const QJsonObject body = parseJson(AnthropicFormat().errorBody(529, QStringLiteral("busy")));
    EXPECT_EQ(body["type"].toString(), u"error");
    EXPECT_EQ(body["error"]["message"].toString(), u"busy");
}

} // namespace
} // namespace sy::sim::test
