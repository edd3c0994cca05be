#include "OpenAiFormat.h"

#include "JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace sy::sim {

namespace {

qsizetype messageCharacters(const QJsonValue &content)
{
    if (content.isString())
        return content.toString().size();
    qsizetype total = 0;
    if (content.isArray()) {
        for (const QJsonValue &part : content.toArray())
            total += part.toObject().value(QLatin1String("text")).toString().size();
    }
    return total;
}

// `{"id":…,"object":<object>,"created":…,"model":…,` — the common head of every body.
QByteArray head(const ChatReply &reply, QByteArrayView object)
{
    QByteArray out;
    out.reserve(256);
    out.append("{\"id\":\"").append(reply.id).append("\",\"object\":\"").append(object);
    out.append("\",\"created\":").append(QByteArray::number(reply.createdSeconds)).append(",\"model\":");
    appendJsonString(out, reply.model);
    out.append(',');
    return out;
}

void appendUsage(QByteArray &out, int promptTokens, int completionTokens)
{
    out.append("\"usage\":{\"prompt_tokens\":").append(QByteArray::number(promptTokens));
    out.append(",\"completion_tokens\":").append(QByteArray::number(completionTokens));
    out.append(",\"total_tokens\":").append(QByteArray::number(promptTokens + completionTokens));
    out.append('}');
}

void appendEvent(QByteArray &out, const QByteArray &json)
{
    out.append("data: ").append(json).append("\n\n");
}

// One entry of `tool_calls`: `{"index"?,"id","type":"function","function":{"name","arguments"}}`.
void appendToolCall(QByteArray &out, const ChatReply &reply, bool withIndex, QByteArrayView arguments)
{
    out.append('{');
    if (withIndex)
        out.append("\"index\":0,");
    out.append("\"id\":\"call_sim_").append(reply.serial()).append("\",\"type\":\"function\",\"function\":{\"name\":");
    appendJsonString(out, reply.toolName);
    out.append(",\"arguments\":");
    appendJsonUtf8(out, arguments);
    out.append("}}");
}

constexpr QByteArrayView kDone = "data: [DONE]\n\n";

} // namespace

RequestParse OpenAiFormat::parseRequest(const http::HttpRequest &http, QByteArrayView) const
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(http.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return {std::nullopt, QStringLiteral("request body is not a JSON object")};
    const QJsonObject root = document.object();

    ChatRequest request;
    request.model = root.value(QLatin1String("model")).toString();
    if (request.model.isEmpty())
        return {std::nullopt, QStringLiteral("you must provide a model parameter")};
    request.stream = root.value(QLatin1String("stream")).toBool(false);
    request.includeUsage = root.value(QLatin1String("stream_options")).toObject()
                               .value(QLatin1String("include_usage")).toBool(false);
    for (const char *key : {"max_completion_tokens", "max_tokens"}) {
        const int cap = root.value(QLatin1String(key)).toInt(0);
        if (cap > 0 && (request.maxTokens == 0 || cap < request.maxTokens))
            request.maxTokens = cap;
    }
    qsizetype characters = 0;
    const QJsonArray messages = root.value(QLatin1String("messages")).toArray();
    for (const QJsonValue &message : messages)
        characters += messageCharacters(message.toObject().value(QLatin1String("content")));
    request.promptTokens = int(qMax<qsizetype>(1, characters / 4));
    request.firstToolName = root.value(QLatin1String("tools")).toArray().at(0).toObject()
                                .value(QLatin1String("function")).toObject().value(QLatin1String("name")).toString();
    const QJsonObject last = messages.isEmpty() ? QJsonObject() : messages.last().toObject();
    request.lastTurnIsUserText = last.value(QLatin1String("role")).toString() == u"user"
                              && messageCharacters(last.value(QLatin1String("content"))) > 0;
    return {std::move(request), {}};
}

