// Canonical requests written as /chat/completions bodies, and chat.completion answers decoded.
#include "api/openai/OpenAiDialect.h"
#include "JsonPrinting.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

ContentPart toolResult(const QString &id, const QString &text)
{
    ContentPart p = ContentPart::textPart(text);
    p.kind = ContentPart::Kind::ToolResult;
    p.toolCallId = id;
    return p;
}

ContentPart image(const QString &mediaType, const QByteArray &data)
{
    ContentPart p;
    p.kind = ContentPart::Kind::Image;
    p.mediaType = mediaType;
    p.base64Data = data;
    return p;
}

ContentPart toolCall(const QString &id, const QString &name, const QByteArray &arguments)
{
    ContentPart p;
    p.kind = ContentPart::Kind::ToolCall;
    p.toolCallId = id;
    p.toolName = name;
    p.argumentsJson = arguments;
    return p;
}

QJsonObject object(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

TEST(OpenAiDialectTest, RequestGoesToChatCompletionsWithBearerAuthOnlyWhenThereIsACredential)
{
    CanonicalRequest request;
    request.messages = {Message{Role::User, {ContentPart::textPart("hi")}}};
    const WireRequest wire = OpenAiDialect().request(request, QStringLiteral("gpt-x"), QStringLiteral("sk-test-123"));
    EXPECT_EQ(wire.path, "/chat/completions");
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "application/json"},
                                         {"authorization", "Bearer sk-test-123"}}));
    EXPECT_FALSE(wire.body.contains('\n'));
    EXPECT_EQ(QJsonDocument::fromJson(wire.body).object(),
              object(R"({"model":"gpt-x","messages":[{"role":"user","content":"hi"}]})"));

    request.stream = true;
    const WireRequest local = OpenAiDialect().request(request, QStringLiteral("llama"), QString());
    EXPECT_EQ(local.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "text/event-stream"}}));
    const QJsonObject body = QJsonDocument::fromJson(local.body).object();
    EXPECT_EQ(body.value("stream"), QJsonValue(true));
    EXPECT_EQ(body.value("stream_options").toObject(), (QJsonObject{{"include_usage", true}}));
}

