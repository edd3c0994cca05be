// The Anthropic channel side: the canonical request as a Messages request, and Messages answers
// back to canonical.
#include "api/anthropic/AnthropicDialect.h"

#include "AnthropicTestUtil.h"

#include <QJsonArray>

namespace sy::api::anthropic {
namespace {

using test::object;

ContentPart part(ContentPart::Kind kind)
{
    ContentPart p;
    p.kind = kind;
    return p;
}

Message message(Role role, QList<ContentPart> parts)
{
    Message m;
    m.role = role;
    m.parts = std::move(parts);
    return m;
}

CanonicalRequest simpleRequest()
{
    CanonicalRequest r;
    r.model = QStringLiteral("public/model");
    r.messages = {message(Role::User, {ContentPart::textPart("Hi")})};
    return r;
}

QJsonObject body(const CanonicalRequest &r) { return object(AnthropicDialect().request(r, "claude-up", "sk-test-1").body); }

TEST(AnthropicDialectTest, RequestGoesToMessagesWithVersionAndKeyHeaders)
{
    CanonicalRequest r = simpleRequest();
    WireRequest wire = AnthropicDialect().request(r, "claude-up", "sk-test-1");
    EXPECT_EQ(wire.path, "/messages");
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "application/json"},
                                          {"x-api-key", "sk-test-1"}, {"anthropic-version", "2023-06-01"}}));
    r.stream = true;
    wire = AnthropicDialect().request(r, "claude-up", {});
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "text/event-stream"},
                                          {"anthropic-version", "2023-06-01"}}))
        << "no x-api-key without a credential";
    EXPECT_EQ(object(wire.body).value("stream"), true);
}

TEST(AnthropicDialectTest, PlainRequestGetsTheDefaultMaxTokensAndTheUpstreamModel)
{
    EXPECT_EQ(body(simpleRequest()), object(R"({"model":"claude-up","max_tokens":4096,"stream":false,
        "messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]})"));
    CanonicalRequest r = simpleRequest();
    r.maxTokens = 300;
    EXPECT_EQ(body(r).value("max_tokens"), 300);
}

TEST(AnthropicDialectTest, SamplingStopToolsAndUserAreWritten)
{
    CanonicalRequest r = simpleRequest();
    r.temperature = 0.25;
    r.topP = 0.5;
    r.topK = 7;
    r.stop = {"END"};
    r.user = QStringLiteral("u-1");
    Tool tool;
    tool.name = QStringLiteral("get_weather");
    tool.description = QStringLiteral("Weather now");
    tool.inputSchema = object(R"({"type":"object","properties":{"city":{"type":"string"}}})");
    tool.cacheControl = object(R"({"type":"ephemeral"})");
    Tool bare;
    bare.name = QStringLiteral("ping");
    r.tools = {tool, bare};
    r.toolChoice.mode = ToolChoice::Mode::Required;
    r.toolChoice.disableParallel = true;
    const QJsonObject b = body(r);
    EXPECT_EQ(b.value("temperature"), 0.25);
    EXPECT_EQ(b.value("top_p"), 0.5);
    EXPECT_EQ(b.value("top_k"), 7);
    EXPECT_EQ(b.value("stop_sequences"), QJsonArray{"END"});
    EXPECT_EQ(b.value("metadata"), object(R"({"user_id":"u-1"})"));
    EXPECT_EQ(b.value("tools").toArray(), object(R"({"t":[
        {"name":"get_weather","description":"Weather now","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},"cache_control":{"type":"ephemeral"}},
        {"name":"ping","input_schema":{"type":"object"}}]})").value("t").toArray());
    EXPECT_EQ(b.value("tool_choice"), object(R"({"type":"any","disable_parallel_tool_use":true})"));
}

TEST(AnthropicDialectTest, ToolChoiceModes)
{
    const std::vector<std::pair<ToolChoice::Mode, QByteArray>> rows{
        {ToolChoice::Mode::Auto, R"({"type":"auto"})"}, {ToolChoice::Mode::None, R"({"type":"none"})"},
        {ToolChoice::Mode::Named, R"({"type":"tool","name":"f"})"}};
    for (const auto &[mode, json] : rows) {
        SCOPED_TRACE(json.toStdString());
        CanonicalRequest r = simpleRequest();
        r.toolChoice.mode = mode;
        r.toolChoice.name = QStringLiteral("f");
        EXPECT_EQ(body(r).value("tool_choice"), object(json));
    }
    EXPECT_FALSE(body(simpleRequest()).contains("tool_choice"));
}