QByteArray OpenAiFormat::completionBody(const ChatReply &reply) const
{
    QByteArray out = head(reply, "chat.completion");
    out.append("\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":");
    if (reply.hasToolCall()) {
        out.append("null,\"tool_calls\":[");
        appendToolCall(out, reply, false, reply.toolArguments);
        out.append(']');
    } else {
        appendJsonUtf8(out, reply.text());
    }
    out.append("},\"finish_reason\":\"").append(reply.finishReason).append("\"}],");
    appendUsage(out, reply.promptTokens, reply.completionTokens());
    out.append('}');
    return out;
}

QByteArray OpenAiFormat::emptyCompletionBody(const ChatReply &reply) const
{
    QByteArray out = head(reply, "chat.completion");
    out.append("\"choices\":[],");
    appendUsage(out, reply.promptTokens, 0);
    out.append('}');
    return out;
}

std::pair<QByteArrayView, QByteArrayView> OpenAiFormat::errorTypeAndCode(int status)
{
    switch (status) {
    case 400: return {"invalid_request_error", "invalid_request"};
    case 401: return {"authentication_error", "invalid_api_key"};
    case 402: return {"insufficient_quota", "insufficient_quota"};
    case 403: return {"permission_error", "permission_denied"};
    case 404: return {"invalid_request_error", "model_not_found"};
    case 408: return {"timeout", "timeout"};
    case 429: return {"rate_limit_exceeded", "rate_limit_exceeded"};
    case 503: return {"server_error", "service_unavailable"};
    default: return status >= 500 ? std::pair<QByteArrayView, QByteArrayView>{"server_error", "server_error"}
                                  : std::pair<QByteArrayView, QByteArrayView>{"invalid_request_error", "error"};
    }
}

QByteArray OpenAiFormat::errorBody(int status, const QString &message) const
{
    const auto [type, code] = errorTypeAndCode(status);
    QByteArray out;
    out.reserve(160);
    out.append("{\"error\":{\"message\":");
    appendJsonString(out, message);
    out.append(",\"type\":\"").append(type).append("\",\"param\":null,\"code\":\"").append(code).append("\"}}");
    return out;
}

QByteArray OpenAiFormat::modelList(const QStringList &models, const QString &owner) const
{
    QByteArray out("{\"object\":\"list\",\"data\":[");
    for (qsizetype i = 0; i < models.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append("{\"id\":");
        appendJsonString(out, models.at(i));
        out.append(",\"object\":\"model\",\"created\":0,\"owned_by\":");
        appendJsonString(out, owner);
        out.append('}');
    }
    out.append("]}");
    return out;
}

QByteArray OpenAiFormat::streamContent(const ChatReply &reply, qsizetype index) const
{
    QByteArray json = head(reply, "chat.completion.chunk");
    json.append("\"choices\":[{\"index\":0,\"delta\":{");
    if (index == 0)
        json.append("\"role\":\"assistant\",");
    json.append("\"content\":");
    appendJsonUtf8(json, reply.delta(index));
    json.append("},\"finish_reason\":null}]}");
    QByteArray out;
    appendEvent(out, json);
    return out;
}

QByteArray OpenAiFormat::streamEnd(const ChatReply &reply) const
{
    QByteArray out;
    if (reply.hasToolCall()) {
        // The call's head first, then its arguments, as OpenAI streams them.
        QByteArray call = head(reply, "chat.completion.chunk");
        call.append("\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
        appendToolCall(call, reply, true, "");
        call.append("]},\"finish_reason\":null}]}");
        appendEvent(out, call);
        QByteArray arguments = head(reply, "chat.completion.chunk");
        arguments.append("\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":");
        appendJsonUtf8(arguments, reply.toolArguments);
        arguments.append("}}]},\"finish_reason\":null}]}");
        appendEvent(out, arguments);
    }
    QByteArray finish = head(reply, "chat.completion.chunk");
    finish.append("\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"")
        .append(reply.finishReason).append("\"}]}");
    appendEvent(out, finish);
    if (reply.includeUsage) {
        QByteArray usage = head(reply, "chat.completion.chunk");
        usage.append("\"choices\":[],");
        appendUsage(usage, reply.promptTokens, reply.completionTokens());
        usage.append('}');
        appendEvent(out, usage);
    }
    out.append(kDone);
    return out;
}

QByteArray OpenAiFormat::streamEmpty(const ChatReply &) const
{
    return kDone.toByteArray();
}

QByteArray OpenAiFormat::malformedEvent(const ChatReply &) const
{
    return QByteArrayLiteral("data: {not json\n\n");
}

QByteArray OpenAiFormat::streamError(const ChatReply &, qsizetype, int status, const QString &message) const
{
    QByteArray out;
    appendEvent(out, errorBody(status, message));
    return out;
}

} // namespace sy::sim
