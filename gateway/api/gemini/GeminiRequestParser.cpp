#include "api/gemini/GeminiRequestParser.h"

#include "api/RequestFaults.h"
#include "api/gemini/GeminiWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace sy::api::gemini {

namespace {

// Parsing stops at the first fault (api/RequestFaults.h).
using namespace parsing;

QString at(const QString &path, const char *key)
{
    return path.isEmpty() ? QString::fromLatin1(key) : path + QLatin1Char('.') + QLatin1String(key);
}
QString at(const QString &path, qsizetype index) { return path + QLatin1Char('[') + QString::number(index) + QLatin1Char(']'); }

QString optionalString(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (absent(v))
        return {};
    if (!v.isString())
        fail(at(path, key), QStringLiteral("must be a string"));
    return v.toString();
}

QString requireString(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (!v.isString())
        fail(at(path, key), absent(v) ? QStringLiteral("is required") : QStringLiteral("must be a string"));
    return v.toString();
}

std::optional<double> optionalNumber(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (absent(v))
        return std::nullopt;
    if (!v.isDouble())
        fail(at(path, key), QStringLiteral("must be a number"));
    return v.toDouble();
}

std::optional<qint64> optionalInteger(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (absent(v))
        return std::nullopt;
    const double d = v.toDouble();
    if (!v.isDouble() || std::floor(d) != d)
        fail(at(path, key), QStringLiteral("must be an integer"));
    return v.toInteger();
}

QJsonObject optionalObject(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (absent(v))
        return {};
    if (!v.isObject())
        fail(at(path, key), QStringLiteral("must be an object"));
    return v.toObject();
}

QJsonArray optionalArray(const QJsonObject &o, const char *key, const QString &path)
{
    const QJsonValue v = member(o, key);
    if (absent(v))
        return {};
    if (!v.isArray())
        fail(at(path, key), QStringLiteral("must be an array"));
    return v.toArray();
}

QJsonObject requireObject(const QJsonValue &v, const QString &path)
{
    if (!v.isObject())
        fail(path, absent(v) ? QStringLiteral("is required") : QStringLiteral("must be an object"));
    return v.toObject();
}

// The members that say what a part is; exactly one of them makes a part.
constexpr const char *kPartKinds[] = {"text", "inlineData", "fileData", "functionCall", "functionResponse"};

// Part members the gateway knows but that say nothing of the part's kind.
bool isPartModifier(const QString &key)
{
    for (const char *known : {"thought", "thoughtSignature", "thought_signature", "videoMetadata", "video_metadata",
                              "partMetadata", "part_metadata", "mediaResolution", "media_resolution"}) {
        if (key == QLatin1String(known))
            return true;
    }
    return false;
}

// A functionCall of the request, waiting for its functionResponse.
struct OpenCall {
    QString id;
    QString name;
    bool answered = false;
};

class Parser {
public:
    CanonicalRequest parse(const QJsonObject &body);

private:
    Message parseContent(const QJsonValue &value, const QString &path);
    ContentPart parsePart(const QJsonValue &value, Role role, const QString &path);
    ContentPart functionCall(const QJsonObject &call, const QString &path);
    ContentPart functionResponse(const QJsonObject &response, const QString &path);
    void parseSystem(const QJsonValue &system);
    void parseGenerationConfig(const QJsonObject &config);
    void parseTools(const QJsonArray &tools);
    void parseToolConfig(const QJsonObject &config);

