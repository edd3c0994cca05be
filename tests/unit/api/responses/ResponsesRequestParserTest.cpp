// The Responses request in canonical form: input items to turns, tools, text.format, reasoning,
// and a 400 naming the field for everything this gateway cannot serve faithfully.
#include "api/responses/ResponsesRequestParser.h"

#include "ResponsesTestUtil.h"

#include <QJsonArray>

namespace sy::api::responses {
namespace {

using test::object;

CanonicalRequest parsed(const QByteArray &json)
{
    auto result = parseResponsesRequest(object(json));
    if (auto *error = std::get_if<ApiError>(&result)) {
        ADD_FAILURE() << error->param.toStdString() << ": " << error->message.toStdString();
        return {};
    }
    return std::get<CanonicalRequest>(result);
}

TEST(ResponsesRequestParserTest, StringInputIsOneUserTurn)
{
    const CanonicalRequest r = parsed(R"({"model":"m","input":"Hello","instructions":"Be brief"})");
    EXPECT_EQ(r.model, "m");
    ASSERT_EQ(r.system.size(), 1);
    EXPECT_EQ(r.system[0].text, "Be brief");
    ASSERT_EQ(r.messages.size(), 1);
    EXPECT_EQ(r.messages[0].role, Role::User);
    ASSERT_EQ(r.messages[0].parts.size(), 1);
    EXPECT_EQ(r.messages[0].parts[0].text, "Hello");
    EXPECT_TRUE(r.store);
    EXPECT_TRUE(r.previousResponseId.isEmpty());
}

TEST(ResponsesRequestParserTest, MessageItemsBecomeTurnsAndSystemPrompt)
{
    const CanonicalRequest r = parsed(R"({"model":"m","instructions":"first","input":[
        {"role":"developer","content":"second"},
        {"type":"message","role":"system","content":[{"type":"input_text","text":"third"}]},
        {"role":"user","content":[{"type":"input_text","text":"look"},
                                  {"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low"},
                                  {"type":"input_image","image_url":"https://example.test/cat.png"}]},
        {"type":"message","role":"assistant","content":[{"type":"output_text","text":"a cat","annotations":[]},
                                                       {"type":"refusal","refusal":"no more"}]},
        {"role":"user","content":"thanks"}]})");
    ASSERT_EQ(r.system.size(), 3);
    EXPECT_EQ(r.system[0].text, "first");
    EXPECT_EQ(r.system[1].text, "second");
    EXPECT_EQ(r.system[2].text, "third");
    ASSERT_EQ(r.messages.size(), 3);
    const Message &user = r.messages[0];
    ASSERT_EQ(user.parts.size(), 3);
    EXPECT_EQ(user.parts[1].kind, ContentPart::Kind::Image);
    EXPECT_EQ(user.parts[1].mediaType, "image/png");
    EXPECT_EQ(user.parts[1].base64Data, "AAAA");
    EXPECT_EQ(user.parts[2].imageUrl, "https://example.test/cat.png");
    EXPECT_EQ(r.messages[1].role, Role::Assistant);
    ASSERT_EQ(r.messages[1].parts.size(), 2);
    EXPECT_EQ(r.messages[1].parts[0].text, "a cat");
    EXPECT_EQ(r.messages[1].parts[1].text, "no more");
    EXPECT_EQ(r.messages[2].parts[0].text, "thanks");
}

