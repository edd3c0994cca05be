#include "api/openai/OpenAiRequestParser.h"

#include "api/RequestFaults.h"
#include "api/openai/OpenAiWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace sy::api::openai {

namespace {

// The first error met; parsing stops there (api/RequestFaults.h).
using namespace parsing;

QString path(const QString &prefix, const QString &member)
{
    return prefix + QLatin1Char('.') + member;
}

QString path(const QString &prefix, qsizetype index)
{
    return prefix + QLatin1Char('.') + QString::number(index);
}

std::optional<double> optionalNumber(const QJsonObject &body, const char *key)
{
    const QJsonValue v = body.value(QLatin1String(key));
    if (absent(v))
        return std::nullopt;
    if (!v.isDouble())
        invalid(QLatin1String(key), QStringLiteral("'%1' must be a number.").arg(QLatin1String(key)));
    return v.toDouble();
}

std::optional<qint64> optionalCount(const QJsonObject &body, const char *key)
{
    const std::optional<double> n = optionalNumber(body, key);
    if (!n)
        return std::nullopt;
    if (*n < 0 || std::floor(*n) != *n)
        invalid(QLatin1String(key), QStringLiteral("'%1' must be a non-negative integer.").arg(QLatin1String(key)));
    return qint64(*n);
}

QString optionalString(const QJsonObject &object, const char *key, const QString &param)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (absent(v))
        return {};
    if (!v.isString())
        invalid(param, QStringLiteral("'%1' must be a string.").arg(param));
    return v.toString();
}

// One element of a `content` array. `allowImages`: user messages only.
ContentPart contentPart(const QJsonValue &value, const QString &at, bool allowImages)
{
    if (!value.isObject())
        invalid(at, QStringLiteral("'%1' must be an object.").arg(at));
    const QJsonObject part = value.toObject();
    const QString type = part.value("type").toString();
    const QString typeAt = path(at, QStringLiteral("type"));
    if (type == QLatin1String("text") || type == QLatin1String("refusal")) {
        const QString key = type;   // a refusal part carries its text under "refusal"
        const QJsonValue text = part.value(key);
        if (!text.isString())
            invalid(path(at, key), QStringLiteral("'%1' must be a string.").arg(path(at, key)));
        return ContentPart::textPart(text.toString());
    }
    if (type == QLatin1String("image_url") && allowImages) {
        const QJsonValue image = part.value("image_url");
        // {"url": ...} per the API; a bare string is accepted as older clients send it.
        const QJsonValue url = image.isObject() ? image.toObject().value("url") : image;
        if (!url.isString() || url.toString().isEmpty())
            invalid(path(at, QStringLiteral("image_url.url")), QStringLiteral("'%1.image_url.url' must be a URL.").arg(at));
        ContentPart out;
        if (!setImageFromUrl(url.toString(), out))
            invalid(path(at, QStringLiteral("image_url.url")),
                    QStringLiteral("'%1.image_url.url' is a data: URL that is not base64.").arg(at));
        return out;
    }
    if (type == QLatin1String("image_url"))
        unsupported(typeAt, QStringLiteral("Images are taken only in user messages, not at '%1'.").arg(typeAt));
    if (type == QLatin1String("input_audio") || type == QLatin1String("file"))
        unsupported(typeAt, QStringLiteral("Content of type '%1' at '%2' cannot be sent to this model's provider.").arg(type, typeAt));
    unsupported(typeAt, QStringLiteral("Unknown content type '%1' at '%2'.").arg(type, typeAt));
}

// `content` as parts: a string is one text part (none when empty), null is no parts.
QList<ContentPart> contentParts(const QJsonObject &message, const QString &at, bool allowImages)
{
    const QJsonValue content = message.value("content");
    const QString contentAt = path(at, QStringLiteral("content"));
    if (absent(content))
        return {};
    if (content.isString())
        return content.toString().isEmpty() ? QList<ContentPart>{} : QList<ContentPart>{ContentPart::textPart(content.toString())};
    if (!content.isArray())
        invalid(contentAt, QStringLiteral("'%1' must be a string or an array of parts.").arg(contentAt));
    QList<ContentPart> parts;
    const QJsonArray array = content.toArray();
    for (qsizetype i = 0; i < array.size(); ++i)
        parts.append(contentPart(array.at(i), path(contentAt, i), allowImages));
    return parts;
}