    CanonicalRequest m_request;
    QList<OpenCall> m_calls;      // every functionCall so far, in order
};

CanonicalRequest Parser::parse(const QJsonObject &body)
{
    const QString contentsPath = QStringLiteral("contents");
    const QJsonValue contents = member(body, "contents");
    if (!contents.isArray())
        fail(contentsPath, absent(contents) ? QStringLiteral("is required") : QStringLiteral("must be an array"));
    const QJsonArray turns = contents.toArray();
    if (turns.isEmpty())
        fail(contentsPath, QStringLiteral("at least one content is required"));
    for (qsizetype i = 0; i < turns.size(); ++i)
        m_request.messages.append(parseContent(turns.at(i), at(contentsPath, i)));

    parseSystem(member(body, "systemInstruction"));
    parseGenerationConfig(optionalObject(body, "generationConfig", {}));
    parseTools(optionalArray(body, "tools", {}));
    parseToolConfig(optionalObject(body, "toolConfig", {}));
    // safetySettings, cachedContent, labels: no canonical place; a gemini channel gets them through
    // the pass-through (docs/formats-gemini.md).
    return m_request;
}

Message Parser::parseContent(const QJsonValue &value, const QString &path)
{
    const QJsonObject content = requireObject(value, path);
    Message message;
    // A single-turn request may leave the role out; "function" is the older name of the turn that
    // carries function responses.
    const QString role = optionalString(content, "role", path);
    if (role.isEmpty() || role == QLatin1String("user") || role == QLatin1String("function"))
        message.role = Role::User;
    else if (role == QLatin1String("model"))
        message.role = Role::Assistant;
    else
        fail(at(path, "role"), QStringLiteral("role must be 'user' or 'model', not '%1'").arg(role));

    const QString partsPath = at(path, "parts");
    const QJsonValue parts = member(content, "parts");
    if (!parts.isArray())
        fail(partsPath, absent(parts) ? QStringLiteral("is required") : QStringLiteral("must be an array"));
    const QJsonArray list = parts.toArray();
    if (list.isEmpty())
        fail(partsPath, QStringLiteral("at least one part is required"));
    for (qsizetype i = 0; i < list.size(); ++i)
        message.parts.append(parsePart(list.at(i), message.role, at(partsPath, i)));
    return message;
}

ContentPart Parser::parsePart(const QJsonValue &value, Role role, const QString &path)
{
    const QJsonObject part = requireObject(value, path);
    const char *kind = nullptr;
    for (const char *candidate : kPartKinds) {
        if (absent(member(part, candidate)))
            continue;
        if (kind)
            fail(path, QStringLiteral("a part holds one of text, inlineData, fileData, functionCall, functionResponse; "
                                      "this one has both %1 and %2").arg(QLatin1String(kind), QLatin1String(candidate)));
        kind = candidate;
    }
    if (!kind) {
        QString unknown;
        for (auto it = part.constBegin(); it != part.constEnd() && unknown.isEmpty(); ++it) {
            if (!isPartModifier(it.key()))
                unknown = it.key();
        }
        fail(path, unknown.isEmpty() ? QStringLiteral("the part has no data (text, inlineData, fileData, functionCall or functionResponse)")
                                     : QStringLiteral("unsupported part kind '%1'").arg(unknown));
    }
    const QString kindName = QLatin1String(kind);
    const QString signature = optionalString(part, "thoughtSignature", path);
    const QJsonValue thought = member(part, "thought");
    if (!absent(thought) && !thought.isBool())
        fail(at(path, "thought"), QStringLiteral("must be a boolean"));

    ContentPart out;
    if (kindName == QLatin1String("text")) {
        out = ContentPart::textPart(requireString(part, "text", path));
        if (thought.toBool()) {
            if (role != Role::Assistant)
                fail(at(path, "thought"), QStringLiteral("thought parts belong to model turns"));
            out.kind = ContentPart::Kind::Thinking;
        }
    } else if (kindName == QLatin1String("inlineData")) {
        const QString dataPath = at(path, "inlineData");
        const QJsonObject data = requireObject(member(part, "inlineData"), dataPath);
        out.kind = ContentPart::Kind::Image;
        out.mediaType = requireString(data, "mimeType", dataPath);
        out.base64Data = requireString(data, "data", dataPath).toLatin1();
    } else if (kindName == QLatin1String("fileData")) {
        const QString dataPath = at(path, "fileData");
        const QJsonObject data = requireObject(member(part, "fileData"), dataPath);
        out.kind = ContentPart::Kind::Image;
        out.mediaType = optionalString(data, "mimeType", dataPath);
        out.imageUrl = requireString(data, "fileUri", dataPath);
    } else if (kindName == QLatin1String("functionCall")) {
        if (role != Role::Assistant)
            fail(at(path, "functionCall"), QStringLiteral("functionCall parts belong to model turns"));
        out = functionCall(requireObject(member(part, "functionCall"), at(path, "functionCall")), at(path, "functionCall"));
    } else {
        if (role != Role::User)
            fail(at(path, "functionResponse"), QStringLiteral("functionResponse parts belong to user turns"));
        out = functionResponse(requireObject(member(part, "functionResponse"), at(path, "functionResponse")),
                               at(path, "functionResponse"));
    }
    // Gemini signs thoughts and function calls; the signature goes back with the same part.
    out.signature = signature;
    return out;
}

ContentPart Parser::functionCall(const QJsonObject &call, const QString &path)
{
    ContentPart out;
    out.kind = ContentPart::Kind::ToolCall;
    out.toolName = requireString(call, "name", path);
    const QJsonValue args = member(call, "args");
    if (!absent(args) && !args.isObject())
        fail(at(path, "args"), QStringLiteral("must be an object"));
    out.argumentsJson = QJsonDocument(args.toObject()).toJson(QJsonDocument::Compact);
    // Gemini's calls carry an id only sometimes: the others get one by their place in the request,
    // which their responses find again by name and order.
    out.toolCallId = optionalString(call, "id", path);
    if (out.toolCallId.isEmpty())
        out.toolCallId = QStringLiteral("call_%1").arg(m_calls.size());
    m_calls.append(OpenCall{out.toolCallId, out.toolName});
    return out;
}

ContentPart Parser::functionResponse(const QJsonObject &response, const QString &path)
{
    ContentPart out;
    out.kind = ContentPart::Kind::ToolResult;
    out.toolName = requireString(response, "name", path);
    const QString id = optionalString(response, "id", path);
    OpenCall *match = nullptr;
    for (OpenCall &call : m_calls) {
        if (!id.isEmpty() ? call.id == id : (!call.answered && call.name == out.toolName)) {
            match = &call;
            break;
        }
    }
    if (!match)
        fail(path, id.isEmpty() ? QStringLiteral("no earlier functionCall named '%1' is waiting for a response").arg(out.toolName)
                                : QStringLiteral("no earlier functionCall has the id '%1'").arg(id));
    match->answered = true;
    out.toolCallId = match->id;

    const QString responsePath = at(path, "response");
    const QJsonValue value = member(response, "response");
    if (!absent(value) && !value.isObject())
        fail(responsePath, QStringLiteral("must be an object"));
    const QJsonObject result = value.toObject();
    // Gemini's convention: {"output": …} for a result, {"error": …} for a failure. A lone string of
    // either is the result's text; anything else travels as its JSON text.
    if (result.size() == 1 && result.value("output").isString()) {
        out.text = result.value("output").toString();
    } else if (result.size() == 1 && result.value("error").isString()) {
        out.text = result.value("error").toString();
        out.isError = true;
    } else {
        out.text = QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact));
    }
    return out;
}