TEST(ResponsesRequestParserTest, FunctionCallsAndOutputsJoinTheirTurns)
{
    const CanonicalRequest r = parsed(R"({"model":"m","input":[
        {"role":"user","content":"weather?"},
        {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"need"},{"type":"summary_text","text":"tool"}],
         "encrypted_content":"sig-1"},
        {"type":"function_call","id":"fc_1","call_id":"call_a","name":"weather","arguments":"{\"city\":\"Oslo\"}"},
        {"type":"function_call","call_id":"call_b","name":"time","arguments":""},
        {"type":"function_call_output","call_id":"call_a","output":"rain"},
        {"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"noon"}]},
        {"role":"user","content":"and tomorrow?"}]})");
    ASSERT_EQ(r.messages.size(), 3);
    const Message &assistant = r.messages[1];
    EXPECT_EQ(assistant.role, Role::Assistant);
    ASSERT_EQ(assistant.parts.size(), 3);
    EXPECT_EQ(assistant.parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(assistant.parts[0].text, "need\n\ntool");
    EXPECT_EQ(assistant.parts[0].signature, "sig-1");
    EXPECT_FALSE(assistant.parts[0].redacted);
    EXPECT_EQ(assistant.parts[1].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(assistant.parts[1].toolCallId, "call_a");
    EXPECT_EQ(assistant.parts[1].toolName, "weather");
    EXPECT_EQ(assistant.parts[1].argumentsJson, R"({"city":"Oslo"})");
    EXPECT_EQ(assistant.parts[2].argumentsJson, "{}");
    const Message &results = r.messages[2];
    EXPECT_EQ(results.role, Role::User);
    ASSERT_EQ(results.parts.size(), 3);
    EXPECT_EQ(results.parts[0].kind, ContentPart::Kind::ToolResult);
    EXPECT_EQ(results.parts[0].toolCallId, "call_a");
    EXPECT_EQ(results.parts[0].text, "rain");
    ASSERT_EQ(results.parts[1].resultParts.size(), 1);
    EXPECT_EQ(results.parts[1].resultParts[0].text, "noon");
    EXPECT_EQ(results.parts[2].text, "and tomorrow?");
}

TEST(ResponsesRequestParserTest, OpaqueReasoningIsRedactedThinking)
{
    const CanonicalRequest r = parsed(R"({"input":[{"role":"user","content":"x"},
        {"type":"reasoning","summary":[],"encrypted_content":"opaque"},{"role":"assistant","content":"y"}]})");
    ASSERT_EQ(r.messages.size(), 2);
    EXPECT_TRUE(r.messages[1].parts[0].redacted);
    EXPECT_EQ(r.messages[1].parts[0].signature, "opaque");
}

TEST(ResponsesRequestParserTest, AnOutputMayAnswerAStoredCallWhenContinuing)
{
    const CanonicalRequest r = parsed(R"({"previous_response_id":"resp_1","store":false,
        "input":[{"type":"function_call_output","call_id":"call_old","output":"42"}]})");
    EXPECT_EQ(r.previousResponseId, "resp_1");
    EXPECT_FALSE(r.store);
    ASSERT_EQ(r.messages.size(), 1);
    EXPECT_EQ(r.messages[0].parts[0].toolCallId, "call_old");
}

TEST(ResponsesRequestParserTest, ToolsChoiceSamplingAndFormat)
{
    const CanonicalRequest r = parsed(R"({"input":"x","tools":[{"type":"function","name":"weather","description":"d",
        "parameters":{"type":"object"},"strict":true}],"tool_choice":{"type":"function","name":"weather"},
        "parallel_tool_calls":false,"max_output_tokens":64,"temperature":0.5,"top_p":0.9,"user":"u-1",
        "metadata":{"k":"v"},"stream":true,"reasoning":{"effort":"minimal","summary":"auto"},
        "text":{"format":{"type":"json_schema","name":"answer","schema":{"type":"object"},"strict":true}}})");
    ASSERT_EQ(r.tools.size(), 1);
    EXPECT_EQ(r.tools[0].name, "weather");
    EXPECT_EQ(r.tools[0].description, "d");
    EXPECT_EQ(r.tools[0].inputSchema, object(R"({"type":"object"})"));
    EXPECT_EQ(r.toolChoice.mode, ToolChoice::Mode::Named);
    EXPECT_EQ(r.toolChoice.name, "weather");
    EXPECT_TRUE(r.toolChoice.disableParallel);
    EXPECT_EQ(r.maxTokens, 64);
    EXPECT_EQ(r.temperature, 0.5);
    EXPECT_EQ(r.topP, 0.9);
    EXPECT_EQ(r.user, "u-1");
    EXPECT_TRUE(r.stream);
    ASSERT_TRUE(r.reasoning);
    EXPECT_EQ(r.reasoning->effort, "low");
    EXPECT_EQ(r.responseFormat, object(R"({"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":true}})"));
}

