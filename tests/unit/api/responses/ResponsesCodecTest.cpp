// The Responses client side: the Response object a plain answer becomes, what it echoes of the
// request, and the error body.
#include "api/responses/ResponsesCodec.h"

#include "ResponsesTestUtil.h"

#include <QJsonArray>

namespace sy::api::responses {
namespace {

using test::object;

WriterOptions options()
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/gpt");
    o.requestId = "req_42";
    return o;
}

ContentPart toolCall(const QString &id, const QString &name, const QByteArray &args)
{
    ContentPart p;
    p.kind = ContentPart::Kind::ToolCall;
    p.toolCallId = id;
    p.toolName = name;
    p.argumentsJson = args;
    return p;
}

ContentPart thinking(const QString &text, const QString &signature)
{
    ContentPart p = ContentPart::textPart(text);
    p.kind = ContentPart::Kind::Thinking;
    p.signature = signature;
    return p;
}

TEST(ResponsesCodecTest, AnswerBodyIsAResponseObject)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("chatcmpl-upstream");
    answer.parts = {thinking("ponder", "sig"), ContentPart::textPart("Hello"), toolCall("call_1", "weather", R"({"city":"Oslo"})")};
    answer.stopReason = StopReason::ToolUse;
    answer.usage = {10, 5, 3, 2, true};

    QJsonObject body = object(ResponsesCodec().answerBody(answer, options()));
    EXPECT_GT(body.take("created_at").toInteger(), 1'700'000'000);
    EXPECT_EQ(body, object(R"({"id":"resp_42","object":"response","status":"completed","model":"team/gpt",
        "output":[
          {"type":"reasoning","id":"rs_42_0","summary":[{"type":"summary_text","text":"ponder"}],"encrypted_content":"sig"},
          {"type":"message","id":"msg_42_1","status":"completed","role":"assistant",
           "content":[{"type":"output_text","text":"Hello","annotations":[]}]},
          {"type":"function_call","id":"fc_42_2","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}],
        "output_text":"Hello",
        "usage":{"input_tokens":15,"input_tokens_details":{"cached_tokens":3},"output_tokens":5,
                 "output_tokens_details":{"reasoning_tokens":0},"total_tokens":20},
        "error":null,"incomplete_details":null,"instructions":null,"metadata":{},
        "parallel_tool_calls":true,"tool_choice":"auto","tools":[],"text":{"format":{"type":"text"}},
        "reasoning":{"effort":null,"summary":null},"temperature":null,"top_p":null,"max_output_tokens":null,
        "previous_response_id":null,"store":true,"truncation":"disabled"})"));
}

TEST(ResponsesCodecTest, AnswerIdIsTheIdTheServiceStoresUnder)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("msg_from_upstream");
    answer.parts = {ContentPart::textPart("x")};
    EXPECT_EQ(object(ResponsesCodec().answerBody(answer, options())).value("id"), "resp_42");
}

TEST(ResponsesCodecTest, MaxTokensIsAnIncompleteResponse)
{
    CanonicalAnswer answer;
    answer.parts = {ContentPart::textPart("cut sh")};
    answer.stopReason = StopReason::MaxTokens;
    const QJsonObject body = object(ResponsesCodec().answerBody(answer, options()));
    EXPECT_EQ(body.value("status"), "incomplete");
    EXPECT_EQ(body.value("incomplete_details").toObject(), object(R"({"reason":"max_output_tokens"})"));
    EXPECT_EQ(body.value("output_text"), "cut sh");
    EXPECT_TRUE(body.value("usage").isNull());   // the upstream gave none: no made-up zeros
}

TEST(ResponsesCodecTest, AnswerEchoesTheRequest)
{
    auto request = std::make_shared<CanonicalRequest>();
    Tool tool;
    tool.name = QStringLiteral("weather");
    tool.description = QStringLiteral("d");
    tool.inputSchema = object(R"({"type":"object"})");
    request->tools = {tool};
    request->toolChoice.mode = ToolChoice::Mode::Named;
    request->toolChoice.name = QStringLiteral("weather");
    request->toolChoice.disableParallel = true;
    request->temperature = 0.5;
    request->topP = 0.25;
    request->maxTokens = 64;
    request->reasoning = Reasoning{QStringLiteral("high"), std::nullopt};
    request->responseFormat = object(R"({"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object"},"strict":true}})");
    request->previousResponseId = QStringLiteral("resp_1");
    request->store = false;
    WriterOptions o = options();
    o.request = request;

    CanonicalAnswer answer;
    answer.parts = {ContentPart::textPart("{}")};
    const QJsonObject body = object(ResponsesCodec().answerBody(answer, o));
    EXPECT_EQ(body.value("tools").toArray(), QJsonArray{object(R"({"type":"function","name":"weather","description":"d",
        "parameters":{"type":"object"},"strict":null})")});
    EXPECT_EQ(body.value("tool_choice").toObject(), object(R"({"type":"function","name":"weather"})"));
    EXPECT_EQ(body.value("parallel_tool_calls"), false);
    EXPECT_EQ(body.value("temperature"), 0.5);
    EXPECT_EQ(body.value("top_p"), 0.25);
    EXPECT_EQ(body.value("max_output_tokens"), 64);
    EXPECT_EQ(body.value("reasoning").toObject(), object(R"({"effort":"high","summary":null})"));
    EXPECT_EQ(body.value("text").toObject(), object(R"({"format":{"type":"json_schema","name":"a","schema":{"type":"object"},"strict":true}})"));
    EXPECT_EQ(body.value("previous_response_id"), "resp_1");
    EXPECT_EQ(body.value("store"), false);
}

TEST(ResponsesCodecTest, ErrorBodyIsOpenAiShaped)
{
    const QJsonObject body = object(ResponsesCodec().errorBody(ApiError{400, "bad", "previous_response_not_found", "previous_response_id"}));
    EXPECT_EQ(body, object(R"({"error":{"message":"bad","type":"invalid_request_error","param":"previous_response_id",
        "code":"previous_response_not_found"}})"));
}

} // namespace
} // namespace sy::api::responses