void Parser::parseSystem(const QJsonValue &system)
{
    const QString path = QStringLiteral("systemInstruction");
    if (absent(system))
        return;
    if (system.isString()) {
        if (!system.toString().isEmpty())
            m_request.system.append(ContentPart::textPart(system.toString()));
        return;
    }
    const QJsonObject content = requireObject(system, path);
    const QJsonArray parts = optionalArray(content, "parts", path);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString partPath = at(at(path, "parts"), i);
        const QJsonObject part = requireObject(parts.at(i), partPath);
        const QJsonValue text = member(part, "text");
        if (!text.isString())
            fail(partPath, QStringLiteral("system instruction parts must be text"));
        if (!text.toString().isEmpty())
            m_request.system.append(ContentPart::textPart(text.toString()));
    }
}

void Parser::parseGenerationConfig(const QJsonObject &config)
{
    const QString path = QStringLiteral("generationConfig");
    m_request.temperature = optionalNumber(config, "temperature", path);
    m_request.topP = optionalNumber(config, "topP", path);
    m_request.topK = optionalInteger(config, "topK", path);
    m_request.maxTokens = optionalInteger(config, "maxOutputTokens", path);
    if (m_request.maxTokens && *m_request.maxTokens < 1)
        fail(at(path, "maxOutputTokens"), QStringLiteral("must be at least 1"));
    const QJsonArray stops = optionalArray(config, "stopSequences", path);
    for (qsizetype i = 0; i < stops.size(); ++i) {
        if (!stops.at(i).isString())
            fail(at(at(path, "stopSequences"), i), QStringLiteral("must be a string"));
        m_request.stop.append(stops.at(i).toString());
    }
    const std::optional<qint64> candidates = optionalInteger(config, "candidateCount", path);
    if (candidates && *candidates != 1)
        fail(at(path, "candidateCount"), QStringLiteral("only one candidate is served"));

    const QString mime = optionalString(config, "responseMimeType", path);
    QJsonObject schema = optionalObject(config, "responseJsonSchema", path);
    if (schema.isEmpty())
        schema = jsonSchemaOf(optionalObject(config, "responseSchema", path));
    if (mime == QLatin1String("application/json") || !schema.isEmpty()) {
        m_request.responseFormat = schema.isEmpty()
            ? QJsonObject{{"type", "json_object"}}
            : QJsonObject{{"type", "json_schema"}, {"json_schema", QJsonObject{{"name", "response"}, {"schema", schema}}}};
    }

    const QString thinkingPath = at(path, "thinkingConfig");
    const QJsonObject thinking = optionalObject(config, "thinkingConfig", path);
    const std::optional<qint64> budget = optionalInteger(thinking, "thinkingBudget", thinkingPath);
    const QString level = optionalString(thinking, "thinkingLevel", thinkingPath).toLower();
    Reasoning reasoning;
    if (budget && *budget == 0)
        reasoning.effort = QStringLiteral("none");
    else if (budget && *budget > 0)
        reasoning.budgetTokens = *budget;
    else if (!level.isEmpty())
        reasoning.effort = level;
    // -1 (a budget Gemini chooses) or nothing: the channel's default.
    if (!reasoning.effort.isEmpty() || reasoning.budgetTokens)
        m_request.reasoning = reasoning;
}

