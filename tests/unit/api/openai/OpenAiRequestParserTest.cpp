// Chat Completions requests in canonical form: roles, content parts, tools, sampling fields, and
// the 400s that name the field a translation could not carry.
#include "api/openai/OpenAiRequestParser.h"
#include "JsonPrinting.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

QJsonObject json(const char *text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(text), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << text;
    return doc.object();
}

CanonicalRequest parsed(const char *body)
{
    auto result = parseChatRequest(json(body));
    if (const auto *error = std::get_if<ApiError>(&result)) {
        ADD_FAILURE() << "unexpected error: " << error->message.toStdString();
        return {};
    }
    return std::get<CanonicalRequest>(result);
}

ApiError refused(const char *body)
{
    auto result = parseChatRequest(json(body));
    if (!std::holds_alternative<ApiError>(result)) {
        ADD_FAILURE() << "parsed without error: " << body;
        return {};
    }
    return std::get<ApiError>(result);
}

TEST(OpenAiRequestParserTest, SystemAndDeveloperMessagesJoinTheSystemPromptInOrder)
{
    const CanonicalRequest r = parsed(R"({"model":"m","messages":[
        {"role":"system","content":"be brief"},
        {"role":"user","content":"hi"},
        {"role":"developer","content":[{"type":"text","text":"use metric"}]},
        {"role":"assistant","content":"hello"}]})");
    EXPECT_EQ(r.model, u"m");
    ASSERT_EQ(r.system.size(), 2);
    EXPECT_EQ(r.system[0].text, u"be brief");
    EXPECT_EQ(r.system[1].text, u"use metric");
    ASSERT_EQ(r.messages.size(), 2);
    EXPECT_EQ(r.messages[0].role, Role::User);
    EXPECT_EQ(r.messages[0].parts[0].text, u"hi");
    EXPECT_EQ(r.messages[1].role, Role::Assistant);
    EXPECT_EQ(r.messages[1].parts[0].text, u"hello");
}

