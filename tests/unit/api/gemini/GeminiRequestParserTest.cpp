// GenerateContentRequest bodies to canonical: every member read, both spellings, and a 400 naming
// the field for each kind of bad input.
#include "api/gemini/GeminiRequestParser.h"

#include "GeminiTestUtil.h"

namespace sy::api::gemini {
namespace {

using test::object;

CanonicalRequest parsed(const QByteArray &json)
{
    auto result = parseRequest(object(json));
    if (auto *error = std::get_if<ApiError>(&result)) {
        ADD_FAILURE() << error->message.toStdString();
        return {};
    }
    return std::get<CanonicalRequest>(std::move(result));
}

ApiError refused(const QByteArray &json)
{
    auto result = parseRequest(object(json));
    if (!std::holds_alternative<ApiError>(result)) {
        ADD_FAILURE() << "accepted: " << json.toStdString();
        return {};
    }
    return std::get<ApiError>(result);
}

TEST(GeminiRequestParserTest, TextTurnsSystemAndGenerationConfig)
{
    const CanonicalRequest r = parsed(R"({
        "contents":[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello"}]},
                    {"parts":[{"text":"More"},{"text":" please"}]}],
        "systemInstruction":{"parts":[{"text":"Be brief."},{"text":"Be kind."}]},
        "generationConfig":{"temperature":0.5,"topP":0.9,"topK":40,"maxOutputTokens":128,"stopSequences":["END"]},
        "safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]})");
    ASSERT_EQ(r.messages.size(), 3);
    EXPECT_EQ(r.messages[0].role, Role::User);
    EXPECT_EQ(r.messages[1].role, Role::Assistant);
    EXPECT_EQ(r.messages[2].role, Role::User);   // role left out: the user's
    EXPECT_EQ(r.messages[2].parts.size(), 2);
    EXPECT_EQ(r.messages[1].parts[0].text, "Hello");
    ASSERT_EQ(r.system.size(), 2);
    EXPECT_EQ(r.system[1].text, "Be kind.");
    EXPECT_EQ(r.temperature, 0.5);
    EXPECT_EQ(r.topP, 0.9);
    EXPECT_EQ(r.topK, 40);
    EXPECT_EQ(r.maxTokens, 128);
    EXPECT_EQ(r.stop, QStringList{"END"});
    EXPECT_FALSE(r.reasoning);
    EXPECT_TRUE(r.responseFormat.isEmpty());
}

TEST(GeminiRequestParserTest, SnakeCaseMembersAreReadToo)
{
    const CanonicalRequest r = parsed(R"({
        "contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgo="}},{"text":"What?"}]}],
        "system_instruction":{"parts":[{"text":"sys"}]},
        "generation_config":{"max_output_tokens":64,"top_p":0.5,"stop_sequences":["x"],
                             "thinking_config":{"thinking_budget":2048}},
        "tools":[{"function_declarations":[{"name":"f","parameters_json_schema":{"type":"object"}}]}],
        "tool_config":{"function_calling_config":{"mode":"ANY","allowed_function_names":["f"]}}})");
    ASSERT_EQ(r.messages.size(), 1);
    ASSERT_EQ(r.messages[0].parts.size(), 2);
    EXPECT_EQ(r.messages[0].parts[0].kind, ContentPart::Kind::Image);
    EXPECT_EQ(r.messages[0].parts[0].mediaType, "image/png");
    EXPECT_EQ(r.messages[0].parts[0].base64Data, "iVBORw0KGgo=");
    EXPECT_EQ(r.system.value(0).text, "sys");
    EXPECT_EQ(r.maxTokens, 64);
    EXPECT_EQ(r.topP, 0.5);
    EXPECT_EQ(r.stop, QStringList{"x"});
    ASSERT_TRUE(r.reasoning);
    EXPECT_EQ(r.reasoning->budgetTokens, 2048);
    ASSERT_EQ(r.tools.size(), 1);
    EXPECT_EQ(r.tools[0].inputSchema, object(R"({"type":"object"})"));
    EXPECT_EQ(r.toolChoice.mode, ToolChoice::Mode::Named);
    EXPECT_EQ(r.toolChoice.name, "f");
}