void Parser::parseTools(const QJsonArray &tools)
{
    for (qsizetype i = 0; i < tools.size(); ++i) {
        const QString path = at(QStringLiteral("tools"), i);
        const QJsonObject tool = requireObject(tools.at(i), path);
        // googleSearch, codeExecution, urlContext…: tools Gemini runs itself, only a gemini channel
        // can honour them (the pass-through keeps them).
        const QString declarationsPath = at(path, "functionDeclarations");
        const QJsonArray declarations = optionalArray(tool, "functionDeclarations", path);
        for (qsizetype j = 0; j < declarations.size(); ++j) {
            const QString declPath = at(declarationsPath, j);
            const QJsonObject declaration = requireObject(declarations.at(j), declPath);
            Tool out;
            out.name = requireString(declaration, "name", declPath);
            out.description = optionalString(declaration, "description", declPath);
            out.inputSchema = optionalObject(declaration, "parametersJsonSchema", declPath);
            if (out.inputSchema.isEmpty())
                out.inputSchema = jsonSchemaOf(optionalObject(declaration, "parameters", declPath));
            m_request.tools.append(out);
        }
    }
}

void Parser::parseToolConfig(const QJsonObject &config)
{
    const QString path = at(QStringLiteral("toolConfig"), "functionCallingConfig");
    const QJsonObject calling = optionalObject(config, "functionCallingConfig", QStringLiteral("toolConfig"));
    if (calling.isEmpty())
        return;
    const QString mode = optionalString(calling, "mode", path);
    const QJsonArray allowed = optionalArray(calling, "allowedFunctionNames", path);
    QStringList names;
    for (qsizetype i = 0; i < allowed.size(); ++i) {
        if (!allowed.at(i).isString())
            fail(at(at(path, "allowedFunctionNames"), i), QStringLiteral("must be a string"));
        names.append(allowed.at(i).toString());
    }
    ToolChoice &out = m_request.toolChoice;
    if (mode == QLatin1String("AUTO") || mode == QLatin1String("VALIDATED")) {
        out.mode = ToolChoice::Mode::Auto;
    } else if (mode == QLatin1String("NONE")) {
        out.mode = ToolChoice::Mode::None;
    } else if (mode == QLatin1String("ANY")) {
        // One allowed name is a named choice; several have no canonical form beyond "some call".
        out.mode = names.size() == 1 ? ToolChoice::Mode::Named : ToolChoice::Mode::Required;
        if (names.size() == 1)
            out.name = names.first();
    } else if (!mode.isEmpty() && mode != QLatin1String("MODE_UNSPECIFIED")) {
        fail(at(path, "mode"), QStringLiteral("mode must be AUTO, ANY, NONE or VALIDATED, not '%1'").arg(mode));
    }
}

} // namespace

QJsonObject jsonSchemaOf(const QJsonObject &geminiSchema)
{
    QJsonObject out;
    for (auto it = geminiSchema.constBegin(); it != geminiSchema.constEnd(); ++it) {
        const QJsonValue value = it.value();
        if (it.key() == QLatin1String("type") && value.isString()) {
            out.insert(it.key(), value.toString().toLower());
        } else if (value.isObject()) {
            // Nested schemas (items, a property's schema) and maps of them (properties).
            const QJsonObject inner = value.toObject();
            if (it.key() == QLatin1String("properties")) {
                QJsonObject properties;
                for (auto p = inner.constBegin(); p != inner.constEnd(); ++p)
                    properties.insert(p.key(), jsonSchemaOf(p.value().toObject()));
                out.insert(it.key(), properties);
            } else {
                out.insert(it.key(), jsonSchemaOf(inner));
            }
        } else if (value.isArray() && (it.key() == QLatin1String("anyOf") || it.key() == QLatin1String("prefixItems"))) {
            QJsonArray list;
            for (const QJsonValue &item : value.toArray())
                list.append(item.isObject() ? QJsonValue(jsonSchemaOf(item.toObject())) : item);
            out.insert(it.key(), list);
        } else {
            out.insert(it.key(), value);
        }
    }
    return out;
}

std::variant<CanonicalRequest, ApiError> parseRequest(const QJsonObject &body)
{
    try {
        return Parser().parse(body);
    } catch (const parsing::Fault &fault) {
        return fault.error;
    }
}

} // namespace sy::api::gemini
