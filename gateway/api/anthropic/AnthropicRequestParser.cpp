#include "api/anthropic/AnthropicRequestParser.h"

#include "api/RequestFaults.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <cmath>

namespace sy::api::anthropic {

namespace {

// Parsing stops at the first fault (api/RequestFaults.h).
using namespace parsing;

QString at(const QString &path, const char *key)
{
    return path.isEmpty() ? QString::fromLatin1(key) : path + QLatin1Char('.') + QLatin1String(key);
}
QString at(const QString &path, qsizetype index) { return path + QLatin1Char('.') + QString::number(index); }

QString requireString(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString())
        fail(at(path, key), v.isUndefined() ? QStringLiteral("Field required") : QStringLiteral("must be a string"));
    return v.toString();
}

QString optionalString(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return {};
    if (!v.isString())
        fail(at(path, key), QStringLiteral("must be a string"));
    return v.toString();
}

bool optionalBool(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return false;
    if (!v.isBool())
        fail(at(path, key), QStringLiteral("must be a boolean"));
    return v.toBool();
}

// Top-level only (temperature, top_p).
std::optional<double> optionalNumber(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    if (!v.isDouble())
        fail(QLatin1String(key), QStringLiteral("must be a number"));
    return v.toDouble();
}

std::optional<qint64> optionalInteger(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    const double d = v.toDouble();
    if (!v.isDouble() || std::floor(d) != d)
        fail(at(path, key), QStringLiteral("must be an integer"));
    return v.toInteger();
}

QJsonObject optionalObject(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull())
        return {};
    if (!v.isObject())
        fail(at(path, key), QStringLiteral("must be an object"));
    return v.toObject();
}

QJsonArray requireArray(const QJsonValue &v, const QString &path)
{
    if (!v.isArray())
        fail(path, v.isUndefined() ? QStringLiteral("Field required") : QStringLiteral("must be an array"));
    return v.toArray();
}

QJsonObject requireObject(const QJsonValue &v, const QString &path)
{
    if (!v.isObject())
        fail(path, QStringLiteral("must be an object"));
    return v.toObject();
}

ContentPart textBlock(const QJsonObject &block, const QString &path)
{
    ContentPart part = ContentPart::textPart(requireString(block, "text", path));
    part.cacheControl = optionalObject(block, "cache_control", path);
    return part;
}

ContentPart imageBlock(const QJsonObject &block, const QString &path)
{
    const QString sourcePath = at(path, "source");
    const QJsonObject source = requireObject(block.value("source"), sourcePath);
    const QString type = requireString(source, "type", sourcePath);
    ContentPart part;
    part.kind = ContentPart::Kind::Image;
    if (type == QLatin1String("base64")) {
        part.mediaType = requireString(source, "media_type", sourcePath);
        part.base64Data = requireString(source, "data", sourcePath).toLatin1();
    } else if (type == QLatin1String("url")) {
        part.imageUrl = requireString(source, "url", sourcePath);
    } else {
        fail(at(sourcePath, "type"), QStringLiteral("unsupported image source type '%1'").arg(type));
    }
    part.cacheControl = optionalObject(block, "cache_control", path);
    return part;
}

class Parser {
public:
    CanonicalRequest parse(const QJsonObject &body);

private:
    void parseSystem(const QJsonValue &system);
    Message parseMessage(const QJsonValue &value, const QString &path);
    ContentPart parseBlock(const QJsonValue &value, Role role, const QString &path);
    ContentPart parseToolResult(const QJsonObject &block, const QString &path);
    void parseTools(const QJsonValue &tools);
    void parseToolChoice(const QJsonObject &choice);
    void parseThinking(const QJsonObject &thinking);

    CanonicalRequest m_request;
    QSet<QString> m_toolUseIds;   // tool_use ids seen so far: a tool_result must answer one
};