TEST(GeminiRequestParserTest, ImagesInlineAndByFile)
{
    const CanonicalRequest r = parsed(R"({"contents":[{"role":"user","parts":[
        {"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}},
        {"fileData":{"mimeType":"image/png","fileUri":"https://example.com/cat.png"}}]}]})");
    const QList<ContentPart> &parts = r.messages.value(0).parts;
    ASSERT_EQ(parts.size(), 2);
    EXPECT_EQ(parts[0].kind, ContentPart::Kind::Image);
    EXPECT_EQ(parts[0].mediaType, "image/jpeg");
    EXPECT_EQ(parts[0].base64Data, "/9j/4AAQ");
    EXPECT_EQ(parts[1].kind, ContentPart::Kind::Image);
    EXPECT_EQ(parts[1].imageUrl, "https://example.com/cat.png");
    EXPECT_EQ(parts[1].mediaType, "image/png");
}

TEST(GeminiRequestParserTest, FunctionCallsGetStableIdsTheirResponsesFindByNameAndOrder)
{
    const CanonicalRequest r = parsed(R"({"contents":[
        {"role":"user","parts":[{"text":"Weather in Oslo and Rome?"}]},
        {"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Oslo"}},"thoughtSignature":"sig-1"},
                                 {"functionCall":{"name":"weather","args":{"city":"Rome"}}},
                                 {"functionCall":{"name":"clock","args":{},"id":"given-7"}}]},
        {"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"cold"}}},
                                {"functionResponse":{"name":"clock","id":"given-7","response":{"time":"12:00"}}},
                                {"functionResponse":{"name":"weather","response":{"error":"no data"}}}]}]})");
    ASSERT_EQ(r.messages.size(), 3);
    const QList<ContentPart> &calls = r.messages[1].parts;
    ASSERT_EQ(calls.size(), 3);
    EXPECT_EQ(calls[0].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(calls[0].toolCallId, "call_0");
    EXPECT_EQ(calls[0].toolName, "weather");
    EXPECT_EQ(object(calls[0].argumentsJson), object(R"({"city":"Oslo"})"));
    EXPECT_EQ(calls[0].signature, "sig-1");
    EXPECT_EQ(calls[1].toolCallId, "call_1");
    EXPECT_EQ(calls[2].toolCallId, "given-7");
    const QList<ContentPart> &results = r.messages[2].parts;
    ASSERT_EQ(results.size(), 3);
    EXPECT_EQ(results[0].kind, ContentPart::Kind::ToolResult);
    EXPECT_EQ(results[0].toolCallId, "call_0");
    EXPECT_EQ(results[0].text, "cold");
    EXPECT_FALSE(results[0].isError);
    EXPECT_EQ(results[1].toolCallId, "given-7");
    EXPECT_EQ(object(results[1].text.toUtf8()), object(R"({"time":"12:00"})"));
    EXPECT_EQ(results[2].toolCallId, "call_1");
    EXPECT_EQ(results[2].text, "no data");
    EXPECT_TRUE(results[2].isError);
}

TEST(GeminiRequestParserTest, ThoughtPartsAreThinking)
{
    const CanonicalRequest r = parsed(R"({"contents":[{"role":"user","parts":[{"text":"q"}]},
        {"role":"model","parts":[{"text":"pondering","thought":true,"thoughtSignature":"abc"},{"text":"answer"}]}]})");
    const QList<ContentPart> &parts = r.messages.value(1).parts;
    ASSERT_EQ(parts.size(), 2);
    EXPECT_EQ(parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(parts[0].text, "pondering");
    EXPECT_EQ(parts[0].signature, "abc");
    EXPECT_EQ(parts[1].kind, ContentPart::Kind::Text);
}