QList<ContentPart> toolCalls(const QJsonObject &message, const QString &at)
{
    const QJsonValue calls = message.value("tool_calls");
    const QString callsAt = path(at, QStringLiteral("tool_calls"));
    if (absent(calls))
        return {};
    if (!calls.isArray())
        invalid(callsAt, QStringLiteral("'%1' must be an array.").arg(callsAt));
    QList<ContentPart> parts;
    const QJsonArray array = calls.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString callAt = path(callsAt, i);
        const QJsonObject call = array.at(i).toObject();
        const QString type = call.value("type").toString(QStringLiteral("function"));
        if (type != QLatin1String("function"))
            unsupported(path(callAt, QStringLiteral("type")), QStringLiteral("Tool calls of type '%1' cannot be translated.").arg(type));
        const QJsonObject function = call.value("function").toObject();
        ContentPart part;
        part.kind = ContentPart::Kind::ToolCall;
        part.toolCallId = optionalString(call, "id", path(callAt, QStringLiteral("id")));
        part.toolName = optionalString(function, "name", path(callAt, QStringLiteral("function.name")));
        if (part.toolCallId.isEmpty() || part.toolName.isEmpty())
            invalid(callAt, QStringLiteral("'%1' needs an id and a function name.").arg(callAt));
        const QJsonValue arguments = function.value("arguments");
        if (arguments.isString())
            part.argumentsJson = arguments.toString().toUtf8();
        else if (arguments.isObject())   // some clients send the object itself
            part.argumentsJson = QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact);
        if (part.argumentsJson.trimmed().isEmpty())
            part.argumentsJson = "{}";
        parts.append(part);
    }
    return parts;
}

// A tool message as the ToolResult part it becomes.
ContentPart toolResult(const QJsonObject &message, const QString &at)
{
    ContentPart result;
    result.kind = ContentPart::Kind::ToolResult;
    result.toolCallId = optionalString(message, "tool_call_id", path(at, QStringLiteral("tool_call_id")));
    if (result.toolCallId.isEmpty())
        invalid(path(at, QStringLiteral("tool_call_id")), QStringLiteral("'%1.tool_call_id' is required.").arg(at));
    const QJsonValue content = message.value("content");
    if (content.isArray())
        result.resultParts = contentParts(message, at, false);   // text parts only, as OpenAI allows
    else if (content.isString())
        result.text = content.toString();
    else if (!absent(content))
        invalid(path(at, QStringLiteral("content")), QStringLiteral("'%1.content' must be a string or an array of parts.").arg(at));
    return result;
}

void parseMessages(const QJsonObject &body, CanonicalRequest &out)
{
    const QJsonValue messages = body.value("messages");
    if (!messages.isArray() || messages.toArray().isEmpty())
        invalid(QStringLiteral("messages"), QStringLiteral("'messages' must be a non-empty array."));
    const QJsonArray array = messages.toArray();
    bool lastWasTool = false;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = path(QStringLiteral("messages"), i);
        if (!array.at(i).isObject())
            invalid(at, QStringLiteral("'%1' must be an object.").arg(at));
        const QJsonObject message = array.at(i).toObject();
        const QString role = message.value("role").toString();
        const bool isTool = role == QLatin1String("tool");
        if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            // Other formats have one system prompt: a later system message joins it, in order.
            out.system.append(contentParts(message, at, false));
        } else if (role == QLatin1String("user")) {
            out.messages.append(Message{Role::User, contentParts(message, at, true)});
        } else if (role == QLatin1String("assistant")) {
            if (message.contains("function_call") && !absent(message.value("function_call")))
                unsupported(path(at, QStringLiteral("function_call")),
                            QStringLiteral("The legacy 'function_call' cannot be translated; use 'tool_calls'."));
            Message turn{Role::Assistant, {}};
            const QString reasoning = optionalString(message, "reasoning_content", path(at, QStringLiteral("reasoning_content")));
            if (!reasoning.isEmpty()) {
                ContentPart thinking = ContentPart::textPart(reasoning);
                thinking.kind = ContentPart::Kind::Thinking;
                turn.parts.append(thinking);
            }
            turn.parts.append(contentParts(message, at, false));
            const QString refusal = optionalString(message, "refusal", path(at, QStringLiteral("refusal")));
            if (!refusal.isEmpty())
                turn.parts.append(ContentPart::textPart(refusal));
            turn.parts.append(toolCalls(message, at));
            out.messages.append(turn);
        } else if (isTool) {
            if (!lastWasTool)
                out.messages.append(Message{Role::User, {}});
            out.messages.last().parts.append(toolResult(message, at));
        } else if (role == QLatin1String("function")) {
            unsupported(path(at, QStringLiteral("role")),
                        QStringLiteral("The legacy 'function' role cannot be translated; use 'tool'."));
        } else {
            invalid(path(at, QStringLiteral("role")), QStringLiteral("Unknown role '%1' at '%2.role'.").arg(role, at));
        }
        lastWasTool = isTool;
    }
}