TEST(OpenAiRequestParserTest, ImageDataUrlIsSplitAndHttpUrlIsKept)
{
    const CanonicalRequest r = parsed(R"({"messages":[{"role":"user","content":[
        {"type":"text","text":"what is this"},
        {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0K"}},
        {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg","detail":"low"}}]}]})");
    ASSERT_EQ(r.messages.size(), 1);
    const auto &parts = r.messages[0].parts;
    ASSERT_EQ(parts.size(), 3);
    EXPECT_EQ(parts[1].kind, ContentPart::Kind::Image);
    EXPECT_EQ(parts[1].mediaType, u"image/png");
    EXPECT_EQ(parts[1].base64Data, "iVBORw0K");
    EXPECT_TRUE(parts[1].imageUrl.isEmpty());
    EXPECT_EQ(parts[2].kind, ContentPart::Kind::Image);
    EXPECT_EQ(parts[2].imageUrl, u"https://example.com/cat.jpg");
}

TEST(OpenAiRequestParserTest, AssistantToolCallsWithNullContentAndReasoningBecomeParts)
{
    const CanonicalRequest r = parsed(R"({"messages":[
        {"role":"user","content":"weather?"},
        {"role":"assistant","content":null,"reasoning_content":"need the tool",
         "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},
                       {"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]},
        {"role":"tool","tool_call_id":"call_1","content":"rain"},
        {"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"noon"}]},
        {"role":"user","content":"thanks"}]})");
    ASSERT_EQ(r.messages.size(), 4);
    const auto &assistant = r.messages[1].parts;
    ASSERT_EQ(assistant.size(), 3);
    EXPECT_EQ(assistant[0].kind, ContentPart::Kind::Thinking);
    EXPECT_EQ(assistant[0].text, u"need the tool");
    EXPECT_EQ(assistant[1].kind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(assistant[1].toolCallId, u"call_1");
    EXPECT_EQ(assistant[1].toolName, u"get_weather");
    EXPECT_EQ(assistant[1].argumentsJson, R"({"city":"Oslo"})");
    EXPECT_EQ(assistant[2].argumentsJson, "{}");

    // Both tool messages are one user turn of results; the next user message stays its own.
    const Message &results = r.messages[2];
    EXPECT_EQ(results.role, Role::User);
    ASSERT_EQ(results.parts.size(), 2);
    EXPECT_EQ(results.parts[0].kind, ContentPart::Kind::ToolResult);
    EXPECT_EQ(results.parts[0].toolCallId, u"call_1");
    EXPECT_EQ(results.parts[0].text, u"rain");
    EXPECT_EQ(results.parts[1].toolCallId, u"call_2");
    ASSERT_EQ(results.parts[1].resultParts.size(), 1);
    EXPECT_EQ(results.parts[1].resultParts[0].text, u"noon");
    EXPECT_EQ(r.messages[3].parts[0].text, u"thanks");
}

TEST(OpenAiRequestParserTest, ToolsChoiceAndSamplingFieldsAreCarried)
{
    const CanonicalRequest r = parsed(R"({"messages":[{"role":"user","content":"x"}],
        "tools":[{"type":"function","function":{"name":"f","description":"does f",
                  "parameters":{"type":"object","properties":{"a":{"type":"string"}}}}}],
        "tool_choice":{"type":"function","function":{"name":"f"}},
        "parallel_tool_calls":false,"temperature":0.2,"top_p":0.9,
        "max_tokens":50,"max_completion_tokens":100,"stop":"END","stream":true,
        "response_format":{"type":"json_object"},"reasoning_effort":"medium","user":"u-1",
        "models":["a","b"],"provider":{"sort":"price"}})");
    ASSERT_EQ(r.tools.size(), 1);
    EXPECT_EQ(r.tools[0].name, u"f");
    EXPECT_EQ(r.tools[0].description, u"does f");
    EXPECT_EQ(r.tools[0].inputSchema.value("type").toString(), u"object");
    EXPECT_EQ(r.toolChoice.mode, ToolChoice::Mode::Named);
    EXPECT_EQ(r.toolChoice.name, u"f");
    EXPECT_TRUE(r.toolChoice.disableParallel);
    EXPECT_EQ(r.temperature, 0.2);
    EXPECT_EQ(r.topP, 0.9);
    EXPECT_EQ(r.maxTokens, 100);   // max_completion_tokens wins over the older max_tokens
    EXPECT_EQ(r.stop, QStringList{"END"});
    EXPECT_TRUE(r.stream);
    EXPECT_EQ(r.responseFormat.value("type").toString(), u"json_object");
    ASSERT_TRUE(r.reasoning.has_value());
    EXPECT_EQ(r.reasoning->effort, u"medium");
    EXPECT_EQ(r.user, u"u-1");
}

TEST(OpenAiRequestParserTest, ToolChoiceStringsAndStopListsAndDefaults)
{
    const struct {
        const char *choice;
        ToolChoice::Mode mode;
    } rows[] = {{"auto", ToolChoice::Mode::Auto}, {"none", ToolChoice::Mode::None}, {"required", ToolChoice::Mode::Required}};
    for (const auto &row : rows) {
        SCOPED_TRACE(row.choice);
        const QByteArray body = QByteArray(R"({"messages":[{"role":"user","content":"x"}],"tool_choice":")") + row.choice
                                + R"(","stop":["a","b"]})";
        const CanonicalRequest r = parsed(body.constData());
        EXPECT_EQ(r.toolChoice.mode, row.mode);
        EXPECT_FALSE(r.toolChoice.disableParallel);
        EXPECT_EQ(r.stop, (QStringList{"a", "b"}));
    }
    const CanonicalRequest plain = parsed(R"({"messages":[{"role":"user","content":"x"}],"temperature":null,"stop":null})");
    EXPECT_EQ(plain.toolChoice.mode, ToolChoice::Mode::Unset);
    EXPECT_FALSE(plain.temperature.has_value());
    EXPECT_FALSE(plain.maxTokens.has_value());
    EXPECT_FALSE(plain.reasoning.has_value());
    EXPECT_FALSE(plain.stream);
}

TEST(OpenAiRequestParserTest, MinimalEffortIsLowAndNoneIsNoReasoning)
{
    EXPECT_EQ(parsed(R"({"messages":[{"role":"user","content":"x"}],"reasoning_effort":"minimal"})").reasoning->effort, u"low");
    EXPECT_FALSE(parsed(R"({"messages":[{"role":"user","content":"x"}],"reasoning_effort":"none"})").reasoning.has_value());
}

TEST(OpenAiRequestParserTest, WhatCannotBeCarriedIsRefusedNamingTheField)
{
    const struct {
        const char *body;
        const char *param;
    } rows[] = {
        {R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"input_audio","input_audio":{"data":"AAA","format":"wav"}}]}]})",
         "messages.0.content.1.type"},
        {R"({"messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"file","file":{"file_id":"f"}}]}]})",
         "messages.1.content.0.type"},
        {R"({"messages":[{"role":"user","content":[{"type":"hologram"}]}]})", "messages.0.content.0.type"},
        {R"({"messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]})",
         "messages.0.content.0.type"},
        {R"({"messages":[{"role":"user","content":"a"}],"n":2})", "n"},
        {R"({"messages":[{"role":"user","content":"a"}],"modalities":["text","audio"]})", "modalities"},
        {R"({"messages":[{"role":"user","content":"a"}],"tools":[{"type":"code_interpreter"}]})", "tools.0.type"},
        {R"({"messages":[{"role":"function","name":"f","content":"a"}]})", "messages.0.role"},
    };
    for (const auto &row : rows) {
        SCOPED_TRACE(row.body);
        const ApiError error = refused(row.body);
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "unsupported_content");
        EXPECT_EQ(error.param, QString::fromLatin1(row.param));
        if (error.param.contains(u".content.")) {
            EXPECT_TRUE(error.message.contains(error.param)) << error.message.toStdString();
        }
    }
}

