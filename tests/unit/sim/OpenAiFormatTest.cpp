// OpenAI wire format: request reading and every body/event the simulator writes, checked by
// parsing them back as JSON.
#include "ChatPlanner.h"
#include "FormatTestSupport.h"
#include "JsonText.h"
#include "OpenAiFormat.h"
#include "ProviderPath.h"
#include "SimStats.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>

namespace sy::sim {
namespace {

using test::postOf;

QJsonObject parse(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.constData();
    return document.object();
}

ChatReply reply(int words, bool includeUsage = false)
{
    ChatRequest request;
    request.model = QStringLiteral("vendor/model \"x\"");
    request.promptTokens = 12;
    request.includeUsage = includeUsage;
    SimRule rule;
    rule.outputTokens = words;
    ChatPlanner planner(1);
    return planner.plan(rule, request, 1700000000).reply;
}

TEST(OpenAiFormatTest, RequestReadsModelStreamUsageCapAndPromptSize)
{
    const RequestParse parsed = OpenAiFormat().parseRequest(postOf(R"({"model":"m1","stream":true,
        "stream_options":{"include_usage":true},"max_tokens":50,"max_completion_tokens":20,
        "messages":[{"role":"system","content":"0123456789"},
                    {"role":"user","content":[{"type":"text","text":"0123456789"},{"type":"image_url"}]}]})"), "/v1/chat/completions");
    ASSERT_TRUE(parsed.request) << qPrintable(parsed.error);
    EXPECT_EQ(parsed.request->model, u"m1");
    EXPECT_TRUE(parsed.request->stream);
    EXPECT_TRUE(parsed.request->includeUsage);
    EXPECT_EQ(parsed.request->maxTokens, 20);
    EXPECT_EQ(parsed.request->promptTokens, 5);
}

TEST(OpenAiFormatTest, TinyPromptCountsAsOneToken)
{
    const RequestParse parsed = OpenAiFormat().parseRequest(postOf(R"({"model":"m","messages":[]})"), "/v1/chat/completions");
    ASSERT_TRUE(parsed.request);
    EXPECT_EQ(parsed.request->promptTokens, 1);
    EXPECT_FALSE(parsed.request->stream);
    EXPECT_EQ(parsed.request->maxTokens, 0);
}

TEST(OpenAiFormatTest, ToolsAndUserTextAskForAToolCallOfTheFirstTool)
{
    const RequestParse parsed = OpenAiFormat().parseRequest(postOf(R"({"model":"m",
        "tools":[{"type":"function","function":{"name":"lookup"}},{"type":"function","function":{"name":"other"}}],
        "messages":[{"role":"user","content":"find it"}]})"), "/v1/chat/completions");
    ASSERT_TRUE(parsed.request);
    EXPECT_EQ(parsed.request->firstToolName, u"lookup");
    EXPECT_TRUE(parsed.request->lastTurnIsUserText);
    const ChatReply answer = test::plannedReply(*parsed.request, 5);
    ASSERT_TRUE(answer.hasToolCall());
    EXPECT_TRUE(answer.words.empty());

    const QJsonObject body = parse(OpenAiFormat().completionBody(answer));
    const QJsonObject choice = body["choices"].toArray().at(0).toObject();
    EXPECT_EQ(choice["finish_reason"].toString(), u"tool_calls");
    EXPECT_TRUE(choice["message"].toObject()["content"].isNull());
    const QJsonObject call = choice["message"].toObject()["tool_calls"].toArray().at(0).toObject();
    EXPECT_EQ(call["type"].toString(), u"function");
    EXPECT_EQ(call["function"].toObject()["name"].toString(), u"lookup");
    EXPECT_TRUE(QJsonDocument::fromJson(call["function"].toObject()["arguments"].toString().toUtf8()).isObject());

    // Streamed: the call's head, its arguments, then finish_reason tool_calls.
    const QList<QByteArray> lines = OpenAiFormat().streamEnd(answer).split('\n');
    const QJsonObject head = parse(lines.at(0).mid(6))["choices"].toArray().at(0).toObject()["delta"].toObject();
    EXPECT_EQ(head["tool_calls"].toArray().at(0).toObject()["function"].toObject()["name"].toString(), u"lookup");
    const QJsonObject arguments = parse(lines.at(2).mid(6))["choices"].toArray().at(0).toObject()["delta"].toObject();
    EXPECT_EQ(arguments["tool_calls"].toArray().at(0).toObject()["function"].toObject()["arguments"].toString(), u"{}");
    EXPECT_EQ(parse(lines.at(4).mid(6))["choices"].toArray().at(0).toObject()["finish_reason"].toString(), u"tool_calls");
}

TEST(OpenAiFormatTest, ToolResultTurnIsAnsweredWithText)
{
    const RequestParse parsed = OpenAiFormat().parseRequest(postOf(R"({"model":"m",
        "tools":[{"type":"function","function":{"name":"lookup"}}],
        "messages":[{"role":"user","content":"find it"},{"role":"tool","tool_call_id":"c","content":"42"}]})"),
        "/v1/chat/completions");
    ASSERT_TRUE(parsed.request);
    EXPECT_FALSE(test::plannedReply(*parsed.request, 5).hasToolCall());
}

TEST(OpenAiFormatTest, RequestWithoutModelOrJsonIsRejected)
{
    EXPECT_FALSE(OpenAiFormat().parseRequest(postOf(R"({"messages":[]})"), "/v1/chat/completions").request);
    EXPECT_FALSE(OpenAiFormat().parseRequest(postOf("not json"), "/v1/chat/completions").request);
}

TEST(OpenAiFormatTest, CompletionBodyHasMessageFinishReasonAndUsage)
{
    const ChatReply answer = reply(4);
    const QJsonObject body = parse(OpenAiFormat().completionBody(answer));
    EXPECT_EQ(body["object"].toString(), u"chat.completion");
    EXPECT_EQ(body["model"].toString(), u"vendor/model \"x\"");
    EXPECT_EQ(body["created"].toInteger(), 1700000000);
    const QJsonObject choice = body["choices"].toArray().at(0).toObject();
    EXPECT_EQ(choice["message"].toObject()["role"].toString(), u"assistant");
    EXPECT_EQ(choice["message"].toObject()["content"].toString(), QString::fromLatin1(answer.text()));
    EXPECT_EQ(choice["finish_reason"].toString(), u"stop");
    const QJsonObject usage = body["usage"].toObject();
    EXPECT_EQ(usage["prompt_tokens"].toInt(), 12);
    EXPECT_EQ(usage["completion_tokens"].toInt(), 4);
    EXPECT_EQ(usage["total_tokens"].toInt(), 16);
}

TEST(OpenAiFormatTest, EmptyCompletionHasNoChoices)
{
    const QJsonObject body = parse(OpenAiFormat().emptyCompletionBody(reply(0)));
    EXPECT_TRUE(body["choices"].toArray().isEmpty());
    EXPECT_EQ(body["usage"].toObject()["completion_tokens"].toInt(), 0);
}

TEST(OpenAiFormatTest, StreamChunksCarryRoleFirstThenDeltas)
{
    const ChatReply answer = reply(2);
    const QByteArray first = OpenAiFormat().streamContent(answer, 0);
    ASSERT_TRUE(first.startsWith("data: ") && first.endsWith("\n\n"));
    const QJsonObject chunk = parse(first.mid(6).trimmed());
    EXPECT_EQ(chunk["object"].toString(), u"chat.completion.chunk");
    const QJsonObject delta = chunk["choices"].toArray().at(0).toObject()["delta"].toObject();
    EXPECT_EQ(delta["role"].toString(), u"assistant");
    const QJsonObject second = parse(OpenAiFormat().streamContent(answer, 1).mid(6).trimmed());
    EXPECT_FALSE(second["choices"].toArray().at(0).toObject()["delta"].toObject().contains("role"));
}

TEST(OpenAiFormatTest, StreamEndHasFinishThenUsageOnlyWhenAskedThenDone)
{
    const QList<QByteArray> withUsage = OpenAiFormat().streamEnd(reply(3, true)).split('\n');
    const QList<QByteArray> events{withUsage.at(0), withUsage.at(2), withUsage.at(4)};
    EXPECT_EQ(parse(events[0].mid(6))["choices"].toArray().at(0).toObject()["finish_reason"].toString(), u"stop");
    const QJsonObject usageChunk = parse(events[1].mid(6));
    EXPECT_TRUE(usageChunk["choices"].toArray().isEmpty());
    EXPECT_EQ(usageChunk["usage"].toObject()["total_tokens"].toInt(), 15);
    EXPECT_EQ(events[2], "data: [DONE]");
    EXPECT_FALSE(OpenAiFormat().streamEnd(reply(3, false)).contains("usage"));
}

TEST(OpenAiFormatTest, ErrorBodyHasMessageTypeAndCode)
{
    const QJsonObject error = parse(OpenAiFormat().errorBody(429, QStringLiteral("slow \"down\"")))["error"].toObject();
    EXPECT_EQ(error["message"].toString(), u"slow \"down\"");
    EXPECT_EQ(error["type"].toString(), u"rate_limit_exceeded");
    EXPECT_EQ(error["code"].toString(), u"rate_limit_exceeded");
    EXPECT_TRUE(error.contains("param"));
    EXPECT_EQ(parse(OpenAiFormat().errorBody(503, {}))["error"].toObject()["type"].toString(), u"server_error");
}

TEST(OpenAiFormatTest, ModelListNamesEveryModelAndOwner)
{
    const QJsonObject list = parse(OpenAiFormat().modelList({"a", "b"}, QStringLiteral("cloudru")));
    EXPECT_EQ(list["object"].toString(), u"list");
    const QJsonArray data = list["data"].toArray();
    ASSERT_EQ(data.size(), 2);
    EXPECT_EQ(data.at(1).toObject()["id"].toString(), u"b");
    EXPECT_EQ(data.at(1).toObject()["object"].toString(), u"model");
    EXPECT_EQ(data.at(1).toObject()["owned_by"].toString(), u"cloudru");
}

TEST(OpenAiFormatTest, MalformedEventIsNotJson)
{
    const QByteArray event = OpenAiFormat().malformedEvent(reply(1));
    EXPECT_TRUE(event.startsWith("data: "));
    EXPECT_TRUE(QJsonDocument::fromJson(event.mid(6)).isNull());
}

TEST(JsonTextTest, ControlCharactersAndQuotesAreEscaped)
{
    QByteArray out;
    appendJsonString(out, QString::fromUtf8("a\"b\\c\nd\x01 é"));
    EXPECT_EQ(QJsonDocument::fromJson("[" + out + "]").array().at(0).toString(), QString::fromUtf8("a\"b\\c\nd\x01 é"));
}

TEST(ProviderPathTest, PrefixNamesTheProviderAndBarePathIsDefault)
{
    EXPECT_EQ(parseProviderPath("/cloudru/v1/chat/completions")->provider, u"cloudru");
    EXPECT_EQ(parseProviderPath("/cloudru/v1/chat/completions")->endpoint, "/v1/chat/completions");
    EXPECT_EQ(parseProviderPath("/v1/models")->provider, u"default");
    EXPECT_EQ(parseProviderPath("/v1/models")->endpoint, "/v1/models");
    EXPECT_FALSE(parseProviderPath("/cloudru/v2/models"));
    EXPECT_FALSE(parseProviderPath("/_sim/v1/models"));
    EXPECT_FALSE(parseProviderPath("//v1/models"));
    EXPECT_FALSE(parseProviderPath("/cloudru"));
}

TEST(SimStatsTest, CountsPerProviderModelAndFailureAndKeepsInFlightOnClear)
{
    SimStats stats;
    stats.recordRequest(QStringLiteral("cloudru"), QStringLiteral("m1"));
    stats.recordRequest(QStringLiteral("cloudru"), QStringLiteral("m2"));
    stats.recordRequest(QStringLiteral("yandex"), QStringLiteral("m1"));
    stats.recordRequest(QStringLiteral("yandex"), QString());
    stats.recordFailure(QStringLiteral("status:503"));
    stats.recordInFlightStart();
    const QJsonObject json = stats.toJson();
    EXPECT_EQ(json["requests"].toInt(), 4);
    EXPECT_EQ(json["providers"].toObject()["cloudru"].toInt(), 2);
    EXPECT_EQ(json["models"].toObject()["m1"].toInt(), 2);
    EXPECT_EQ(json["provider_models"].toObject()["yandex"].toObject()["m1"].toInt(), 1);
    EXPECT_EQ(json["failures"].toObject()["status:503"].toInt(), 1);
    EXPECT_EQ(json["in_flight"].toInt(), 1);
    stats.clearCounts();
    EXPECT_EQ(stats.requests(), 0);
    EXPECT_EQ(stats.requestsForProvider(QStringLiteral("cloudru")), 0);
    EXPECT_EQ(stats.inFlight(), 1);
}

} // namespace
} // namespace sy::sim
