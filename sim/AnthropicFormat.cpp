#include "AnthropicFormat.h"

#include "JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace sy::sim {

namespace {

// Characters of a `system` or `content` value: a string or an array of blocks. Text, tool
// results and tool inputs count; images do not.
qsizetype contentCharacters(const QJsonValue &content)
{
    if (content.isString())
        return content.toString().size();
    qsizetype total = 0;
    for (const QJsonValue &value : content.toArray()) {
        const QJsonObject block = value.toObject();
        const QString type = block.value(QLatin1String("type")).toString();
        if (type == u"text")
            total += block.value(QLatin1String("text")).toString().size();
        else if (type == u"tool_result")
            total += contentCharacters(block.value(QLatin1String("content")));
        else if (type == u"tool_use")
            total += QJsonDocument(block.value(QLatin1String("input")).toObject()).toJson(QJsonDocument::Compact).size();
    }
    return total;
}

// A user turn of text that is not (also) the result of a tool call.
bool isUserText(const QJsonObject &message)
{
    if (message.value(QLatin1String("role")).toString() != u"user")
        return false;
    const QJsonValue content = message.value(QLatin1String("content"));
    if (content.isString())
        return !content.toString().isEmpty();
    bool text = false;
    for (const QJsonValue &value : content.toArray()) {
        const QString type = value.toObject().value(QLatin1String("type")).toString();
        if (type == u"tool_result")
            return false;
        text = text || type == u"text";
    }
    return text;
}

void appendEvent(QByteArray &out, QByteArrayView name, const QByteArray &json)
{
    out.append("event: ").append(name).append("\ndata: ").append(json).append("\n\n");
}

void appendUsage(QByteArray &out, int inputTokens, int outputTokens)
{
    out.append("\"usage\":{\"input_tokens\":").append(QByteArray::number(inputTokens));
    out.append(",\"output_tokens\":").append(QByteArray::number(outputTokens));
    out.append(",\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0}");
}

// The message object up to its content: `{"id","type":"message","role","model","content":`.
QByteArray messageHead(const ChatReply &reply)
{
    QByteArray out;
    out.reserve(256);
    out.append("{\"id\":\"msg_sim_").append(reply.serial()).append("\",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    appendJsonString(out, reply.model);
    out.append(",\"content\":");
    return out;
}

void appendToolUseBlock(QByteArray &out, const ChatReply &reply, bool withInput)
{
    out.append("{\"type\":\"tool_use\",\"id\":\"toolu_sim_").append(reply.serial()).append("\",\"name\":");
    appendJsonString(out, reply.toolName);
    out.append(",\"input\":").append(withInput ? QByteArrayView(reply.toolArguments) : QByteArrayView("{}"));
    out.append('}');
}

QByteArray contentBlockStart(qsizetype index, const QByteArray &block)
{
    QByteArray out;
    QByteArray json("{\"type\":\"content_block_start\",\"index\":");
    json.append(QByteArray::number(index)).append(",\"content_block\":").append(block).append('}');
    appendEvent(out, "content_block_start", json);
    appendEvent(out, "ping", "{\"type\":\"ping\"}");
    return out;
}

QByteArray contentBlockStop(qsizetype index)
{
    QByteArray out;
    appendEvent(out, "content_block_stop",
                "{\"type\":\"content_block_stop\",\"index\":" + QByteArray::number(index) + '}');
    return out;
}

QByteArray messageEnd(QByteArrayView stopReason, int outputTokens)
{
    QByteArray delta("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"");
    delta.append(stopReason).append("\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":");
    delta.append(QByteArray::number(outputTokens)).append("}}");
    QByteArray out;
    appendEvent(out, "message_delta", delta);
    appendEvent(out, "message_stop", "{\"type\":\"message_stop\"}");
    return out;
}

RequestParse refuse(int status, const QString &message)
{
    return {std::nullopt, message, status};
}

} // namespace

RequestParse AnthropicFormat::parseRequest(const http::HttpRequest &http, QByteArrayView endpoint) const
{
    if (http.header("x-api-key").isEmpty() && !http.header("authorization").startsWith("Bearer "))
        return refuse(401, QStringLiteral("x-api-key header is required"));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(http.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return refuse(400, QStringLiteral("request body is not a JSON object"));
    const QJsonObject root = document.object();

    ChatRequest request;
    request.model = root.value(QLatin1String("model")).toString();
    if (request.model.isEmpty())
        return refuse(400, QStringLiteral("model: Field required"));
    const QJsonValue maxTokens = root.value(QLatin1String("max_tokens"));
    if (!endpoint.endsWith("/count_tokens")) {
        if (maxTokens.isUndefined())
            return refuse(400, QStringLiteral("max_tokens: Field required"));
        if (maxTokens.toInt(0) < 1)
            return refuse(400, QStringLiteral("max_tokens: must be a positive integer"));
        request.maxTokens = maxTokens.toInt();
    }
    const QJsonValue messages = root.value(QLatin1String("messages"));
    if (!messages.isArray())
        return refuse(400, QStringLiteral("messages: Field required"));
    request.stream = root.value(QLatin1String("stream")).toBool(false);
    qsizetype characters = contentCharacters(root.value(QLatin1String("system")));
    const QJsonArray turns = messages.toArray();
    for (const QJsonValue &message : turns)
        characters += contentCharacters(message.toObject().value(QLatin1String("content")));
    request.promptTokens = int(qMax<qsizetype>(1, characters / 4));
    request.firstToolName = root.value(QLatin1String("tools")).toArray().at(0).toObject()
                                .value(QLatin1String("name")).toString();
    request.lastTurnIsUserText = !turns.isEmpty() && isUserText(turns.last().toObject());
    return {std::move(request), {}};
}

QByteArrayView AnthropicFormat::stopReason(const ChatReply &reply)
{
    if (reply.finishReason == "length")
        return "max_tokens";
    if (reply.finishReason == "tool_calls")
        return "tool_use";
    return "end_turn";
}

QByteArray AnthropicFormat::completionBody(const ChatReply &reply) const
{
    QByteArray out = messageHead(reply);
    if (reply.hasToolCall()) {
        out.append('[');
        appendToolUseBlock(out, reply, true);
        out.append(']');
    } else {
        out.append("[{\"type\":\"text\",\"text\":");
        appendJsonUtf8(out, reply.text());
        out.append("}]");
    }
    out.append(",\"stop_reason\":\"").append(stopReason(reply)).append("\",\"stop_sequence\":null,");
    appendUsage(out, reply.promptTokens, reply.completionTokens());
    out.append('}');
    return out;
}

QByteArray AnthropicFormat::emptyCompletionBody(const ChatReply &reply) const
{
    QByteArray out = messageHead(reply);
    out.append("[],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,");
    appendUsage(out, reply.promptTokens, 0);
    out.append('}');
    return out;
}

QByteArrayView AnthropicFormat::errorType(int status)
{
    switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 408: return "timeout_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503:
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

QByteArray AnthropicFormat::errorBody(int status, const QString &message) const
{
    QByteArray out("{\"type\":\"error\",\"error\":{\"type\":\"");
    out.append(errorType(status)).append("\",\"message\":");
    appendJsonString(out, message);
    out.append("}}");
    return out;
}

QByteArray AnthropicFormat::modelList(const QStringList &models, const QString &) const
{
    QByteArray out("{\"data\":[");
    for (qsizetype i = 0; i < models.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append("{\"type\":\"model\",\"id\":");
        appendJsonString(out, models.at(i));
        out.append(",\"display_name\":");
        appendJsonString(out, models.at(i));
        out.append(",\"created_at\":\"2025-01-01T00:00:00Z\"}");
    }
    out.append("],\"has_more\":false,\"first_id\":");
    if (models.isEmpty()) {
        out.append("null,\"last_id\":null}");
        return out;
    }
    appendJsonString(out, models.first());
    out.append(",\"last_id\":");
    appendJsonString(out, models.last());
    out.append('}');
    return out;
}

QByteArray AnthropicFormat::streamStart(const ChatReply &reply) const
{
    // Like Anthropic, message_start counts one output token already.
    QByteArray json("{\"type\":\"message_start\",\"message\":");
    json.append(messageHead(reply)).append("[],\"stop_reason\":null,\"stop_sequence\":null,");
    appendUsage(json, reply.promptTokens, 1);
    json.append("}}");
    QByteArray out;
    appendEvent(out, "message_start", json);
    return out;
}

QByteArray AnthropicFormat::streamContent(const ChatReply &reply, qsizetype index) const
{
    QByteArray out;
    if (index == 0)
        out = contentBlockStart(0, "{\"type\":\"text\",\"text\":\"\"}");
    QByteArray json("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":");
    appendJsonUtf8(json, reply.delta(index));
    json.append("}}");
    appendEvent(out, "content_block_delta", json);
    return out;
}

QByteArray AnthropicFormat::streamEnd(const ChatReply &reply) const
{
    QByteArray out;
    qsizetype block = 0;
    if (!reply.words.empty())
        out.append(contentBlockStop(block++));
    if (reply.hasToolCall()) {
        QByteArray start;
        appendToolUseBlock(start, reply, false);
        out.append(contentBlockStart(block, start));
        // The input arrives as JSON text in pieces, like Anthropic's input_json_delta.
        const QByteArray &arguments = reply.toolArguments;
        const qsizetype half = arguments.size() / 2;
        for (const QByteArray &piece : {arguments.left(half), arguments.mid(half)}) {
            QByteArray json("{\"type\":\"content_block_delta\",\"index\":");
            json.append(QByteArray::number(block)).append(",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":");
            appendJsonUtf8(json, piece);
            json.append("}}");
            appendEvent(out, "content_block_delta", json);
        }
        out.append(contentBlockStop(block));
    }
    out.append(messageEnd(stopReason(reply), reply.completionTokens()));
    return out;
}

QByteArray AnthropicFormat::streamEmpty(const ChatReply &) const
{
    return messageEnd("end_turn", 0);
}

QByteArray AnthropicFormat::malformedEvent(const ChatReply &) const
{
    return QByteArrayLiteral("event: content_block_delta\ndata: {not json\n\n");
}

QByteArray AnthropicFormat::streamError(const ChatReply &, qsizetype, int status, const QString &message) const
{
    QByteArray out;
    appendEvent(out, "error", errorBody(status, message));
    return out;
}

QByteArray AnthropicFormat::tokenCountBody(int inputTokens)
{
    return "{\"input_tokens\":" + QByteArray::number(inputTokens) + '}';
}

} // namespace sy::sim