TEST(GeminiRequestParserTest, ResponseSchemaBecomesAJsonSchemaFormat)
{
    const CanonicalRequest r = parsed(R"({"contents":[{"parts":[{"text":"q"}]}],
        "generationConfig":{"responseMimeType":"application/json",
            "responseSchema":{"type":"OBJECT","properties":{"n":{"type":"INTEGER"},"tags":{"type":"ARRAY","items":{"type":"STRING"}}},"required":["n"]}}})");
    EXPECT_EQ(r.responseFormat, object(R"({"type":"json_schema","json_schema":{"name":"response","schema":
        {"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["n"]}}})"));
    const CanonicalRequest plainJson = parsed(R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"responseMimeType":"application/json"}})");
    EXPECT_EQ(plainJson.responseFormat, object(R"({"type":"json_object"})"));
    const CanonicalRequest jsonSchema = parsed(R"({"contents":[{"parts":[{"text":"q"}]}],
        "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","additionalProperties":false}}})");
    EXPECT_EQ(jsonSchema.responseFormat.value("json_schema").toObject().value("schema").toObject(),
              object(R"({"type":"object","additionalProperties":false})"));
}

TEST(GeminiRequestParserTest, ThinkingBudgets)
{
    const auto reasoningOf = [](const QByteArray &thinking) {
        return parsed(R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"thinkingConfig":)" + thinking + "}}").reasoning;
    };
    EXPECT_EQ(reasoningOf(R"({"thinkingBudget":512})")->budgetTokens, 512);
    EXPECT_EQ(reasoningOf(R"({"thinkingBudget":0})")->effort, "none");
    EXPECT_FALSE(reasoningOf(R"({"thinkingBudget":-1})"));
    EXPECT_EQ(reasoningOf(R"({"thinkingLevel":"HIGH"})")->effort, "high");
}