void parseTools(const QJsonObject &body, CanonicalRequest &out)
{
    const QJsonValue tools = body.value("tools");
    if (!absent(tools)) {
        if (!tools.isArray())
            invalid(QStringLiteral("tools"), QStringLiteral("'tools' must be an array."));
        const QJsonArray array = tools.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString at = path(QStringLiteral("tools"), i);
            const QJsonObject tool = array.at(i).toObject();
            const QString type = tool.value("type").toString();
            if (type != QLatin1String("function"))
                unsupported(path(at, QStringLiteral("type")), QStringLiteral("Tools of type '%1' cannot be translated.").arg(type));
            const QJsonObject function = tool.value("function").toObject();
            Tool t;
            t.name = optionalString(function, "name", path(at, QStringLiteral("function.name")));
            if (t.name.isEmpty())
                invalid(path(at, QStringLiteral("function.name")), QStringLiteral("'%1.function.name' is required.").arg(at));
            t.description = optionalString(function, "description", path(at, QStringLiteral("function.description")));
            const QJsonValue parameters = function.value("parameters");
            if (!absent(parameters) && !parameters.isObject())
                invalid(path(at, QStringLiteral("function.parameters")), QStringLiteral("'%1.function.parameters' must be an object.").arg(at));
            t.inputSchema = parameters.toObject();
            out.tools.append(t);
        }
    }

    const QJsonValue choice = body.value("tool_choice");
    if (choice.isString()) {
        const QString mode = choice.toString();
        if (mode == QLatin1String("auto"))
            out.toolChoice.mode = ToolChoice::Mode::Auto;
        else if (mode == QLatin1String("none"))
            out.toolChoice.mode = ToolChoice::Mode::None;
        else if (mode == QLatin1String("required"))
            out.toolChoice.mode = ToolChoice::Mode::Required;
        else
            invalid(QStringLiteral("tool_choice"), QStringLiteral("Unknown 'tool_choice' '%1'.").arg(mode));
    } else if (choice.isObject()) {
        const QString name = choice.toObject().value("function").toObject().value("name").toString();
        if (choice.toObject().value("type").toString() != QLatin1String("function") || name.isEmpty())
            invalid(QStringLiteral("tool_choice"), QStringLiteral("'tool_choice' must name a function."));
        out.toolChoice.mode = ToolChoice::Mode::Named;
        out.toolChoice.name = name;
    } else if (!absent(choice)) {
        invalid(QStringLiteral("tool_choice"), QStringLiteral("'tool_choice' must be a string or an object."));
    }

    const QJsonValue parallel = body.value("parallel_tool_calls");
    if (!absent(parallel) && !parallel.isBool())
        invalid(QStringLiteral("parallel_tool_calls"), QStringLiteral("'parallel_tool_calls' must be true or false."));
    out.toolChoice.disableParallel = parallel.isBool() && !parallel.toBool();
}

void parseSampling(const QJsonObject &body, CanonicalRequest &out)
{
    out.temperature = optionalNumber(body, "temperature");
    out.topP = optionalNumber(body, "top_p");
    out.topK = optionalCount(body, "top_k");   // not OpenAI's, but OpenAI-compatible servers take it
    const std::optional<qint64> maxCompletion = optionalCount(body, "max_completion_tokens");
    const std::optional<qint64> maxTokens = optionalCount(body, "max_tokens");
    out.maxTokens = maxCompletion ? maxCompletion : maxTokens;

    const QJsonValue stop = body.value("stop");
    if (stop.isString()) {
        out.stop = QStringList{stop.toString()};
    } else if (stop.isArray()) {
        for (const QJsonValue &s : stop.toArray()) {
            if (!s.isString())
                invalid(QStringLiteral("stop"), QStringLiteral("'stop' must be a string or an array of strings."));
            out.stop.append(s.toString());
        }
    } else if (!absent(stop)) {
        invalid(QStringLiteral("stop"), QStringLiteral("'stop' must be a string or an array of strings."));
    }

    const std::optional<qint64> n = optionalCount(body, "n");
    if (n && *n > 1)
        unsupported(QStringLiteral("n"), QStringLiteral("'n' greater than 1 cannot be served by this model's provider."));
    const QJsonValue modalities = body.value("modalities");
    if (modalities.toArray().contains(QJsonValue(QStringLiteral("audio"))) || !absent(body.value("audio")))
        unsupported(QStringLiteral("modalities"), QStringLiteral("Audio output cannot be served by this model's provider."));
}

} // namespace

std::variant<CanonicalRequest, ApiError> parseChatRequest(const QJsonObject &body)
{
    CanonicalRequest out;
    try {
        out.model = optionalString(body, "model", QStringLiteral("model"));
        parseMessages(body, out);
        parseTools(body, out);
        parseSampling(body, out);

        const QJsonValue stream = body.value("stream");
        if (!absent(stream) && !stream.isBool())
            invalid(QStringLiteral("stream"), QStringLiteral("'stream' must be true or false."));
        out.stream = stream.toBool(false);

        const QJsonValue format = body.value("response_format");
        if (!absent(format) && !format.isObject())
            invalid(QStringLiteral("response_format"), QStringLiteral("'response_format' must be an object."));
        out.responseFormat = format.toObject();

        const QString effort = optionalString(body, "reasoning_effort", QStringLiteral("reasoning_effort"));
        if (effort == QLatin1String("minimal") || effort == QLatin1String("low"))
            out.reasoning = Reasoning{QStringLiteral("low"), std::nullopt};
        else if (effort == QLatin1String("medium") || effort == QLatin1String("high"))
            out.reasoning = Reasoning{effort, std::nullopt};
        else if (!effort.isEmpty() && effort != QLatin1String("none"))
            invalid(QStringLiteral("reasoning_effort"), QStringLiteral("Unknown 'reasoning_effort' '%1'.").arg(effort));

        out.user = optionalString(body, "user", QStringLiteral("user"));
    } catch (const parsing::Fault &fault) {
        return fault.error;
    }
    return out;
}

} // namespace sy::api::openai