CanonicalRequest Parser::parse(const QJsonObject &body)
{
    // `model` may be absent when `models` names the chain (SPEC §3); routing checks that.
    m_request.model = optionalString(body, "model", {});
    m_request.maxTokens = optionalInteger(body, "max_tokens", {});
    if (!m_request.maxTokens)
        fail(QStringLiteral("max_tokens"), QStringLiteral("Field required"));
    if (*m_request.maxTokens < 1)
        fail(QStringLiteral("max_tokens"), QStringLiteral("must be at least 1"));

    parseSystem(body.value("system"));

    const QJsonArray messages = requireArray(body.value("messages"), QStringLiteral("messages"));
    if (messages.isEmpty())
        fail(QStringLiteral("messages"), QStringLiteral("at least one message is required"));
    for (qsizetype i = 0; i < messages.size(); ++i)
        m_request.messages.append(parseMessage(messages.at(i), at(QStringLiteral("messages"), i)));

    parseTools(body.value("tools"));
    parseToolChoice(optionalObject(body, "tool_choice", {}));

    m_request.temperature = optionalNumber(body, "temperature");
    m_request.topP = optionalNumber(body, "top_p");
    m_request.topK = optionalInteger(body, "top_k", {});

    const QJsonValue stops = body.value("stop_sequences");
    if (!stops.isUndefined() && !stops.isNull()) {
        const QJsonArray list = requireArray(stops, QStringLiteral("stop_sequences"));
        for (qsizetype i = 0; i < list.size(); ++i) {
            if (!list.at(i).isString())
                fail(at(QStringLiteral("stop_sequences"), i), QStringLiteral("must be a string"));
            m_request.stop.append(list.at(i).toString());
        }
    }
    m_request.stream = optionalBool(body, "stream", {});
    parseThinking(optionalObject(body, "thinking", {}));
    // Only user_id has a canonical place; other metadata stays with a same-format pass-through.
    const QJsonObject metadata = optionalObject(body, "metadata", {});
    m_request.user = optionalString(metadata, "user_id", QStringLiteral("metadata"));
    return m_request;
}

void Parser::parseSystem(const QJsonValue &system)
{
    if (system.isUndefined() || system.isNull())
        return;
    if (system.isString()) {
        if (!system.toString().isEmpty())
            m_request.system.append(ContentPart::textPart(system.toString()));
        return;
    }
    const QJsonArray blocks = requireArray(system, QStringLiteral("system"));
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        const QString path = at(QStringLiteral("system"), i);
        const QJsonObject block = requireObject(blocks.at(i), path);
        const QString type = requireString(block, "type", path);
        if (type != QLatin1String("text"))
            fail(at(path, "type"), QStringLiteral("system blocks must be of type 'text', not '%1'").arg(type));
        m_request.system.append(textBlock(block, path));
    }
}

Message Parser::parseMessage(const QJsonValue &value, const QString &path)
{
    const QJsonObject object = requireObject(value, path);
    const QString role = requireString(object, "role", path);
    Message message;
    if (role == QLatin1String("user"))
        message.role = Role::User;
    else if (role == QLatin1String("assistant"))
        message.role = Role::Assistant;
    else
        fail(at(path, "role"), QStringLiteral("role must be 'user' or 'assistant', not '%1'").arg(role));

    const QString contentPath = at(path, "content");
    const QJsonValue content = object.value("content");
    if (content.isString()) {
        message.parts.append(ContentPart::textPart(content.toString()));
        return message;
    }
    if (!content.isArray())
        fail(contentPath, content.isUndefined() ? QStringLiteral("Field required")
                                                : QStringLiteral("must be a string or an array of content blocks"));
    const QJsonArray blocks = content.toArray();
    for (qsizetype i = 0; i < blocks.size(); ++i)
        message.parts.append(parseBlock(blocks.at(i), message.role, at(contentPath, i)));
    return message;
}

ContentPart Parser::parseBlock(const QJsonValue &value, Role role, const QString &path)
{
    const QJsonObject block = requireObject(value, path);
    const QString type = requireString(block, "type", path);
    if (type == QLatin1String("text"))
        return textBlock(block, path);
    if (type == QLatin1String("image"))
        return imageBlock(block, path);
    if (type == QLatin1String("tool_use")) {
        if (role != Role::Assistant)
            fail(at(path, "type"), QStringLiteral("tool_use blocks belong to assistant messages"));
        ContentPart part;
        part.kind = ContentPart::Kind::ToolCall;
        part.toolCallId = requireString(block, "id", path);
        part.toolName = requireString(block, "name", path);
        const QJsonValue input = block.value("input");
        if (!input.isObject())
            fail(at(path, "input"), input.isUndefined() ? QStringLiteral("Field required") : QStringLiteral("must be an object"));
        part.argumentsJson = QJsonDocument(input.toObject()).toJson(QJsonDocument::Compact);
        part.cacheControl = optionalObject(block, "cache_control", path);
        m_toolUseIds.insert(part.toolCallId);
        return part;
    }
    if (type == QLatin1String("tool_result")) {
        if (role != Role::User)
            fail(at(path, "type"), QStringLiteral("tool_result blocks belong to user messages"));
        return parseToolResult(block, path);
    }
    if (type == QLatin1String("thinking") || type == QLatin1String("redacted_thinking")) {
        if (role != Role::Assistant)
            fail(at(path, "type"), QStringLiteral("%1 blocks belong to assistant messages").arg(type));
        ContentPart part;
        part.kind = ContentPart::Kind::Thinking;
        if (type == QLatin1String("thinking")) {
            part.text = requireString(block, "thinking", path);
            part.signature = optionalString(block, "signature", path);
        } else {
            part.redacted = true;
            part.signature = requireString(block, "data", path);
        }
        return part;
    }
    fail(at(path, "type"), QStringLiteral("unsupported content block type '%1'").arg(type));
}

