#include "api/gemini/GeminiWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::gemini {

QJsonValue member(const QJsonObject &object, const char *camelName)
{
    const QLatin1String camel(camelName);
    const QJsonValue value = object.value(camel);
    if (!value.isUndefined())
        return value;
    QString snake;
    snake.reserve(camel.size() + 4);
    for (const char c : camel) {
        if (c >= 'A' && c <= 'Z') {
            snake += QLatin1Char('_');
            snake += QLatin1Char(char(c - 'A' + 'a'));
        } else {
            snake += QLatin1Char(c);
        }
    }
    return snake == camel ? QJsonValue(QJsonValue::Undefined) : object.value(snake);
}

QString finishReasonName(StopReason reason)
{
    switch (reason) {
    case StopReason::MaxTokens: return QStringLiteral("MAX_TOKENS");
    case StopReason::ContentFilter: return QStringLiteral("SAFETY");
    case StopReason::EndTurn:
    case StopReason::ToolUse:
    case StopReason::StopSequence:
    case StopReason::Unknown:
    case StopReason::Error: break;
    }
    return QStringLiteral("STOP");
}

StopReason stopReasonFromFinish(const QString &finishReason, bool hasToolCall)
{
    if (finishReason == QLatin1String("STOP"))
        return hasToolCall ? StopReason::ToolUse : StopReason::EndTurn;
    if (finishReason == QLatin1String("MAX_TOKENS"))
        return StopReason::MaxTokens;
    for (const char *filtered : {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}) {
        if (finishReason == QLatin1String(filtered))
            return StopReason::ContentFilter;
    }
    return hasToolCall ? StopReason::ToolUse : StopReason::Unknown;
}

QJsonObject usageMetadataJson(const TokenUsage &usage)
{
    const qint64 prompt = usage.promptTokensTotal();
    QJsonObject out{
        {"promptTokenCount", prompt},
        {"candidatesTokenCount", usage.outputTokens},
        {"totalTokenCount", prompt + usage.outputTokens},
    };
    if (usage.cacheReadTokens > 0)
        out.insert("cachedContentTokenCount", usage.cacheReadTokens);
    return out;
}

TokenUsage usageFromMetadata(const QJsonObject &usageMetadata)
{
    TokenUsage usage;
    auto count = [&](const char *key) -> qint64 {
        const QJsonValue v = member(usageMetadata, key);
        if (!v.isDouble())
            return 0;
        usage.known = true;
        return v.toInteger();
    };
    const qint64 prompt = count("promptTokenCount");
    const qint64 cached = count("cachedContentTokenCount");
    const qint64 toolPrompt = count("toolUsePromptTokenCount");
    usage.inputTokens = std::max<qint64>(0, prompt - cached) + toolPrompt;
    usage.cacheReadTokens = cached;
    usage.outputTokens = count("candidatesTokenCount") + count("thoughtsTokenCount");
    return usage;
}

QJsonObject argumentsObject(const QByteArray &argumentsJson)
{
    const QJsonDocument doc = QJsonDocument::fromJson(argumentsJson);
    return doc.isObject() ? doc.object() : QJsonObject{};
}

std::optional<QJsonObject> answerPartJson(const ContentPart &part)
{
    QJsonObject out;
    switch (part.kind) {
    case ContentPart::Kind::Text:
        out = {{"text", part.text}};
        break;
    case ContentPart::Kind::Thinking:
        out = {{"text", part.text}, {"thought", true}};
        break;
    case ContentPart::Kind::ToolCall: {
        QJsonObject call{{"name", part.toolName}, {"args", argumentsObject(part.argumentsJson)}};
        if (!part.toolCallId.isEmpty())
            call.insert("id", part.toolCallId);
        out = {{"functionCall", call}};
        break;
    }
    case ContentPart::Kind::Image:
    case ContentPart::Kind::ToolResult:
        return std::nullopt;
    }
    // Gemini's signatures ride on the part they belong to (a thought or a function call); a
    // redacted Anthropic thought has no text a Gemini client could use.
    if (part.kind == ContentPart::Kind::Thinking && part.redacted)
        return std::nullopt;
    if (!part.signature.isEmpty())
        out.insert("thoughtSignature", part.signature);
    return out;
}

QByteArray statusForHttp(int status)
{
    switch (status) {
    case 400: case 413: case 422: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 402: case 429: return "RESOURCE_EXHAUSTED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 405: case 501: return "UNIMPLEMENTED";
    case 408: case 504: return "DEADLINE_EXCEEDED";
    case 409: return "ABORTED";
    case 499: return "CANCELLED";
    case 502: case 503: return "UNAVAILABLE";
    default: return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
    }
}

QByteArray errorBody(const ApiError &error)
{
    const QByteArray status = statusForHttp(error.status);
    const QString reason = error.code.isEmpty() ? QString::fromLatin1(status).toLower() : QString::fromUtf8(error.code);
    QJsonArray details{QJsonObject{
        {"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
        {"reason", reason},
        {"domain", "switchyard"},
    }};
    if (!error.param.isEmpty()) {
        details.append(QJsonObject{
            {"@type", "type.googleapis.com/google.rpc.BadRequest"},
            {"fieldViolations", QJsonArray{QJsonObject{{"field", error.param}, {"description", error.message}}}},
        });
    }
    QJsonObject inner{
        {"code", error.status},
        {"message", error.message},
        {"status", QString::fromLatin1(status)},
        {"details", details},
    };
    // An extension Gemini clients ignore: the detail of a failed chain (its attempts).
    if (!error.metadata.isEmpty())
        inner.insert("metadata", error.metadata);
    return QJsonDocument(QJsonObject{{"error", inner}}).toJson(QJsonDocument::Compact);
}

QByteArray interruptedObject(const QString &reason)
{
    ApiError error;
    error.status = 500;
    error.message = reason;
    error.code = "stream_interrupted";
    return errorBody(error);
}

QByteArray ChunkFramer::element(const QByteArray &json)
{
    if (m_closed)
        return {};
    QByteArray out;
    if (m_jsonArray) {
        out.reserve(json.size() + 2);
        out += m_wroteAny ? ',' : '[';
        out += json;
        out += '\n';
    } else {
        out.reserve(json.size() + 10);
        for (const QByteArray &line : json.split('\n'))
            out += "data: " + line + "\r\n";
        out += "\r\n";
    }
    m_wroteAny = true;
    return out;
}

QByteArray ChunkFramer::close()
{
    if (m_closed || !m_jsonArray)
        return {};
    m_closed = true;
    return m_wroteAny ? QByteArrayLiteral("]") : QByteArrayLiteral("[]");
}

} // namespace sy::api::gemini
