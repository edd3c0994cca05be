#include "api/openai/OpenAiCodec.h"

#include "api/openai/OpenAiErrors.h"
#include "api/openai/OpenAiRequestParser.h"
#include "api/openai/OpenAiStreamWriter.h"
#include "api/openai/OpenAiWire.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::openai {

std::variant<CanonicalRequest, ApiError> OpenAiCodec::parse(const QJsonObject &body) const
{
    return parseChatRequest(body);
}

QByteArray OpenAiCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    QString text;
    QString reasoning;
    QJsonArray toolCalls;
    for (const ContentPart &part : answer.parts) {
        switch (part.kind) {
        case ContentPart::Kind::Text: text += part.text; break;
        case ContentPart::Kind::Thinking: reasoning += part.text; break;
        case ContentPart::Kind::ToolCall:
            toolCalls.append(QJsonObject{
                {"id", part.toolCallId},
                {"type", "function"},
                {"function", QJsonObject{{"name", part.toolName},
                                         {"arguments", QString::fromUtf8(part.argumentsJson.isEmpty() ? "{}" : part.argumentsJson)}}},
            });
            break;
        case ContentPart::Kind::Image:
        case ContentPart::Kind::ToolResult: break;   // not parts of an answer in this format
        }
    }

    QJsonObject message{{"role", "assistant"}, {"content", text.isEmpty() && !toolCalls.isEmpty() ? QJsonValue() : QJsonValue(text)}};
    if (!toolCalls.isEmpty())
        message.insert("tool_calls", toolCalls);
    if (!reasoning.isEmpty())
        message.insert("reasoning_content", reasoning);
    const QJsonObject choice{
        {"index", 0},
        {"message", message},
        {"logprobs", QJsonValue::Null},
        {"finish_reason", finishReasonFor(answer.stopReason, !toolCalls.isEmpty())},
    };
    QJsonObject body{
        {"id", chatCompletionId(answer.id, options.requestId)},
        {"object", "chat.completion"},
        {"created", QDateTime::currentSecsSinceEpoch()},
        {"model", options.publicModel},
        {"choices", QJsonArray{choice}},
    };
    if (answer.usage.known)
        body.insert("usage", usageJson(answer.usage));
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::unique_ptr<StreamWriter> OpenAiCodec::streamWriter(const WriterOptions &options) const
{
    return std::make_unique<OpenAiStreamWriter>(options);
}

QByteArray OpenAiCodec::errorBody(const ApiError &error) const
{
    return openai::errorBody(error.status, error.message, error.code, error.param, error.metadata);
}

} // namespace sy::api::openai