TEST(ResponsesRequestParserTest, ToolChoiceModesAndTextFormats)
{
    EXPECT_EQ(parsed(R"({"input":"x","tool_choice":"required"})").toolChoice.mode, ToolChoice::Mode::Required);
    EXPECT_EQ(parsed(R"({"input":"x","tool_choice":"none"})").toolChoice.mode, ToolChoice::Mode::None);
    EXPECT_EQ(parsed(R"({"input":"x","tool_choice":"auto"})").toolChoice.mode, ToolChoice::Mode::Auto);
    EXPECT_EQ(parsed(R"({"input":"x","text":{"format":{"type":"json_object"}}})").responseFormat, object(R"({"type":"json_object"})"));
    EXPECT_TRUE(parsed(R"({"input":"x","text":{"format":{"type":"text"},"verbosity":"low"}})").responseFormat.isEmpty());
    EXPECT_FALSE(parsed(R"({"input":"x","reasoning":{"effort":"none"}})").reasoning);
}

struct BadInput {
    const char *body;
    const char *param;
    const char *code;
};

void PrintTo(const BadInput &input, std::ostream *out) { *out << input.param << " in " << input.body; }

class ResponsesRequestParserBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(ResponsesRequestParserBadInputTest, IsA400NamingTheField)
{
    auto result = parseResponsesRequest(object(GetParam().body));
    ASSERT_TRUE(std::holds_alternative<ApiError>(result)) << GetParam().body;
    const ApiError &error = std::get<ApiError>(result);
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.param.toStdString(), GetParam().param);
    EXPECT_EQ(error.code.toStdString(), GetParam().code);
    EXPECT_TRUE(error.message.contains(QString::fromLatin1(GetParam().param))) << error.message.toStdString();
}