TEST(AnthropicDialectTest, SystemKeepsCacheControl)
{
    CanonicalRequest r = simpleRequest();
    ContentPart cached = ContentPart::textPart("long rules");
    cached.cacheControl = object(R"({"type":"ephemeral"})");
    r.system = {ContentPart::textPart("You are terse."), cached};
    EXPECT_EQ(body(r).value("system").toArray(), object(R"({"s":[{"type":"text","text":"You are terse."},
        {"type":"text","text":"long rules","cache_control":{"type":"ephemeral"}}]})").value("s").toArray());
}

TEST(AnthropicDialectTest, TurnsOfOneRoleAreMergedWithToolResultsFirst)
{
    CanonicalRequest r;
    ContentPart call = part(ContentPart::Kind::ToolCall);
    call.toolCallId = QStringLiteral("call_1");
    call.toolName = QStringLiteral("get_weather");
    call.argumentsJson = R"({"city":"Oslo"})";
    ContentPart result = part(ContentPart::Kind::ToolResult);
    result.toolCallId = QStringLiteral("call_1");
    result.text = QStringLiteral("12C");
    ContentPart failed = part(ContentPart::Kind::ToolResult);
    failed.toolCallId = QStringLiteral("call_2");
    failed.isError = true;
    failed.resultParts = {ContentPart::textPart("boom")};
    ContentPart foreignThinking = part(ContentPart::Kind::Thinking);
    foreignThinking.text = QStringLiteral("no signature");
    r.messages = {
        message(Role::User, {ContentPart::textPart("a")}),
        message(Role::User, {ContentPart::textPart("b")}),
        message(Role::Assistant, {foreignThinking, ContentPart::textPart(""), call}),
        message(Role::User, {ContentPart::textPart("and?")}),
        message(Role::User, {result, failed}),
        message(Role::Assistant, {ContentPart::textPart("")}),
    };
    EXPECT_EQ(body(r).value("messages").toArray(), object(R"({"m":[
        {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Oslo"}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"12C"},
                                  {"type":"tool_result","tool_use_id":"call_2","is_error":true,"content":[{"type":"text","text":"boom"}]},
                                  {"type":"text","text":"and?"}]}]})").value("m").toArray())
        << "empty text, unsigned thinking and empty turns are left out";
}

TEST(AnthropicDialectTest, ImagesAsBase64OrUrl)
{
    ContentPart base64 = part(ContentPart::Kind::Image);
    base64.mediaType = QStringLiteral("image/png");
    base64.base64Data = "iVBORw0KGgo=";
    ContentPart dataUrl = part(ContentPart::Kind::Image);
    dataUrl.imageUrl = QStringLiteral("data:image/jpeg;base64,/9j/4AAQ");
    ContentPart url = part(ContentPart::Kind::Image);
    url.imageUrl = QStringLiteral("https://example.com/cat.png");
    CanonicalRequest r;
    r.messages = {message(Role::User, {base64, dataUrl, url})};
    EXPECT_EQ(body(r).value("messages").toArray().at(0).toObject().value("content").toArray(), object(R"({"c":[
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
        {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}},
        {"type":"image","source":{"type":"url","url":"https://example.com/cat.png"}}]})").value("c").toArray());
}

TEST(AnthropicDialectTest, SignedThinkingIsReplayed)
{
    ContentPart thinking = part(ContentPart::Kind::Thinking);
    thinking.text = QStringLiteral("hmm");
    thinking.signature = QStringLiteral("sig");
    ContentPart redacted = part(ContentPart::Kind::Thinking);
    redacted.redacted = true;
    redacted.signature = QStringLiteral("opaque");
    CanonicalRequest r = simpleRequest();
    r.messages.append(message(Role::Assistant, {thinking, redacted, ContentPart::textPart("ok")}));
    EXPECT_EQ(body(r).value("messages").toArray().at(1).toObject().value("content").toArray(), object(R"({"c":[
        {"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"redacted_thinking","data":"opaque"},
        {"type":"text","text":"ok"}]})").value("c").toArray());
}

TEST(AnthropicDialectTest, ThinkingFromABudgetOrAnEffort)
{
    struct Row {
        const char *name;
        std::optional<qint64> budget;
        QString effort;
        std::optional<qint64> maxTokens;
        qint64 wantBudget;
        qint64 wantMaxTokens;
    };
    const std::vector<Row> rows{
        {"budget below max_tokens", 2000, {}, 8000, 2000, 8000},
        {"budget raised to the minimum", 100, {}, 8000, 1024, 8000},
        {"effort low", std::nullopt, "low", 8000, 1024, 8000},
        {"effort medium with the default max_tokens", std::nullopt, "medium", std::nullopt, 4096, 8192},
        {"effort high above max_tokens", std::nullopt, "high", 1000, 16384, 17384},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.name);
        CanonicalRequest r = simpleRequest();
        r.maxTokens = row.maxTokens;
        r.temperature = 0.3;
        r.topK = 5;
        r.topP = 0.97;
        r.reasoning = Reasoning{row.effort, row.budget};
        const QJsonObject b = body(r);
        EXPECT_EQ(b.value("thinking"), QJsonObject({{"type", "enabled"}, {"budget_tokens", row.wantBudget}}));
        EXPECT_EQ(b.value("max_tokens"), row.wantMaxTokens);
        EXPECT_FALSE(b.contains("temperature")) << "Anthropic refuses temperature with thinking";
        EXPECT_FALSE(b.contains("top_k"));
        EXPECT_EQ(b.value("top_p"), 0.97);
    }
    CanonicalRequest none = simpleRequest();
    none.reasoning = Reasoning{QStringLiteral("none"), std::nullopt};
    EXPECT_FALSE(body(none).contains("thinking"));
}

