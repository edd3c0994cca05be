// The Gemini channel side: the canonical request as a generateContent request, and Gemini
// answers back to canonical.
#include "api/gemini/GeminiDialect.h"

#include "GeminiTestUtil.h"

namespace sy::api::gemini {
namespace {

using test::object;

ContentPart part(ContentPart::Kind kind)
{
    ContentPart p;
    p.kind = kind;
    return p;
}

Message turn(Role role, QList<ContentPart> parts) { return Message{role, std::move(parts)}; }

TEST(GeminiDialectTest, PathHeadersAndStreamFlag)
{
    CanonicalRequest request;
    request.messages = {turn(Role::User, {ContentPart::textPart("hi")})};
    const WireRequest plain = GeminiDialect().request(request, "gemini-2.5-flash", "sk-test-goog");
    EXPECT_EQ(plain.path, "/models/gemini-2.5-flash:generateContent");
    EXPECT_EQ(plain.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "application/json"},
                                          {"x-goog-api-key", "sk-test-goog"}}));
    request.stream = true;
    const WireRequest stream = GeminiDialect().request(request, "models/gemini-2.5-flash", {});
    EXPECT_EQ(stream.path, "/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    EXPECT_EQ(stream.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "text/event-stream"}}));
    EXPECT_EQ(modelPath("org/model v2", false), "/models/org/model%20v2:generateContent");
}

