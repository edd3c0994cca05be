// The chat.completion body written from a canonical answer, and gateway errors in OpenAI's shape.
#include "api/openai/OpenAiCodec.h"
#include "JsonPrinting.h"
#include "api/openai/OpenAiWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

QJsonObject parsedBody(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << body.toStdString();
    EXPECT_FALSE(body.contains('\n')) << "compact JSON";
    return doc.object();
}

ContentPart part(ContentPart::Kind kind, const QString &text)
{
    ContentPart p = ContentPart::textPart(text);
    p.kind = kind;
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

const WriterOptions options{QStringLiteral("public/model"), "req-42", false};

TEST(OpenAiCodecTest, TextAnswerIsAChatCompletionWithThePublicModelAndUsageIncludingCache)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("msg_01abc");
    answer.model = QStringLiteral("upstream-name");
    answer.parts = {part(ContentPart::Kind::Text, "Hello"), part(ContentPart::Kind::Text, ", world")};
    answer.stopReason = StopReason::EndTurn;
    answer.usage = TokenUsage{10, 5, 30, 2, true};

    const QJsonObject body = parsedBody(OpenAiCodec().answerBody(answer, options));
    EXPECT_EQ(body.value("id").toString(), u"chatcmpl-msg_01abc");
    EXPECT_EQ(body.value("object").toString(), u"chat.completion");
    EXPECT_GT(body.value("created").toDouble(), 1.6e9);
    EXPECT_EQ(body.value("model").toString(), u"public/model");
    const QJsonArray choices = body.value("choices").toArray();
    ASSERT_EQ(choices.size(), 1);
    const QJsonObject choice = choices[0].toObject();
    EXPECT_EQ(choice.value("index").toInt(), 0);
    EXPECT_EQ(choice.value("finish_reason").toString(), u"stop");
    EXPECT_EQ(choice.value("message").toObject(), (QJsonObject{{"role", "assistant"}, {"content", "Hello, world"}}));
    EXPECT_EQ(body.value("usage").toObject(),
              (QJsonObject{{"prompt_tokens", 42}, {"completion_tokens", 5}, {"total_tokens", 47},
                           {"prompt_tokens_details", QJsonObject{{"cached_tokens", 30}}}}));
}

// The created time, which differs between two writes a second apart.
QByteArray withoutCreated(QByteArray body)
{
    return body.replace(QRegularExpression(QStringLiteral("\"created\":\\d+")).match(QString::fromUtf8(body)).captured(0).toUtf8(),
                        "\"created\":0");
}

TEST(OpenAiCodecTest, AnswerWithoutToolCallsIsByteForByteWhatQtWrites)
{
    // Answers without tool calls are written directly; the bytes must be those of the
    // QJsonObject the others go through (sorted keys, Qt's escaping, integers as integers).
    const QList<QString> texts = {QStringLiteral("Hello! How can I help you today?"), QString(),
                                  QStringLiteral("quote \" backslash \\ slash / tab \t nl \n bell \x07 del \x7f"),
                                  QStringLiteral("caf\u00e9 \u65e5\u672c \U0001F600 \u2028"),
                                  QString(1, QChar(0xdc00)) + QStringLiteral(" lone surrogate")};
    const QList<StopReason> reasons = {StopReason::Unknown, StopReason::EndTurn, StopReason::MaxTokens,
                                       StopReason::StopSequence, StopReason::ContentFilter, StopReason::Error};
    int cases = 0;
    for (const QString &text : texts) {
        for (const StopReason reason : reasons) {
            CanonicalAnswer answer;
            answer.id = cases % 3 == 0 ? QString() : cases % 3 == 1 ? QStringLiteral("chatcmpl-\"1") : QStringLiteral("msg_\u00e9");
            answer.parts = {ContentPart::textPart(text)};
            if (cases % 2)
                answer.parts.append(part(ContentPart::Kind::Thinking, QStringLiteral("think \"hard\"")));
            if (cases % 4 == 1)
                answer.parts.append(ContentPart::textPart(QStringLiteral(" more")));
            answer.stopReason = reason;
            if (cases % 5)
                answer.usage = {qint64(cases) * 7, 9, cases % 3 ? 0 : 123456789012345LL, 1LL << 40, true};
            WriterOptions options;
            options.requestId = "req-1";
            options.publicModel = cases % 2 ? QStringLiteral("team/gpt") : QStringLiteral("m\u00fcnchen \"q\"");

            QString joined;
            QString reasoning;
            for (const ContentPart &p : answer.parts)
                (p.kind == ContentPart::Kind::Text ? joined : reasoning) += p.text;
            QJsonObject message{{"role", "assistant"}, {"content", joined}};
            if (!reasoning.isEmpty())
                message.insert("reasoning_content", reasoning);
            QJsonObject expected{
                {"id", chatCompletionId(answer.id, options.requestId)},
                {"object", "chat.completion"},
                {"created", 0},
                {"model", options.publicModel},
                {"choices", QJsonArray{QJsonObject{{"index", 0}, {"message", message}, {"logprobs", QJsonValue::Null},
                                                   {"finish_reason", finishReasonFor(reason, false)}}}},
            };
            if (answer.usage.known)
                expected.insert("usage", usageJson(answer.usage));
            SCOPED_TRACE(cases);
            EXPECT_EQ(withoutCreated(OpenAiCodec().answerBody(answer, options)),
                      QJsonDocument(expected).toJson(QJsonDocument::Compact));
            ++cases;
        }
    }
}

