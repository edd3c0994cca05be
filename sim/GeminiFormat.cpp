#include "GeminiFormat.h"

#include "JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace sy::sim {

namespace {

constexpr QByteArrayView kModelsPrefix = "/v1beta/models/";

qsizetype jsonCharacters(const QJsonValue &value)
{
    return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact).size();
}

// Characters of the parts of one Content: text, function call arguments and function responses.
qsizetype partsCharacters(const QJsonObject &content)
{
    qsizetype total = 0;
    for (const QJsonValue &value : content.value(QLatin1String("parts")).toArray()) {
        const QJsonObject part = value.toObject();
        total += part.value(QLatin1String("text")).toString().size();
        if (part.contains(QLatin1String("functionCall")))
            total += jsonCharacters(part.value(QLatin1String("functionCall")).toObject().value(QLatin1String("args")));
        if (part.contains(QLatin1String("functionResponse")))
            total += jsonCharacters(part.value(QLatin1String("functionResponse")).toObject().value(QLatin1String("response")));
    }
    return total;
}

bool isUserText(const QJsonObject &content)
{
    if (content.value(QLatin1String("role")).toString(QStringLiteral("user")) != u"user")
        return false;
    bool text = false;
    for (const QJsonValue &value : content.value(QLatin1String("parts")).toArray()) {
        const QJsonObject part = value.toObject();
        if (part.contains(QLatin1String("functionResponse")))
            return false;
        text = text || part.contains(QLatin1String("text"));
    }
    return text;
}

QString firstFunctionName(const QJsonArray &tools)
{
    for (const QJsonValue &tool : tools) {
        const QJsonArray declarations = tool.toObject().value(QLatin1String("functionDeclarations")).toArray();
        if (!declarations.isEmpty())
            return declarations.at(0).toObject().value(QLatin1String("name")).toString();
    }
    return {};
}

QByteArrayView finishReason(const ChatReply &reply)
{
    return reply.finishReason == "length" ? QByteArrayView("MAX_TOKENS") : QByteArrayView("STOP");
}

void appendUsage(QByteArray &out, int promptTokens, int candidateTokens)
{
    out.append("\"usageMetadata\":{\"promptTokenCount\":").append(QByteArray::number(promptTokens));
    out.append(",\"candidatesTokenCount\":").append(QByteArray::number(candidateTokens));
    out.append(",\"totalTokenCount\":").append(QByteArray::number(promptTokens + candidateTokens)).append('}');
}

// `"modelVersion":…,"responseId":…}`: the tail of every response object.
void appendTail(QByteArray &out, const ChatReply &reply)
{
    out.append("\"modelVersion\":");
    appendJsonString(out, reply.model);
    out.append(",\"responseId\":\"sim-").append(reply.serial()).append("\"}");
}

// `{"candidates":[{"content":{"role":"model","parts":<parts>}[,"finishReason":…],"index":0}],`
QByteArray candidateHead(QByteArrayView parts, QByteArrayView finish)
{
    QByteArray out("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":");
    out.append(parts).append('}');
    if (!finish.isEmpty())
        out.append(",\"finishReason\":\"").append(finish).append('"');
    out.append(",\"index\":0}],");
    return out;
}

QByteArray textParts(QByteArrayView text)
{
    QByteArray out("[{\"text\":");
    appendJsonUtf8(out, text);
    out.append("}]");
    return out;
}

QByteArray functionCallParts(const ChatReply &reply)
{
    QByteArray out("[{\"functionCall\":{\"name\":");
    appendJsonString(out, reply.toolName);
    out.append(",\"args\":").append(reply.toolArguments).append("}}]");
    return out;
}

// One element of the stream in its framing. `first`: no element came before (JSON array).
QByteArray element(const ChatReply &reply, const QByteArray &json, bool first)
{
    QByteArray out;
    if (reply.jsonArrayStream) {
        if (!first)
            out.append(',');
        out.append(json).append('\n');
    } else {
        out.append("data: ").append(json).append("\n\n");
    }
    return out;
}

QByteArray closeArray(const ChatReply &reply)
{
    return reply.jsonArrayStream ? QByteArrayLiteral("]") : QByteArray();
}

} // namespace

std::optional<GeminiModelCall> parseGeminiModelCall(QByteArrayView endpoint)
{
    if (!endpoint.startsWith(kModelsPrefix))
        return std::nullopt;
    const QByteArrayView rest = endpoint.sliced(kModelsPrefix.size());
    const qsizetype colon = rest.lastIndexOf(':');
    if (colon <= 0 || colon == rest.size() - 1)
        return std::nullopt;
    return GeminiModelCall{QString::fromUtf8(rest.first(colon)), rest.sliced(colon + 1).toByteArray()};
}

std::optional<RequestParse> GeminiFormat::checkKey(const http::HttpRequest &request)
{
    if (!request.header("x-goog-api-key").isEmpty() || !request.query.queryItemValue(QStringLiteral("key")).isEmpty()
        || request.header("authorization").startsWith("Bearer "))
        return std::nullopt;
    return RequestParse{std::nullopt, QStringLiteral("Method doesn't allow unregistered callers (callers without "
                                                     "established identity). Please use API Key or other form of "
                                                     "API consumer identity to call this API."), 403};
}

