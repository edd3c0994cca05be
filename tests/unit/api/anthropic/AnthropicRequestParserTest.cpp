// Messages request bodies to canonical: every block type, every field, and every bad input
// answered with a 400 that names the field path.
#include "api/anthropic/AnthropicRequestParser.h"

#include "AnthropicTestUtil.h"

#include <QJsonArray>

namespace sy::api::anthropic {
namespace {

using test::object;

CanonicalRequest parsed(const QByteArray &json)
{
    auto result = parseRequest(object(json));
    if (const auto *error = std::get_if<ApiError>(&result)) {
        ADD_FAILURE() << error->message.toStdString();
        return {};
    }
    return std::get<CanonicalRequest>(result);
}

TEST(AnthropicRequestParserTest, PlainRequestFieldsReachTheCanonicalRequest)
{
    const CanonicalRequest r = parsed(R"({"model":"claude-x","max_tokens":256,"system":"Be brief.",
        "messages":[{"role":"user","content":"Hi"}],"temperature":0.5,"top_p":0.9,"top_k":40,
        "stop_sequences":["END","STOP"],"stream":true,"metadata":{"user_id":"u-1","other":"x"},
        "models":["a"],"provider":{"sort":"price"}})");
    EXPECT_EQ(r.model, "claude-x");
    EXPECT_EQ(r.maxTokens, 256);
    ASSERT_EQ(r.system.size(), 1);
    EXPECT_EQ(r.system[0].text, "Be brief.");
    ASSERT_EQ(r.messages.size(), 1);
    EXPECT_EQ(r.messages[0].role, Role::User);
    ASSERT_EQ(r.messages[0].parts.size(), 1);
    EXPECT_EQ(r.messages[0].parts[0].text, "Hi");
    EXPECT_EQ(r.temperature, 0.5);
    EXPECT_EQ(r.topP, 0.9);
    EXPECT_EQ(r.topK, 40);
    EXPECT_EQ(r.stop, (QStringList{"END", "STOP"}));
    EXPECT_TRUE(r.stream);
    EXPECT_EQ(r.user, "u-1");
    EXPECT_FALSE(r.reasoning.has_value());
}

TEST(AnthropicRequestParserTest, SystemBlocksKeepTheirCacheControl)
{
    const CanonicalRequest r = parsed(R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],
        "system":[{"type":"text","text":"one"},{"type":"text","text":"two","cache_control":{"type":"ephemeral"}}]})");
    ASSERT_EQ(r.system.size(), 2);
    EXPECT_EQ(r.system[0].text, "one");
    EXPECT_TRUE(r.system[0].cacheControl.isEmpty());
    EXPECT_EQ(r.system[1].text, "two");
    EXPECT_EQ(r.system[1].cacheControl, object(R"({"type":"ephemeral"})"));
}