TEST(AnthropicDialectTest, AnswerDecodesEveryBlockStopReasonAndUsage)
{
    const DecodedAnswer decoded = AnthropicDialect().decodeAnswer(R"({"id":"msg_1","type":"message","role":"assistant",
        "model":"claude-up","content":[
            {"type":"thinking","thinking":"hmm","signature":"sig"},
            {"type":"redacted_thinking","data":"opaque"},
            {"type":"text","text":"Hello"},
            {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}},
            {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}}],
        "stop_reason":"tool_use","stop_sequence":null,
        "usage":{"input_tokens":12,"output_tokens":30,"cache_creation_input_tokens":4,"cache_read_input_tokens":100}})");
    ASSERT_TRUE(decoded.answer.has_value()) << decoded.problem.toStdString();
    const CanonicalAnswer &a = *decoded.answer;
    EXPECT_EQ(a.id, "msg_1");
    EXPECT_EQ(a.model, "claude-up");
    ASSERT_EQ(a.parts.size(), 5);
    EXPECT_EQ(a.parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(a.parts[0].text, "hmm");
    EXPECT_EQ(a.parts[0].signature, "sig");
    EXPECT_TRUE(a.parts[1].redacted);
    EXPECT_EQ(a.parts[1].signature, "opaque");
    EXPECT_EQ(a.parts[2].text, "Hello");
    EXPECT_EQ(a.parts[3].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(a.parts[3].toolCallId, "toolu_1");
    EXPECT_EQ(a.parts[3].toolName, "get_weather");
    EXPECT_EQ(object(a.parts[3].argumentsJson), object(R"({"city":"Oslo"})"));
    EXPECT_EQ(a.parts[4].kind, ContentPart::Kind::Text);
    EXPECT_EQ(a.parts[4].text, "[unsupported block: server_tool_use]");
    EXPECT_EQ(a.stopReason, StopReason::ToolUse);
    EXPECT_TRUE(a.usage.known);
    EXPECT_EQ(a.usage.inputTokens, 12);
    EXPECT_EQ(a.usage.outputTokens, 30);
    EXPECT_EQ(a.usage.cacheWriteTokens, 4);
    EXPECT_EQ(a.usage.cacheReadTokens, 100);
    EXPECT_EQ(a.usage.promptTokensTotal(), 116);
}

TEST(AnthropicDialectTest, AnswerStopReasons)
{
    const std::vector<std::pair<QByteArray, StopReason>> rows{
        {R"("end_turn")", StopReason::EndTurn}, {R"("max_tokens")", StopReason::MaxTokens},
        {R"("stop_sequence")", StopReason::StopSequence}, {R"("refusal")", StopReason::ContentFilter},
        {R"("pause_turn")", StopReason::Unknown}, {"null", StopReason::Unknown}};
    for (const auto &[name, reason] : rows) {
        SCOPED_TRACE(name.toStdString());
        const DecodedAnswer d = AnthropicDialect().decodeAnswer(
            R"({"content":[{"type":"text","text":"x"}],"stop_sequence":"END","stop_reason":)" + name + "}");
        ASSERT_TRUE(d.answer.has_value());
        EXPECT_EQ(d.answer->stopReason, reason);
        EXPECT_EQ(d.answer->stopSequence, "END");
        EXPECT_FALSE(d.answer->usage.known);
    }
}

TEST(AnthropicDialectTest, UnusableAnswersAreProblems)
{
    for (const QByteArray &body : {QByteArray("not json"), QByteArray("[1]"), QByteArray(R"({"content":[]})"),
                                  QByteArray(R"({"id":"msg_1","type":"message"})"),
                                  QByteArray(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")}) {
        SCOPED_TRACE(body.toStdString());
        const DecodedAnswer d = AnthropicDialect().decodeAnswer(body);
        EXPECT_FALSE(d.answer.has_value());
        EXPECT_FALSE(d.problem.isEmpty());
    }
}

} // namespace
} // namespace sy::api::anthropic