RequestParse GeminiFormat::parseRequest(const http::HttpRequest &http, QByteArrayView endpoint) const
{
    if (std::optional<RequestParse> refused = checkKey(http))
        return *refused;
    const std::optional<GeminiModelCall> call = parseGeminiModelCall(endpoint);
    if (!call || call->model.isEmpty())
        return {std::nullopt, QStringLiteral("model is not specified"), 400};
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(http.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return {std::nullopt, QStringLiteral("Invalid JSON payload received."), 400};
    const QJsonObject root = document.object();
    const QJsonValue contents = root.value(QLatin1String("contents"));
    if (!contents.isArray())
        return {std::nullopt, QStringLiteral("* GenerateContentRequest.contents: contents is not specified"), 400};

    ChatRequest request;
    request.model = call->model;
    request.stream = call->method == "streamGenerateContent";
    request.jsonArrayStream = request.stream && http.query.queryItemValue(QStringLiteral("alt")) != u"sse";
    request.maxTokens = qMax(0, root.value(QLatin1String("generationConfig")).toObject()
                                    .value(QLatin1String("maxOutputTokens")).toInt(0));
    qsizetype characters = partsCharacters(root.value(QLatin1String("systemInstruction")).toObject());
    const QJsonArray turns = contents.toArray();
    for (const QJsonValue &content : turns)
        characters += partsCharacters(content.toObject());
    request.promptTokens = int(qMax<qsizetype>(1, characters / 4));
    request.firstToolName = firstFunctionName(root.value(QLatin1String("tools")).toArray());
    request.lastTurnIsUserText = !turns.isEmpty() && isUserText(turns.last().toObject());
    return {std::move(request), {}};
}

QByteArray GeminiFormat::completionBody(const ChatReply &reply) const
{
    QByteArray out = candidateHead(reply.hasToolCall() ? functionCallParts(reply) : textParts(reply.text()),
                                   finishReason(reply));
    appendUsage(out, reply.promptTokens, reply.completionTokens());
    out.append(',');
    appendTail(out, reply);
    return out;
}

QByteArray GeminiFormat::emptyCompletionBody(const ChatReply &reply) const
{
    QByteArray out("{\"candidates\":[],");
    appendUsage(out, reply.promptTokens, 0);
    out.append(',');
    appendTail(out, reply);
    return out;
}

QByteArrayView GeminiFormat::errorStatus(int status)
{
    switch (status) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 402: return "RESOURCE_EXHAUSTED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 501: return "UNIMPLEMENTED";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
    }
}

QByteArray GeminiFormat::errorBody(int status, const QString &message) const
{
    QByteArray out("{\"error\":{\"code\":");
    out.append(QByteArray::number(status)).append(",\"message\":");
    appendJsonString(out, message);
    out.append(",\"status\":\"").append(errorStatus(status)).append("\"}}");
    return out;
}

QByteArray GeminiFormat::modelList(const QStringList &models, const QString &) const
{
    QByteArray out("{\"models\":[");
    for (qsizetype i = 0; i < models.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append("{\"name\":");
        appendJsonString(out, QStringLiteral("models/") + models.at(i));
        out.append(",\"version\":\"001\",\"displayName\":");
        appendJsonString(out, models.at(i));
        out.append(",\"inputTokenLimit\":1048576,\"outputTokenLimit\":8192,\"supportedGenerationMethods\":"
                   "[\"generateContent\",\"streamGenerateContent\",\"countTokens\",\"embedContent\","
                   "\"batchEmbedContents\"]}");
    }
    out.append("]}");
    return out;
}

QByteArray GeminiFormat::streamContentType(const ChatReply &reply) const
{
    return reply.jsonArrayStream ? QByteArrayLiteral("application/json") : QByteArrayLiteral("text/event-stream");
}

QByteArray GeminiFormat::streamStart(const ChatReply &reply) const
{
    return reply.jsonArrayStream ? QByteArrayLiteral("[") : QByteArray();
}

QByteArray GeminiFormat::streamContent(const ChatReply &reply, qsizetype index) const
{
    QByteArray json = candidateHead(textParts(reply.delta(index)), {});
    appendTail(json, reply);
    return element(reply, json, index == 0);
}

QByteArray GeminiFormat::streamEnd(const ChatReply &reply) const
{
    // The last chunk carries the finish reason and the usage (and the function call, if any).
    QByteArray json = candidateHead(reply.hasToolCall() ? functionCallParts(reply) : textParts(""), finishReason(reply));
    appendUsage(json, reply.promptTokens, reply.completionTokens());
    json.append(',');
    appendTail(json, reply);
    return element(reply, json, reply.words.empty()) + closeArray(reply);
}

QByteArray GeminiFormat::streamEmpty(const ChatReply &reply) const
{
    QByteArray json("{");
    appendUsage(json, reply.promptTokens, 0);
    json.append(',');
    appendTail(json, reply);
    return element(reply, json, true) + closeArray(reply);
}

QByteArray GeminiFormat::malformedEvent(const ChatReply &reply) const
{
    return reply.jsonArrayStream ? QByteArrayLiteral("{not json\n") : QByteArrayLiteral("data: {not json\n\n");
}

QByteArray GeminiFormat::streamError(const ChatReply &reply, qsizetype sentWords, int status,
                                     const QString &message) const
{
    return element(reply, errorBody(status, message), sentWords == 0) + closeArray(reply);
}

} // namespace sy::sim