TEST(GeminiDialectTest, RequestBodyTranslatesRolesSystemToolsAndConfig)
{
    CanonicalRequest request;
    request.system = {ContentPart::textPart("Be brief."), ContentPart::textPart("")};
    ContentPart image = part(ContentPart::Kind::Image);
    image.mediaType = QStringLiteral("image/png");
    image.base64Data = "iVBORw0KGgo=";
    ContentPart dataUrl = part(ContentPart::Kind::Image);
    dataUrl.imageUrl = QStringLiteral("data:image/jpeg;base64,/9j/4AAQ");
    ContentPart url = part(ContentPart::Kind::Image);
    url.imageUrl = QStringLiteral("https://example.com/cat.png");
    ContentPart call = part(ContentPart::Kind::ToolCall);
    call.toolCallId = QStringLiteral("toolu_1");
    call.toolName = QStringLiteral("weather");
    call.argumentsJson = R"({"city":"Oslo"})";
    call.signature = QStringLiteral("sig-x");
    ContentPart thinking = part(ContentPart::Kind::Thinking);
    thinking.text = QStringLiteral("mull");
    ContentPart result = part(ContentPart::Kind::ToolResult);
    result.toolCallId = QStringLiteral("toolu_1");
    result.text = QStringLiteral("cold");
    ContentPart jsonResult = part(ContentPart::Kind::ToolResult);
    jsonResult.toolCallId = QStringLiteral("toolu_1");
    jsonResult.text = QStringLiteral(R"({"temp":-3})");
    ContentPart failed = part(ContentPart::Kind::ToolResult);
    failed.toolCallId = QStringLiteral("toolu_1");
    failed.text = QStringLiteral("boom");
    failed.isError = true;
    request.messages = {
        turn(Role::User, {ContentPart::textPart("Look"), image, dataUrl, url}),
        turn(Role::User, {ContentPart::textPart("and weather?")}),
        turn(Role::Assistant, {thinking, ContentPart::textPart("Checking."), call}),
        turn(Role::User, {ContentPart::textPart("thanks"), result, jsonResult, failed}),
    };
    Tool tool;
    tool.name = QStringLiteral("weather");
    tool.description = QStringLiteral("Weather now");
    tool.inputSchema = object(R"({"type":"object","properties":{"city":{"type":"string"}}})");
    request.tools = {tool};
    request.toolChoice.mode = ToolChoice::Mode::Named;
    request.toolChoice.name = QStringLiteral("weather");
    request.temperature = 0.2;
    request.topP = 0.8;
    request.topK = 5;
    request.maxTokens = 300;
    request.stop = {"END"};
    request.responseFormat = object(R"({"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}})");
    request.reasoning = Reasoning{QStringLiteral("high"), std::nullopt};
    request.user = QStringLiteral("dropped");

    EXPECT_EQ(requestBody(request), object(R"({
        "contents":[
          {"role":"user","parts":[{"text":"Look"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
                                  {"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}},
                                  {"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/cat.png"}},
                                  {"text":"and weather?"}]},
          {"role":"model","parts":[{"text":"Checking."},
                                   {"functionCall":{"name":"weather","args":{"city":"Oslo"}},"thoughtSignature":"sig-x"}]},
          {"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"cold"}}},
                                  {"functionResponse":{"name":"weather","response":{"temp":-3}}},
                                  {"functionResponse":{"name":"weather","response":{"error":"boom"}}},
                                  {"text":"thanks"}]}],
        "systemInstruction":{"parts":[{"text":"Be brief."}]},
        "tools":[{"functionDeclarations":[{"name":"weather","description":"Weather now",
                  "parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}],
        "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["weather"]}},
        "generationConfig":{"temperature":0.2,"topP":0.8,"topK":5,"maxOutputTokens":300,"stopSequences":["END"],
                            "responseMimeType":"application/json","responseJsonSchema":{"type":"object"},
                            "thinkingConfig":{"thinkingBudget":16384}}})"));
}

TEST(GeminiDialectTest, ToolChoiceModesAndReasoningBudgets)
{
    CanonicalRequest request;
    request.messages = {turn(Role::User, {ContentPart::textPart("q")})};
    request.tools = {Tool{QStringLiteral("f"), {}, {}, {}}};
    const std::vector<std::pair<ToolChoice::Mode, QString>> modes{
        {ToolChoice::Mode::Auto, "AUTO"}, {ToolChoice::Mode::None, "NONE"}, {ToolChoice::Mode::Required, "ANY"}};
    for (const auto &[mode, name] : modes) {
        request.toolChoice.mode = mode;
        EXPECT_EQ(requestBody(request).value("toolConfig").toObject().value("functionCallingConfig").toObject(),
                  QJsonObject({{"mode", name}}));
    }
    request.toolChoice.mode = ToolChoice::Mode::Unset;
    EXPECT_FALSE(requestBody(request).contains("toolConfig"));
    EXPECT_FALSE(requestBody(request).contains("generationConfig"));
    request.reasoning = Reasoning{{}, 2000};
    EXPECT_EQ(requestBody(request).value("generationConfig").toObject().value("thinkingConfig").toObject(),
              object(R"({"thinkingBudget":2000})"));
    request.reasoning = Reasoning{QStringLiteral("none"), std::nullopt};
    EXPECT_EQ(requestBody(request).value("generationConfig").toObject().value("thinkingConfig").toObject(),
              object(R"({"thinkingBudget":0})"));
}

TEST(GeminiDialectTest, DecodeAnswerWithTextThoughtsCallsAndUsage)
{
    const DecodedAnswer decoded = GeminiDialect().decodeAnswer(R"({
        "candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true},{"text":"Hi"},
            {"functionCall":{"name":"weather","args":{"city":"Oslo"}},"thoughtSignature":"sig"},
            {"functionCall":{"name":"clock","args":{},"id":"given"}},{"executableCode":{"code":"1"}}]},
            "finishReason":"STOP","index":0}],
        "usageMetadata":{"promptTokenCount":100,"cachedContentTokenCount":40,"candidatesTokenCount":20,"thoughtsTokenCount":5,"totalTokenCount":125},
        "modelVersion":"gemini-2.5-flash","responseId":"r1"})");
    ASSERT_TRUE(decoded.answer) << decoded.problem.toStdString();
    const CanonicalAnswer &a = *decoded.answer;
    EXPECT_EQ(a.id, "r1");
    EXPECT_EQ(a.model, "gemini-2.5-flash");
    ASSERT_EQ(a.parts.size(), 5);
    EXPECT_EQ(a.parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(a.parts[1].text, "Hi");
    EXPECT_EQ(a.parts[2].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(a.parts[2].toolCallId, "call_r1_0");
    EXPECT_EQ(a.parts[2].signature, "sig");
    EXPECT_EQ(object(a.parts[2].argumentsJson), object(R"({"city":"Oslo"})"));
    EXPECT_EQ(a.parts[3].toolCallId, "given");
    EXPECT_EQ(a.parts[4].text, "[unsupported part: executableCode]");
    EXPECT_EQ(a.stopReason, StopReason::ToolUse);
    EXPECT_TRUE(a.usage.known);
    EXPECT_EQ(a.usage.inputTokens, 60);
    EXPECT_EQ(a.usage.cacheReadTokens, 40);
    EXPECT_EQ(a.usage.outputTokens, 25);
}

TEST(GeminiDialectTest, DecodeAnswerFinishReasons)
{
    const std::vector<std::pair<QByteArray, StopReason>> rows{
        {"STOP", StopReason::EndTurn}, {"MAX_TOKENS", StopReason::MaxTokens}, {"SAFETY", StopReason::ContentFilter},
        {"RECITATION", StopReason::ContentFilter}, {"OTHER", StopReason::Unknown}};
    for (const auto &[name, reason] : rows) {
        SCOPED_TRACE(name.toStdString());
        const DecodedAnswer decoded = GeminiDialect().decodeAnswer(
            R"({"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":")" + name + R"("}]})");
        ASSERT_TRUE(decoded.answer);
        EXPECT_EQ(decoded.answer->stopReason, reason);
    }
}

TEST(GeminiDialectTest, AnswersWithoutContentAreProblems)
{
    const std::vector<std::pair<QByteArray, QString>> rows{
        {"not json", "not a JSON object"},
        {R"({"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}})", "Quota exceeded"},
        {R"({"candidates":[],"usageMetadata":{"promptTokenCount":3}})", "no candidates"},
        {R"({"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}})", "blocked: SAFETY"},
        {R"({"candidates":[{"finishReason":"SAFETY","index":0}]})", "SAFETY"},
        {R"({"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]})", "no content"},
    };
    for (const auto &[body, problem] : rows) {
        SCOPED_TRACE(body.toStdString());
        const DecodedAnswer decoded = GeminiDialect().decodeAnswer(body);
        EXPECT_FALSE(decoded.answer);
        EXPECT_TRUE(decoded.problem.contains(problem)) << decoded.problem.toStdString();
    }
}

} // namespace
} // namespace sy::api::gemini