TEST(OpenAiCodecTest, ToolCallAnswerHasNullContentToolCallsAndReasoning)
{
    CanonicalAnswer answer;
    answer.parts = {part(ContentPart::Kind::Thinking, "let me look"), toolCall("toolu_1", "get_weather", R"({"city":"Oslo"})"),
                    toolCall("toolu_2", "get_time", {})};
    answer.stopReason = StopReason::ToolUse;

    const QJsonObject body = parsedBody(OpenAiCodec().answerBody(answer, options));
    EXPECT_EQ(body.value("id").toString(), u"chatcmpl-req-42");
    EXPECT_FALSE(body.contains("usage")) << "no usage is invented";
    const QJsonObject choice = body.value("choices").toArray()[0].toObject();
    EXPECT_EQ(choice.value("finish_reason").toString(), u"tool_calls");
    const QJsonObject message = choice.value("message").toObject();
    EXPECT_TRUE(message.value("content").isNull());
    EXPECT_EQ(message.value("reasoning_content").toString(), u"let me look");
    EXPECT_EQ(message.value("tool_calls").toArray(),
              (QJsonArray{QJsonObject{{"id", "toolu_1"}, {"type", "function"},
                                      {"function", QJsonObject{{"name", "get_weather"}, {"arguments", R"({"city":"Oslo"})"}}}},
                          QJsonObject{{"id", "toolu_2"}, {"type", "function"},
                                      {"function", QJsonObject{{"name", "get_time"}, {"arguments", "{}"}}}}}));
}

TEST(OpenAiCodecTest, StopReasonsMapToFinishReasons)
{
    const struct {
        StopReason reason;
        const char *finish;
    } rows[] = {{StopReason::EndTurn, "stop"}, {StopReason::StopSequence, "stop"}, {StopReason::MaxTokens, "length"},
                {StopReason::ToolUse, "tool_calls"}, {StopReason::ContentFilter, "content_filter"}, {StopReason::Unknown, "stop"}};
    for (const auto &row : rows) {
        SCOPED_TRACE(row.finish);
        CanonicalAnswer answer;
        answer.parts = {ContentPart::textPart("x")};
        answer.stopReason = row.reason;
        const QJsonObject body = parsedBody(OpenAiCodec().answerBody(answer, options));
        EXPECT_EQ(body.value("choices").toArray()[0].toObject().value("finish_reason").toString(), QString::fromLatin1(row.finish));
    }
}

TEST(OpenAiCodecTest, ChatCompletionIdIsKeptAsItIs)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("chatcmpl-xyz");
    EXPECT_EQ(parsedBody(OpenAiCodec().answerBody(answer, options)).value("id").toString(), u"chatcmpl-xyz");
}

TEST(OpenAiCodecTest, ErrorBodyCarriesCodeParamAndMetadata)
{
    const ApiError error{400, QStringLiteral("Unknown content type 'x'."), "unsupported_content",
                         QStringLiteral("messages.0.content.0.type"), 0, QJsonObject{{"hint", "drop it"}}};
    const QJsonObject body = parsedBody(OpenAiCodec().errorBody(error));
    EXPECT_EQ(body, (QJsonObject{{"error", QJsonObject{{"message", "Unknown content type 'x'."},
                                                      {"type", "invalid_request_error"},
                                                      {"param", "messages.0.content.0.type"},
                                                      {"code", "unsupported_content"},
                                                      {"metadata", QJsonObject{{"hint", "drop it"}}}}}}));
    const QJsonObject plain = parsedBody(OpenAiCodec().errorBody(ApiError{502, QStringLiteral("All providers failed for model a")}));
    EXPECT_TRUE(plain.value("error").toObject().value("code").isNull());
    EXPECT_EQ(plain.value("error").toObject().value("type").toString(), u"api_error");
}

} // namespace
} // namespace sy::api::openai
