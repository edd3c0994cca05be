#include "api/anthropic/AnthropicCodec.h"

#include "api/anthropic/AnthropicRequestParser.h"
#include "api/anthropic/AnthropicStreamWriter.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::anthropic {

QString messageId(const QString &answerId, const QByteArray &requestId)
{
    if (answerId.startsWith(QLatin1String("msg_")))
        return answerId;
    return QStringLiteral("msg_") + (answerId.isEmpty() ? QString::fromLatin1(requestId) : answerId);
}

std::variant<CanonicalRequest, ApiError> AnthropicCodec::parse(const QJsonObject &body) const
{
    return parseRequest(body);
}

QByteArray AnthropicCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    QJsonArray content;
    bool hasToolCall = false;
    for (const ContentPart &part : answer.parts) {
        // An answer carries text, thinking and tool calls; anything else has no answer block.
        if (part.kind == ContentPart::Kind::Image || part.kind == ContentPart::Kind::ToolResult)
            continue;
        hasToolCall = hasToolCall || part.kind == ContentPart::Kind::ToolCall;
        content.append(blockFromPart(part));
    }
    StopReason reason = answer.stopReason;
    if (reason == StopReason::Unknown && hasToolCall)
        reason = StopReason::ToolUse;
    const QJsonValue stopSequence = reason == StopReason::StopSequence && !answer.stopSequence.isEmpty()
        ? QJsonValue(answer.stopSequence) : QJsonValue(QJsonValue::Null);
    const QJsonObject body{
        {"id", messageId(answer.id, options.requestId)},
        {"type", "message"},
        {"role", "assistant"},
        {"model", options.publicModel},
        {"content", content},
        {"stop_reason", stopReasonName(reason)},
        {"stop_sequence", stopSequence},
        {"usage", usageJson(answer.usage)},
    };
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::unique_ptr<StreamWriter> AnthropicCodec::streamWriter(const WriterOptions &options) const
{
    return std::make_unique<AnthropicStreamWriter>(options);
}

QByteArray AnthropicCodec::errorBody(const ApiError &error) const
{
    return anthropic::errorBody(error);
}

} // namespace sy::api::anthropic