INSTANTIATE_TEST_SUITE_P(
    Table, ResponsesRequestParserBadInputTest,
    ::testing::Values(
        BadInput{R"({"input":""})", "input", "invalid_request"},
        BadInput{R"({"input":[]})", "input", "invalid_request"},
        BadInput{R"({"input":7})", "input", "invalid_request"},
        BadInput{R"({"input":["hi"]})", "input[0]", "invalid_request"},
        BadInput{R"({"input":[{"content":"hi"}]})", "input[0].type", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},
                              {"type":"web_search_call","id":"ws_1"}]})", "input[3].type", "unsupported_content"},
        BadInput{R"({"input":[{"type":"item_reference","id":"msg_1"}]})", "input[0].type", "unsupported_content"},
        BadInput{R"({"input":[{"role":"tool","content":"x"}]})", "input[0].role", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":7}]})", "input[0].content", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":["x"]}]})", "input[0].content[0]", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_text","text":1}]}]})", "input[0].content[0].text", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"video"}]}]})", "input[0].content[0].type", "unsupported_content"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]})", "input[0].content[0].type", "unsupported_content"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_audio"}]}]})", "input[0].content[0].type", "unsupported_content"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_image","file_id":"file-1"}]}]})", "input[0].content[0].file_id", "unsupported_content"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_image"}]}]})", "input[0].content[0].image_url", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png,raw"}]}]})", "input[0].content[0].image_url", "invalid_request"},
        BadInput{R"({"input":[{"role":"assistant","content":[{"type":"input_image","image_url":"https://x.test/a.png"}]}]})", "input[0].content[0].type", "unsupported_content"},
        BadInput{R"({"input":[{"role":"user","content":[{"type":"output_text","text":"x"}]}]})", "input[0].content[0].type", "invalid_request"},
        BadInput{R"({"input":[{"type":"function_call","name":"f","arguments":"{}"}]})", "input[0].call_id", "invalid_request"},
        BadInput{R"({"input":[{"type":"function_call","call_id":"c","arguments":"{}"}]})", "input[0].name", "invalid_request"},
        BadInput{R"({"input":[{"role":"user","content":"x"},{"type":"function_call_output","call_id":"nope","output":"1"}]})", "input[1].call_id", "invalid_request"},
        BadInput{R"({"input":[{"type":"function_call","call_id":"c","name":"f"},{"type":"function_call_output","call_id":"c","output":5}]})", "input[1].output", "invalid_request"},
        BadInput{R"({"input":[{"type":"reasoning","summary":[{"type":"reasoning_text","text":"x"}]}]})", "input[0].summary[0].type", "unsupported_content"},
        BadInput{R"({"input":"x","instructions":5})", "instructions", "invalid_request"},
        BadInput{R"({"input":"x","tools":{}})", "tools", "invalid_request"},
        BadInput{R"({"input":"x","tools":[{"type":"function","name":"f"},{"type":"web_search"}]})", "tools[1].type", "unsupported_content"},
        BadInput{R"({"input":"x","tools":[{"type":"file_search","vector_store_ids":[]}]})", "tools[0].type", "unsupported_content"},
        BadInput{R"({"input":"x","tools":[{"type":"function"}]})", "tools[0].name", "invalid_request"},
        BadInput{R"({"input":"x","tools":[{"type":"function","name":"f","parameters":"x"}]})", "tools[0].parameters", "invalid_request"},
        BadInput{R"({"input":"x","tool_choice":"any"})", "tool_choice", "invalid_request"},
        BadInput{R"({"input":"x","tool_choice":{"type":"web_search_preview"}})", "tool_choice.type", "unsupported_content"},
        BadInput{R"({"input":"x","tool_choice":{"type":"function"}})", "tool_choice.name", "invalid_request"},
        BadInput{R"({"input":"x","parallel_tool_calls":"no"})", "parallel_tool_calls", "invalid_request"},
        BadInput{R"({"input":"x","max_output_tokens":0})", "max_output_tokens", "invalid_request"},
        BadInput{R"({"input":"x","max_output_tokens":1.5})", "max_output_tokens", "invalid_request"},
        BadInput{R"({"input":"x","temperature":"hot"})", "temperature", "invalid_request"},
        BadInput{R"({"input":"x","top_p":"x"})", "top_p", "invalid_request"},
        BadInput{R"({"input":"x","text":{"format":{"type":"xml"}}})", "text.format.type", "invalid_request"},
        BadInput{R"({"input":"x","text":{"format":{"type":"json_schema","schema":{}}}})", "text.format.name", "invalid_request"},
        BadInput{R"({"input":"x","text":{"format":{"type":"json_schema","name":"n"}}})", "text.format.schema", "invalid_request"},
        BadInput{R"({"input":"x","text":{"format":{"type":"json_schema","name":"n","schema":{},"strict":"y"}}})", "text.format.strict", "invalid_request"},
        BadInput{R"({"input":"x","text":"json"})", "text", "invalid_request"},
        BadInput{R"({"input":"x","reasoning":{"effort":"max"}})", "reasoning.effort", "invalid_request"},
        BadInput{R"({"input":"x","stream":"yes"})", "stream", "invalid_request"},
        BadInput{R"({"input":"x","store":1})", "store", "invalid_request"},
        BadInput{R"({"input":"x","previous_response_id":7})", "previous_response_id", "invalid_request"},
        BadInput{R"({"input":"x","conversation":"conv_1"})", "conversation", "unsupported_content"},
        BadInput{R"({"input":"x","prompt":{"id":"pmpt_1"}})", "prompt", "unsupported_content"},
        BadInput{R"({"input":"x","background":true})", "background", "unsupported_content"}));

} // namespace
} // namespace sy::api::responses
