#include "api/anthropic/AnthropicCodec.h"

#include "api/anthropic/AnthropicRequestParser.h"
#include "api/anthropic/AnthropicStreamWriter.h"
#include "api/anthropic/AnthropicWire.h"

#include "core/JsonText.h"

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

namespace {

// The answer of text blocks only (what most answers are), written directly with the bytes the
// QJsonObject below would give (keys in its sorted order, Qt's escaping); nullopt for anything
// else (thinking, tool calls, cache_control), which the QJsonObject path writes.
std::optional<QByteArray> textAnswerBody(const CanonicalAnswer &answer, const WriterOptions &options)
{
    qsizetype textBytes = 0;
    for (const ContentPart &part : answer.parts) {
        if (part.kind == ContentPart::Kind::Image || part.kind == ContentPart::Kind::ToolResult)
            continue;
        if (part.kind != ContentPart::Kind::Text || !part.cacheControl.isEmpty())
            return std::nullopt;
        textBytes += part.text.size();
    }
    QByteArray out;
    out.reserve(textBytes * 3 / 2 + 320);
    out += "{\"content\":[";
    bool first = true;
    for (const ContentPart &part : answer.parts) {
        if (part.kind != ContentPart::Kind::Text)
            continue;
        out += first ? "{\"text\":" : ",{\"text\":";
        first = false;
        json::appendString(out, part.text);
        out += ",\"type\":\"text\"}";
    }
    out += "],\"id\":";
    json::appendString(out, messageId(answer.id, options.requestId));
    out += ",\"model\":";
    json::appendString(out, options.publicModel);
    out += ",\"role\":\"assistant\",\"stop_reason\":";
    json::appendString(out, stopReasonName(answer.stopReason));
    out += ",\"stop_sequence\":";
    if (answer.stopReason == StopReason::StopSequence && !answer.stopSequence.isEmpty())
        json::appendString(out, answer.stopSequence);
    else
        out += "null";
    const TokenUsage &usage = answer.usage;
    out += ",\"type\":\"message\",\"usage\":{\"cache_creation_input_tokens\":" + QByteArray::number(usage.cacheWriteTokens)
        + ",\"cache_read_input_tokens\":" + QByteArray::number(usage.cacheReadTokens)
        + ",\"input_tokens\":" + QByteArray::number(usage.inputTokens)
        + ",\"output_tokens\":" + QByteArray::number(usage.outputTokens) + "}}";
    return out;
}

} // namespace

QByteArray AnthropicCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    if (std::optional<QByteArray> text = textAnswerBody(answer, options))
        return *std::move(text);
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