ContentPart Parser::parseToolResult(const QJsonObject &block, const QString &path)
{
    ContentPart part;
    part.kind = ContentPart::Kind::ToolResult;
    part.toolCallId = requireString(block, "tool_use_id", path);
    if (!m_toolUseIds.contains(part.toolCallId))
        fail(at(path, "tool_use_id"),
             QStringLiteral("no earlier tool_use block has the id '%1'").arg(part.toolCallId));
    part.isError = optionalBool(block, "is_error", path);
    part.cacheControl = optionalObject(block, "cache_control", path);
    const QString contentPath = at(path, "content");
    const QJsonValue content = block.value("content");
    if (content.isUndefined() || content.isNull() || content.isString()) {
        part.text = content.toString();
        return part;
    }
    const QJsonArray blocks = requireArray(content, contentPath);
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        const QString innerPath = at(contentPath, i);
        const QJsonObject inner = requireObject(blocks.at(i), innerPath);
        const QString type = requireString(inner, "type", innerPath);
        if (type == QLatin1String("text"))
            part.resultParts.append(textBlock(inner, innerPath));
        else if (type == QLatin1String("image"))
            part.resultParts.append(imageBlock(inner, innerPath));
        else
            fail(at(innerPath, "type"), QStringLiteral("unsupported tool_result content type '%1'").arg(type));
    }
    // All text: keep it as plain text too, so formats without rich tool results carry it.
    bool allText = true;
    QStringList texts;
    for (const ContentPart &inner : part.resultParts) {
        allText = allText && inner.kind == ContentPart::Kind::Text;
        texts.append(inner.text);
    }
    if (allText)
        part.text = texts.join(QLatin1Char('\n'));
    return part;
}

void Parser::parseTools(const QJsonValue &tools)
{
    if (tools.isUndefined() || tools.isNull())
        return;
    const QJsonArray list = requireArray(tools, QStringLiteral("tools"));
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString path = at(QStringLiteral("tools"), i);
        const QJsonObject object = requireObject(list.at(i), path);
        const QString type = optionalString(object, "type", path);
        // Server tools (web_search_…, code_execution_…) run at Anthropic: nothing to translate,
        // so only a same-format pass-through carries them (docs/formats-anthropic.md).
        if (!type.isEmpty() && type != QLatin1String("custom"))
            continue;
        Tool tool;
        tool.name = requireString(object, "name", path);
        tool.description = optionalString(object, "description", path);
        const QJsonValue schema = object.value("input_schema");
        if (!schema.isObject())
            fail(at(path, "input_schema"), schema.isUndefined() ? QStringLiteral("Field required") : QStringLiteral("must be an object"));
        tool.inputSchema = schema.toObject();
        tool.cacheControl = optionalObject(object, "cache_control", path);
        m_request.tools.append(tool);
    }
}

void Parser::parseToolChoice(const QJsonObject &choice)
{
    if (choice.isEmpty())
        return;
    const QString path = QStringLiteral("tool_choice");
    const QString type = requireString(choice, "type", path);
    ToolChoice &out = m_request.toolChoice;
    if (type == QLatin1String("auto")) {
        out.mode = ToolChoice::Mode::Auto;
    } else if (type == QLatin1String("any")) {
        out.mode = ToolChoice::Mode::Required;
    } else if (type == QLatin1String("none")) {
        out.mode = ToolChoice::Mode::None;
    } else if (type == QLatin1String("tool")) {
        out.mode = ToolChoice::Mode::Named;
        out.name = requireString(choice, "name", path);
    } else {
        fail(at(path, "type"), QStringLiteral("tool_choice type must be auto, any, tool or none, not '%1'").arg(type));
    }
    out.disableParallel = optionalBool(choice, "disable_parallel_tool_use", path);
}

void Parser::parseThinking(const QJsonObject &thinking)
{
    if (thinking.isEmpty())
        return;
    const QString path = QStringLiteral("thinking");
    const QString type = requireString(thinking, "type", path);
    if (type == QLatin1String("disabled"))
        return;
    if (type != QLatin1String("enabled"))
        fail(at(path, "type"), QStringLiteral("thinking type must be enabled or disabled, not '%1'").arg(type));
    Reasoning reasoning;
    reasoning.budgetTokens = optionalInteger(thinking, "budget_tokens", path);
    if (!reasoning.budgetTokens)
        fail(at(path, "budget_tokens"), QStringLiteral("Field required"));
    m_request.reasoning = reasoning;
}

} // namespace

std::variant<CanonicalRequest, ApiError> parseRequest(const QJsonObject &body)
{
    try {
        return Parser().parse(body);
    } catch (const parsing::Fault &fault) {
        return fault.error;
    }
}

} // namespace sy::api::anthropic