TEST(GeminiRequestParserTest, ToolsAndFunctionCallingModes)
{
    const CanonicalRequest r = parsed(R"({"contents":[{"parts":[{"text":"q"}]}],
        "tools":[{"googleSearch":{}},{"functionDeclarations":[
            {"name":"weather","description":"Weather now","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}},
            {"name":"clock"}]}],
        "toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}})");
    ASSERT_EQ(r.tools.size(), 2);   // googleSearch has no canonical form
    EXPECT_EQ(r.tools[0].name, "weather");
    EXPECT_EQ(r.tools[0].description, "Weather now");
    EXPECT_EQ(r.tools[0].inputSchema, object(R"({"type":"object","properties":{"city":{"type":"string"}}})"));
    EXPECT_TRUE(r.tools[1].inputSchema.isEmpty());
    EXPECT_EQ(r.toolChoice.mode, ToolChoice::Mode::Auto);

    const auto modeOf = [](const QByteArray &config) {
        return parsed(R"({"contents":[{"parts":[{"text":"q"}]}],"toolConfig":{"functionCallingConfig":)" + config + "}}").toolChoice.mode;
    };
    EXPECT_EQ(modeOf(R"({"mode":"NONE"})"), ToolChoice::Mode::None);
    EXPECT_EQ(modeOf(R"({"mode":"ANY"})"), ToolChoice::Mode::Required);
    EXPECT_EQ(modeOf(R"({"mode":"ANY","allowedFunctionNames":["a","b"]})"), ToolChoice::Mode::Required);
    EXPECT_EQ(modeOf(R"({"mode":"ANY","allowedFunctionNames":["a"]})"), ToolChoice::Mode::Named);
}

TEST(GeminiRequestParserTest, BadInputIs400NamingTheField)
{
    const std::vector<std::pair<QByteArray, QString>> rows{
        {R"({})", "contents"},
        {R"({"contents":{}})", "contents"},
        {R"({"contents":[]})", "contents"},
        {R"({"contents":["hi"]})", "contents[0]"},
        {R"({"contents":[{"role":"assistant","parts":[{"text":"x"}]}]})", "contents[0].role"},
        {R"({"contents":[{"role":"user"}]})", "contents[0].parts"},
        {R"({"contents":[{"role":"user","parts":[]}]})", "contents[0].parts"},
        {R"({"contents":[{"parts":[{"text":"a"}]},{"parts":[{"text":"b"}]},{"parts":[{"hologram":{}}]}]})", "contents[2].parts[0]"},
        {R"({"contents":[{"parts":[{"thought":true}]}]})", "contents[0].parts[0]"},
        {R"({"contents":[{"parts":[{"text":"a","inlineData":{"mimeType":"image/png","data":"x"}}]}]})", "contents[0].parts[0]"},
        {R"({"contents":[{"parts":[{"executableCode":{"code":"1"}}]}]})", "contents[0].parts[0]"},
        {R"({"contents":[{"parts":[{"text":7}]}]})", "contents[0].parts[0].text"},
        {R"({"contents":[{"parts":[{"inlineData":{"data":"x"}}]}]})", "contents[0].parts[0].inlineData.mimeType"},
        {R"({"contents":[{"parts":[{"fileData":{"mimeType":"image/png"}}]}]})", "contents[0].parts[0].fileData.fileUri"},
        {R"({"contents":[{"parts":[{"functionCall":{"name":"f"}}]}]})", "contents[0].parts[0].functionCall"},
        {R"({"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]})", "contents[0].parts[0].functionCall.name"},
        {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}]})", "contents[0].parts[0].functionCall.args"},
        {R"({"contents":[{"parts":[{"text":"q"}]},{"parts":[{"functionResponse":{"name":"f","response":{}}}]}]})",
         "contents[1].parts[0].functionResponse"},
        {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}}]},
                         {"parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"f","response":{}}}]}]})",
         "contents[1].parts[1].functionResponse"},
        {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","id":"a"}}]},
                         {"parts":[{"functionResponse":{"name":"f","id":"b","response":{}}}]}]})",
         "contents[1].parts[0].functionResponse"},
        {R"({"contents":[{"role":"model","parts":[{"functionResponse":{"name":"f","response":{}}}]}]})",
         "contents[0].parts[0].functionResponse"},
        {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"parts":[{"functionResponse":{"name":"f","response":"ok"}}]}]})",
         "contents[1].parts[0].functionResponse.response"},
        {R"({"contents":[{"parts":[{"text":"q","thought":"yes"}]}]})", "contents[0].parts[0].thought"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"inlineData":{}}]}})", "systemInstruction.parts[0]"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"systemInstruction":7})", "systemInstruction"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":[]})", "generationConfig"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"temperature":"hot"}})", "generationConfig.temperature"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"maxOutputTokens":1.5}})", "generationConfig.maxOutputTokens"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"maxOutputTokens":0}})", "generationConfig.maxOutputTokens"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"stopSequences":[1]}})", "generationConfig.stopSequences[0]"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"candidateCount":2}})", "generationConfig.candidateCount"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"generationConfig":{"thinkingConfig":{"thinkingBudget":"lots"}}})",
         "generationConfig.thinkingConfig.thinkingBudget"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"tools":{}})", "tools"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"tools":[{"functionDeclarations":[{"description":"x"}]}]})",
         "tools[0].functionDeclarations[0].name"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":[]}]}]})",
         "tools[0].functionDeclarations[0].parameters"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}})",
         "toolConfig.functionCallingConfig.mode"},
        {R"({"contents":[{"parts":[{"text":"q"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[3]}}})",
         "toolConfig.functionCallingConfig.allowedFunctionNames[0]"},
    };
    for (const auto &[body, field] : rows) {
        SCOPED_TRACE(body.toStdString());
        const ApiError error = refused(body);
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.param, field);
        EXPECT_TRUE(error.message.startsWith(field + QLatin1Char(':'))) << error.message.toStdString();
    }
}

} // namespace
} // namespace sy::api::gemini