TEST(OpenAiRequestParserTest, MalformedFieldsAreRefusedNamingTheField)
{
    const struct {
        const char *body;
        const char *param;
    } rows[] = {
        {R"({"model":"m"})", "messages"},
        {R"({"messages":[]})", "messages"},
        {R"({"messages":["hi"]})", "messages.0"},
        {R"({"messages":[{"role":"wizard","content":"a"}]})", "messages.0.role"},
        {R"({"messages":[{"role":"user","content":42}]})", "messages.0.content"},
        {R"({"messages":[{"role":"user","content":[{"type":"text","text":7}]}]})", "messages.0.content.0.text"},
        {R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]})", "messages.0.content.0.image_url.url"},
        {R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]})",
         "messages.0.content.0.image_url.url"},
        {R"({"messages":[{"role":"tool","content":"r"}]})", "messages.0.tool_call_id"},
        {R"({"messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}]})", "messages.0.tool_calls.0"},
        {R"({"messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{}}]})", "tools.0.function.name"},
        {R"({"messages":[{"role":"user","content":"a"}],"tool_choice":"sometimes"})", "tool_choice"},
        {R"({"messages":[{"role":"user","content":"a"}],"temperature":"hot"})", "temperature"},
        {R"({"messages":[{"role":"user","content":"a"}],"max_tokens":-1})", "max_tokens"},
        {R"({"messages":[{"role":"user","content":"a"}],"stop":[1]})", "stop"},
        {R"({"messages":[{"role":"user","content":"a"}],"stream":"yes"})", "stream"},
        {R"({"messages":[{"role":"user","content":"a"}],"response_format":"json"})", "response_format"},
        {R"({"messages":[{"role":"user","content":"a"}],"reasoning_effort":"extreme"})", "reasoning_effort"},
    };
    for (const auto &row : rows) {
        SCOPED_TRACE(row.body);
        const ApiError error = refused(row.body);
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "invalid_request");
        EXPECT_EQ(error.param, QString::fromLatin1(row.param));
        EXPECT_FALSE(error.message.isEmpty());
    }
}

} // namespace
} // namespace sy::api::openai