TEST(OpenAiDialectTest, ConversationIsWrittenWithSystemFirstToolMessagesSplitAndDataUrls)
{
    CanonicalRequest request;
    request.system = {ContentPart::textPart("be brief"), ContentPart::textPart("use metric")};
    ContentPart thinking = ContentPart::textPart("private");
    thinking.kind = ContentPart::Kind::Thinking;
    ContentPart resultWithImage = toolResult("call_2", {});
    resultWithImage.resultParts = {ContentPart::textPart("see chart"), image("image/png", "QUJD")};
    ContentPart failed = toolResult("call_3", "timeout");
    failed.isError = true;
    request.messages = {
        Message{Role::User, {ContentPart::textPart("look"), image("image/jpeg", "/9j/")}},
        Message{Role::Assistant, {thinking, ContentPart::textPart("Calling."), toolCall("call_1", "f", R"({"a":1})"),
                                  toolCall("call_2", "g", {}), toolCall("call_3", "h", "{}")}},
        Message{Role::User, {toolResult("call_1", "one"), resultWithImage, failed, ContentPart::textPart("and now?")}},
    };
    const QJsonObject body = chatRequestBody(request, QStringLiteral("m"));
    EXPECT_EQ(body.value("messages").toArray(), object(R"({"m":[
        {"role":"system","content":"be brief\n\nuse metric"},
        {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/"}}]},
        {"role":"assistant","content":"Calling.","tool_calls":[
            {"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
            {"id":"call_2","type":"function","function":{"name":"g","arguments":"{}"}},
            {"id":"call_3","type":"function","function":{"name":"h","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"call_1","content":"one"},
        {"role":"tool","tool_call_id":"call_2","content":"see chart"},
        {"role":"tool","tool_call_id":"call_3","content":"Error: timeout"},
        {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,QUJD"}},{"type":"text","text":"and now?"}]}
    ]})").value("m").toArray());
}

TEST(OpenAiDialectTest, ToolOnlyAssistantTurnHasNullContentAndImageUrlsStayUrls)
{
    CanonicalRequest request;
    ContentPart remote;
    remote.kind = ContentPart::Kind::Image;
    remote.imageUrl = QStringLiteral("https://example.com/a.png");
    request.messages = {Message{Role::User, {remote}}, Message{Role::Assistant, {toolCall("c", "f", "{}")}},
                        Message{Role::User, {toolResult("c", "done")}}};
    const QJsonArray messages = chatRequestBody(request, QStringLiteral("m")).value("messages").toArray();
    ASSERT_EQ(messages.size(), 3);
    EXPECT_EQ(messages[0].toObject().value("content").toArray()[0].toObject().value("image_url").toObject().value("url").toString(),
              u"https://example.com/a.png");
    EXPECT_TRUE(messages[1].toObject().value("content").isNull());
    EXPECT_EQ(messages[2].toObject(), object(R"({"role":"tool","tool_call_id":"c","content":"done"})"));
}

TEST(OpenAiDialectTest, ToolsSamplingAndReasoningFieldsAreWrittenAndTopKIsDropped)
{
    CanonicalRequest request;
    request.messages = {Message{Role::User, {ContentPart::textPart("x")}}};
    request.tools = {Tool{QStringLiteral("f"), QStringLiteral("does f"), object(R"({"type":"object"})"), {}},
                     Tool{QStringLiteral("g"), {}, {}, {}}};
    request.toolChoice = ToolChoice{ToolChoice::Mode::Named, QStringLiteral("f"), true};
    request.temperature = 0.5;
    request.topP = 0.8;
    request.topK = 40;
    request.maxTokens = 256;
    request.stop = {QStringLiteral("END")};
    request.responseFormat = object(R"({"type":"json_object"})");
    request.reasoning = Reasoning{{}, 5000};
    request.user = QStringLiteral("u-7");
    QJsonObject body = chatRequestBody(request, QStringLiteral("m"));
    body.remove("messages");
    EXPECT_EQ(body, object(R"({"model":"m",
        "tools":[{"type":"function","function":{"name":"f","description":"does f","parameters":{"type":"object"}}},
                 {"type":"function","function":{"name":"g"}}],
        "tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false,
        "temperature":0.5,"top_p":0.8,"max_tokens":256,"stop":["END"],
        "response_format":{"type":"json_object"},"reasoning_effort":"medium","user":"u-7"})"));
}

TEST(OpenAiDialectTest, ReasoningBudgetMapsToEffortAndParallelNeedsTools)
{
    const struct {
        qint64 budget;
        const char *effort;
    } rows[] = {{1024, "low"}, {2047, "low"}, {2048, "medium"}, {8191, "medium"}, {8192, "high"}, {32000, "high"}};
    for (const auto &row : rows) {
        SCOPED_TRACE(row.budget);
        CanonicalRequest request;
        request.reasoning = Reasoning{{}, row.budget};
        request.toolChoice.disableParallel = true;
        const QJsonObject body = chatRequestBody(request, QStringLiteral("m"));
        EXPECT_EQ(body.value("reasoning_effort").toString(), QString::fromLatin1(row.effort));
        EXPECT_FALSE(body.contains("parallel_tool_calls"));
    }
    CanonicalRequest withEffort;
    withEffort.reasoning = Reasoning{QStringLiteral("high"), 100};
    EXPECT_EQ(chatRequestBody(withEffort, QStringLiteral("m")).value("reasoning_effort").toString(), u"high");
}

TEST(OpenAiDialectTest, AnswerWithTextToolCallsReasoningAndCachedUsageIsDecoded)
{
    const DecodedAnswer decoded = OpenAiDialect().decodeAnswer(R"({"id":"chatcmpl-1","object":"chat.completion","model":"up",
        "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Let me check.",
          "reasoning_content":"thinking...",
          "tool_calls":[{"id":"call_9","type":"function","function":{"name":"get","arguments":"{\"q\":1}"}}]}}],
        "usage":{"prompt_tokens":100,"completion_tokens":7,"total_tokens":107,"prompt_tokens_details":{"cached_tokens":60}}})");
    ASSERT_TRUE(decoded.answer.has_value()) << decoded.problem.toStdString();
    EXPECT_TRUE(decoded.problem.isEmpty());
    const CanonicalAnswer &answer = *decoded.answer;
    EXPECT_EQ(answer.id, u"chatcmpl-1");
    EXPECT_EQ(answer.model, u"up");
    EXPECT_EQ(answer.stopReason, StopReason::ToolUse);
    ASSERT_EQ(answer.parts.size(), 3);
    EXPECT_EQ(answer.parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(answer.parts[0].text, u"thinking...");
    EXPECT_EQ(answer.parts[1].kind, ContentPart::Kind::Text);
    EXPECT_EQ(answer.parts[1].text, u"Let me check.");
    EXPECT_EQ(answer.parts[2].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(answer.parts[2].toolCallId, u"call_9");
    EXPECT_EQ(answer.parts[2].toolName, u"get");
    EXPECT_EQ(answer.parts[2].argumentsJson, R"({"q":1})");
    EXPECT_TRUE(answer.usage.known);
    EXPECT_EQ(answer.usage.inputTokens, 40);
    EXPECT_EQ(answer.usage.cacheReadTokens, 60);
    EXPECT_EQ(answer.usage.outputTokens, 7);
    EXPECT_EQ(answer.usage.promptTokensTotal(), 100);
}

TEST(OpenAiDialectTest, FinishReasonsAndMissingUsageAreDecoded)
{
    const struct {
        const char *finish;
        StopReason reason;
    } rows[] = {{"\"stop\"", StopReason::EndTurn}, {"\"length\"", StopReason::MaxTokens},
                {"\"content_filter\"", StopReason::ContentFilter}, {"\"function_call\"", StopReason::ToolUse},
                {"null", StopReason::Unknown}};
    for (const auto &row : rows) {
        SCOPED_TRACE(row.finish);
        const QByteArray body = QByteArray(R"({"choices":[{"message":{"content":"x"},"finish_reason":)") + row.finish + "}]}";
        const DecodedAnswer decoded = OpenAiDialect().decodeAnswer(body);
        ASSERT_TRUE(decoded.answer.has_value());
        EXPECT_EQ(decoded.answer->stopReason, row.reason);
        EXPECT_FALSE(decoded.answer->usage.known);
    }
}

TEST(OpenAiDialectTest, BodiesThatAreNoAnswerAreProblems)
{
    const char *rows[] = {
        "not json", "[1,2]", R"({"choices":[]})", R"({"id":"x"})", R"({"choices":[{"index":0}]})",
        R"({"error":{"message":"overloaded","type":"server_error"}})",
    };
    for (const char *body : rows) {
        SCOPED_TRACE(body);
        const DecodedAnswer decoded = OpenAiDialect().decodeAnswer(QByteArrayView(body));
        EXPECT_FALSE(decoded.answer.has_value());
        EXPECT_FALSE(decoded.problem.isEmpty());
    }
    EXPECT_TRUE(OpenAiDialect().decodeAnswer(R"({"error":{"message":"overloaded"}})").problem.contains(u"overloaded"));
}

} // namespace
} // namespace sy::api::openai
