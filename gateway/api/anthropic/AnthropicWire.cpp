#include "api/anthropic/AnthropicWire.h"

#include "api/JsonMembers.h"

#include <QJsonDocument>

namespace sy::api::anthropic {

QString stopReasonName(StopReason reason)
{
    switch (reason) {
    case StopReason::MaxTokens: return QStringLiteral("max_tokens");
    case StopReason::ToolUse: return QStringLiteral("tool_use");
    case StopReason::StopSequence: return QStringLiteral("stop_sequence");
    case StopReason::ContentFilter: return QStringLiteral("refusal");
    case StopReason::EndTurn:
    case StopReason::Unknown:
    case StopReason::Error: break;
    }
    return QStringLiteral("end_turn");
}

StopReason stopReasonFromName(const QString &name)
{
    if (name == QLatin1String("end_turn"))
        return StopReason::EndTurn;
    if (name == QLatin1String("max_tokens") || name == QLatin1String("model_context_window_exceeded"))
        return StopReason::MaxTokens;
    if (name == QLatin1String("tool_use"))
        return StopReason::ToolUse;
    if (name == QLatin1String("stop_sequence"))
        return StopReason::StopSequence;
    if (name == QLatin1String("refusal"))
        return StopReason::ContentFilter;
    return StopReason::Unknown;
}

QJsonObject usageJson(const TokenUsage &usage)
{
    return QJsonObject{
        {"input_tokens", usage.inputTokens},
        {"output_tokens", usage.outputTokens},
        {"cache_creation_input_tokens", usage.cacheWriteTokens},
        {"cache_read_input_tokens", usage.cacheReadTokens},
    };
}

void mergeUsage(const QJsonObject &usage, TokenUsage &into)
{
    auto take = [&](const char *key, qint64 &field) {
        const QJsonValue v = usage.value(QLatin1String(key));
        if (v.isDouble()) {
            field = v.toInteger();
            into.known = true;
        }
    };
    take("input_tokens", into.inputTokens);
    take("output_tokens", into.outputTokens);
    take("cache_creation_input_tokens", into.cacheWriteTokens);
    take("cache_read_input_tokens", into.cacheReadTokens);
}

QJsonObject argumentsObject(const QByteArray &argumentsJson)
{
    const QJsonDocument doc = QJsonDocument::fromJson(argumentsJson);
    return doc.isObject() ? doc.object() : QJsonObject{};
}

namespace {

QJsonObject imageBlock(const ContentPart &part)
{
    QJsonObject source;
    QString mediaType = part.mediaType;
    QByteArray data = part.base64Data;
    if (data.isEmpty() && part.imageUrl.startsWith(QLatin1String("data:"))) {
        // data:<media type>;base64,<data> — codecs split these, but a URL kept whole still works.
        const qsizetype comma = part.imageUrl.indexOf(QLatin1Char(','));
        const QString header = part.imageUrl.mid(5, comma - 5);
        mediaType = header.section(QLatin1Char(';'), 0, 0);
        data = part.imageUrl.mid(comma + 1).toUtf8();
    }
    if (!data.isEmpty()) {
        source = {{"type", "base64"}, {"media_type", mediaType}, {"data", QString::fromLatin1(data)}};
    } else {
        source = {{"type", "url"}, {"url", part.imageUrl}};
    }
    return QJsonObject{{"type", "image"}, {"source", source}};
}

} // namespace

QJsonObject blockFromPart(const ContentPart &part)
{
    QJsonObject block;
    switch (part.kind) {
    case ContentPart::Kind::Text:
        block = {{"type", "text"}, {"text", part.text}};
        break;
    case ContentPart::Kind::Image:
        block = imageBlock(part);
        break;
    case ContentPart::Kind::ToolCall:
        block = {{"type", "tool_use"}, {"id", part.toolCallId}, {"name", part.toolName},
                 {"input", argumentsObject(part.argumentsJson)}};
        break;
    case ContentPart::Kind::ToolResult: {
        block = {{"type", "tool_result"}, {"tool_use_id", part.toolCallId}};
        if (!part.resultParts.isEmpty()) {
            QJsonArray content;
            for (const ContentPart &inner : part.resultParts)
                content.append(blockFromPart(inner));
            block.insert("content", content);
        } else {
            block.insert("content", part.text);
        }
        if (part.isError)
            block.insert("is_error", true);
        break;
    }
    case ContentPart::Kind::Thinking:
        if (part.redacted)
            block = {{"type", "redacted_thinking"}, {"data", part.signature}};
        else
            block = {{"type", "thinking"}, {"thinking", part.text}, {"signature", part.signature}};
        break;
    }
    if (!part.cacheControl.isEmpty())
        block.insert("cache_control", part.cacheControl);
    return block;
}

ContentPart partFromAnswerBlock(const QJsonObject &block)
{
    const QString type = block.value("type").toString();
    ContentPart part;
    if (type == QLatin1String("text")) {
        part.text = block.value("text").toString();
    } else if (type == QLatin1String("thinking")) {
        part.kind = ContentPart::Kind::Thinking;
        part.text = block.value("thinking").toString();
        part.signature = block.value("signature").toString();
    } else if (type == QLatin1String("redacted_thinking")) {
        part.kind = ContentPart::Kind::Thinking;
        part.redacted = true;
        part.signature = block.value("data").toString();
    } else if (type == QLatin1String("tool_use")) {
        part.kind = ContentPart::Kind::ToolCall;
        part.toolCallId = block.value("id").toString();
        part.toolName = block.value("name").toString();
        part.argumentsJson = QJsonDocument(block.value("input").toObject()).toJson(QJsonDocument::Compact);
    } else {
        part.text = QStringLiteral("[unsupported block: %1]").arg(type);
    }
    return part;
}

QByteArray errorTypeForStatus(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503: case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

QByteArray errorBody(const ApiError &error)
{
    QJsonObject inner{
        {"type", QString::fromLatin1(errorTypeForStatus(error.status))},
        {"message", error.message},
    };
    // Extensions Anthropic clients ignore: the shared machine-readable reason and its detail.
    if (!error.code.isEmpty())
        inner.insert("code", QString::fromUtf8(error.code));
    if (!error.metadata.isEmpty())
        inner.insert("metadata", error.metadata);
    return QJsonDocument(QJsonObject{{"type", "error"}, {"error", inner}}).toJson(QJsonDocument::Compact);
}

QByteArray sseEvent(QByteArrayView name, const QJsonObject &data)
{
    QByteArray out;
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += QJsonDocument(data).toJson(QJsonDocument::Compact);
    out += "\n\n";
    return out;
}

QByteArray interruptedEvent(const QString &reason)
{
    // Written by hand to keep Anthropic's member order (type first); QJsonObject sorts its keys.
    return "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":"
        + jsonString(reason.toUtf8()) + "}}\n\n";
}

} // namespace sy::api::anthropic