TEST(AnthropicRequestParserTest, EveryContentBlockTypeIsParsed)
{
    const CanonicalRequest r = parsed(R"({"model":"m","max_tokens":2048,"messages":[
        {"role":"user","content":[
            {"type":"text","text":"look","cache_control":{"type":"ephemeral"}},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
            {"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]},
        {"role":"assistant","content":[
            {"type":"thinking","thinking":"hmm","signature":"sig-1"},
            {"type":"redacted_thinking","data":"opaque"},
            {"type":"text","text":"calling"},
            {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}},
            {"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},
        {"role":"user","content":[
            {"type":"tool_result","tool_use_id":"toolu_1","content":"12C"},
            {"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[
                {"type":"text","text":"clock"},{"type":"text","text":"broken"}]},
            {"type":"text","text":"thanks"}]}]})");
    ASSERT_EQ(r.messages.size(), 3);

    const QList<ContentPart> &user = r.messages[0].parts;
    ASSERT_EQ(user.size(), 3);
    EXPECT_EQ(user[0].kind, ContentPart::Kind::Text);
    EXPECT_EQ(user[0].cacheControl, object(R"({"type":"ephemeral"})"));
    EXPECT_EQ(user[1].kind, ContentPart::Kind::Image);
    EXPECT_EQ(user[1].mediaType, "image/png");
    EXPECT_EQ(user[1].base64Data, "iVBORw0KGgo=");
    EXPECT_TRUE(user[1].imageUrl.isEmpty());
    EXPECT_EQ(user[2].kind, ContentPart::Kind::Image);
    EXPECT_EQ(user[2].imageUrl, "https://example.com/a.png");

    const Message &assistant = r.messages[1];
    EXPECT_EQ(assistant.role, Role::Assistant);
    ASSERT_EQ(assistant.parts.size(), 5);
    EXPECT_EQ(assistant.parts[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(assistant.parts[0].text, "hmm");
    EXPECT_EQ(assistant.parts[0].signature, "sig-1");
    EXPECT_FALSE(assistant.parts[0].redacted);
    EXPECT_EQ(assistant.parts[1].kind, ContentPart::Kind::Thinking);
    EXPECT_TRUE(assistant.parts[1].redacted);
    EXPECT_EQ(assistant.parts[1].signature, "opaque");
    EXPECT_EQ(assistant.parts[3].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(assistant.parts[3].toolCallId, "toolu_1");
    EXPECT_EQ(assistant.parts[3].toolName, "get_weather");
    EXPECT_EQ(object(assistant.parts[3].argumentsJson), object(R"({"city":"Oslo"})"));

    const QList<ContentPart> &results = r.messages[2].parts;
    ASSERT_EQ(results.size(), 3);
    EXPECT_EQ(results[0].kind, ContentPart::Kind::ToolResult);
    EXPECT_EQ(results[0].toolCallId, "toolu_1");
    EXPECT_EQ(results[0].text, "12C");
    EXPECT_FALSE(results[0].isError);
    EXPECT_EQ(results[1].toolCallId, "toolu_2");
    EXPECT_TRUE(results[1].isError);
    ASSERT_EQ(results[1].resultParts.size(), 2);
    EXPECT_EQ(results[1].text, "clock\nbroken");
    EXPECT_EQ(results[2].text, "thanks");
}

TEST(AnthropicRequestParserTest, ToolsToolChoiceAndThinking)
{
    const CanonicalRequest r = parsed(R"({"model":"m","max_tokens":8000,"messages":[{"role":"user","content":"x"}],
        "tools":[{"name":"get_weather","description":"Weather now","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},
                  "cache_control":{"type":"ephemeral"}},
                 {"type":"web_search_20250305","name":"web_search","max_uses":3}],
        "tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true},
        "thinking":{"type":"enabled","budget_tokens":4000}})");
    ASSERT_EQ(r.tools.size(), 1) << "a server tool has no canonical form";
    EXPECT_EQ(r.tools[0].name, "get_weather");
    EXPECT_EQ(r.tools[0].description, "Weather now");
    EXPECT_EQ(r.tools[0].inputSchema.value("type"), "object");
    EXPECT_EQ(r.tools[0].cacheControl, object(R"({"type":"ephemeral"})"));
    EXPECT_EQ(r.toolChoice.mode, ToolChoice::Mode::Named);
    EXPECT_EQ(r.toolChoice.name, "get_weather");
    EXPECT_TRUE(r.toolChoice.disableParallel);
    ASSERT_TRUE(r.reasoning.has_value());
    EXPECT_EQ(r.reasoning->budgetTokens, 4000);
    EXPECT_TRUE(r.reasoning->effort.isEmpty());
}

TEST(AnthropicRequestParserTest, ToolChoiceTypesMapToModes)
{
    const std::vector<std::pair<QByteArray, ToolChoice::Mode>> rows{
        {"auto", ToolChoice::Mode::Auto}, {"any", ToolChoice::Mode::Required}, {"none", ToolChoice::Mode::None}};
    for (const auto &[type, mode] : rows) {
        SCOPED_TRACE(type.toStdString());
        const CanonicalRequest r = parsed(R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":")"
                                          + type + R"("}})");
        EXPECT_EQ(r.toolChoice.mode, mode);
        EXPECT_FALSE(r.toolChoice.disableParallel);
    }
}

TEST(AnthropicRequestParserTest, DisabledThinkingAndAbsentModelAreAccepted)
{
    const CanonicalRequest r = parsed(R"({"models":["a","b"],"max_tokens":1,"messages":[{"role":"user","content":"x"}],
        "thinking":{"type":"disabled"}})");
    EXPECT_TRUE(r.model.isEmpty());
    EXPECT_FALSE(r.reasoning.has_value());
}

struct BadRow {
    const char *name;
    QByteArray body;
    QString param;
};

TEST(AnthropicRequestParserTest, BadInputIsA400NamingTheField)
{
    const QByteArray ok = R"("messages":[{"role":"user","content":"x"}])";
    const std::vector<BadRow> rows{
        {"missing max_tokens", R"({"model":"m",)" + ok + "}", "max_tokens"},
        {"max_tokens not integer", R"({"model":"m","max_tokens":1.5,)" + ok + "}", "max_tokens"},
        {"max_tokens string", R"({"model":"m","max_tokens":"10",)" + ok + "}", "max_tokens"},
        {"max_tokens zero", R"({"model":"m","max_tokens":0,)" + ok + "}", "max_tokens"},
        {"model not string", R"({"model":7,"max_tokens":1,)" + ok + "}", "model"},
        {"messages missing", R"({"model":"m","max_tokens":1})", "messages"},
        {"messages empty", R"({"model":"m","max_tokens":1,"messages":[]})", "messages"},
        {"messages not array", R"({"model":"m","max_tokens":1,"messages":{}})", "messages"},
        {"message not object", R"({"model":"m","max_tokens":1,"messages":["hi"]})", "messages.0"},
        {"role system", R"({"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]})", "messages.0.role"},
        {"role missing", R"({"model":"m","max_tokens":1,"messages":[{"content":"x"}]})", "messages.0.role"},
        {"content number", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":5}]})", "messages.0.content"},
        {"content missing", R"({"model":"m","max_tokens":1,"messages":[{"role":"user"}]})", "messages.0.content"},
        {"unknown block type", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"video"}]}]})",
         "messages.1.content.0.type"},
        {"block without type", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"text":"a"}]}]})", "messages.0.content.0.type"},
        {"text not string", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":1}]}]})",
         "messages.0.content.0.text"},
        {"image source type", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]})",
         "messages.0.content.0.source.type"},
        {"image without data", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]}]})",
         "messages.0.content.0.source.data"},
        {"tool_result without tool_use", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}]}]})",
         "messages.0.content.0.tool_use_id"},
        {"tool_result before its tool_use", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]},
            {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]}]})",
         "messages.0.content.0.tool_use_id"},
        {"tool_use in user turn", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]})",
         "messages.0.content.0.type"},
        {"tool_use input not object", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":"{}"}]}]})",
         "messages.1.content.0.input"},
        {"tool_result content block type", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"audio"}]}]}]})",
         "messages.2.content.0.content.0.type"},
        {"is_error not bool", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}]})",
         "messages.2.content.0.is_error"},
        {"thinking in user turn", R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"thinking","thinking":"x"}]}]})",
         "messages.0.content.0.type"},
        {"system block type", R"({"model":"m","max_tokens":1,"system":[{"type":"image"}],)" + ok + "}", "system.0.type"},
        {"system number", R"({"model":"m","max_tokens":1,"system":3,)" + ok + "}", "system"},
        {"tools not array", R"({"model":"m","max_tokens":1,"tools":{},)" + ok + "}", "tools"},
        {"tool without name", R"({"model":"m","max_tokens":1,"tools":[{"input_schema":{}}],)" + ok + "}", "tools.0.name"},
        {"tool without schema", R"({"model":"m","max_tokens":1,"tools":[{"name":"f"}],)" + ok + "}", "tools.0.input_schema"},
        {"tool_choice type", R"({"model":"m","max_tokens":1,"tool_choice":{"type":"required"},)" + ok + "}", "tool_choice.type"},
        {"tool_choice tool without name", R"({"model":"m","max_tokens":1,"tool_choice":{"type":"tool"},)" + ok + "}", "tool_choice.name"},
        {"tool_choice string", R"({"model":"m","max_tokens":1,"tool_choice":"auto",)" + ok + "}", "tool_choice"},
        {"temperature string", R"({"model":"m","max_tokens":1,"temperature":"hot",)" + ok + "}", "temperature"},
        {"top_p string", R"({"model":"m","max_tokens":1,"top_p":"x",)" + ok + "}", "top_p"},
        {"top_k fraction", R"({"model":"m","max_tokens":1,"top_k":2.5,)" + ok + "}", "top_k"},
        {"stop_sequences string", R"({"model":"m","max_tokens":1,"stop_sequences":"END",)" + ok + "}", "stop_sequences"},
        {"stop sequence number", R"({"model":"m","max_tokens":1,"stop_sequences":["a",2],)" + ok + "}", "stop_sequences.1"},
        {"stream string", R"({"model":"m","max_tokens":1,"stream":"yes",)" + ok + "}", "stream"},
        {"thinking type", R"({"model":"m","max_tokens":1,"thinking":{"type":"on"},)" + ok + "}", "thinking.type"},
        {"thinking without budget", R"({"model":"m","max_tokens":1,"thinking":{"type":"enabled"},)" + ok + "}", "thinking.budget_tokens"},
        {"metadata user_id number", R"({"model":"m","max_tokens":1,"metadata":{"user_id":5},)" + ok + "}", "metadata.user_id"},
        {"metadata not object", R"({"model":"m","max_tokens":1,"metadata":"x",)" + ok + "}", "metadata"},
    };
    for (const BadRow &row : rows) {
        SCOPED_TRACE(row.name);
        const auto result = parseRequest(object(row.body));
        const auto *error = std::get_if<ApiError>(&result);
        ASSERT_NE(error, nullptr);
        EXPECT_EQ(error->status, 400);
        EXPECT_EQ(error->param, row.param);
        EXPECT_TRUE(error->message.startsWith(row.param + ": ")) << error->message.toStdString();
    }
}

} // namespace
} // namespace sy::api::anthropic
