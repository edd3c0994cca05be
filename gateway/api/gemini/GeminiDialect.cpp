#include "api/gemini/GeminiDialect.h"

#include "api/gemini/GeminiStreamDecoder.h"
#include "api/gemini/GeminiWire.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

namespace sy::api::gemini {

namespace {

// data:<media type>;base64,<data> split in two; empty when `url` is not a data URL.
std::pair<QString, QByteArray> splitDataUrl(const QString &url)
{
    if (!url.startsWith(QLatin1String("data:")))
        return {};
    const qsizetype comma = url.indexOf(QLatin1Char(','));
    if (comma < 0)
        return {};
    return {url.mid(5, comma - 5).section(QLatin1Char(';'), 0, 0), url.mid(comma + 1).toLatin1()};
}

QJsonObject imagePart(const ContentPart &part)
{
    auto [mediaType, data] = splitDataUrl(part.imageUrl);
    if (!part.base64Data.isEmpty()) {
        mediaType = part.mediaType;
        data = part.base64Data;
    }
    if (!data.isEmpty())
        return {{"inlineData", QJsonObject{{"mimeType", mediaType}, {"data", QString::fromLatin1(data)}}}};
    QJsonObject file{{"fileUri", part.imageUrl}};
    file.insert("mimeType", part.mediaType.isEmpty() ? QStringLiteral("image/jpeg") : part.mediaType);
    return {{"fileData", file}};
}

// A tool result as Gemini's response object: {"output": text} ({"error": text} when it failed),
// or the text itself when it is a JSON object already.
QJsonObject resultObject(const ContentPart &part)
{
    QString text = part.text;
    if (text.isEmpty() && !part.resultParts.isEmpty()) {
        QStringList texts;
        for (const ContentPart &inner : part.resultParts) {
            if (inner.kind == ContentPart::Kind::Text)
                texts.append(inner.text);
        }
        text = texts.join(QLatin1Char('\n'));
    }
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
    if (doc.isObject() && !part.isError)
        return doc.object();
    return {{part.isError ? "error" : "output", text}};
}

class ContentsWriter {
public:
    QJsonArray write(const QList<Message> &messages)
    {
        // Gemini wants turns that alternate: consecutive turns of a role are joined, and in a user
        // turn the function responses come first (they answer the previous model turn's calls).
        struct Turn {
            Role role;
            QJsonArray responses;
            QJsonArray parts;
        };
        QList<Turn> turns;
        for (const Message &message : messages) {
            if (turns.isEmpty() || turns.last().role != message.role)
                turns.append(Turn{message.role, {}, {}});
            Turn &turn = turns.last();
            for (const ContentPart &part : message.parts) {
                const std::optional<QJsonObject> json = partJson(part);
                if (!json)
                    continue;
                if (part.kind == ContentPart::Kind::ToolResult)
                    turn.responses.append(*json);
                else
                    turn.parts.append(*json);
            }
        }
        QJsonArray out;
        for (const Turn &turn : turns) {
            QJsonArray parts = turn.responses;
            for (const QJsonValue &part : turn.parts)
                parts.append(part);
            if (parts.isEmpty())
                continue;   // Gemini refuses a turn without parts
            out.append(QJsonObject{{"role", turn.role == Role::User ? "user" : "model"}, {"parts", parts}});
        }
        return out;
    }

private:
    std::optional<QJsonObject> partJson(const ContentPart &part)
    {
        QJsonObject out;
        switch (part.kind) {
        case ContentPart::Kind::Text:
            if (part.text.isEmpty())
                return std::nullopt;
            out = {{"text", part.text}};
            break;
        case ContentPart::Kind::Image:
            out = imagePart(part);
            break;
        case ContentPart::Kind::ToolCall:
            m_callNames.insert(part.toolCallId, part.toolName);
            out = {{"functionCall", QJsonObject{{"name", part.toolName}, {"args", argumentsObject(part.argumentsJson)}}}};
            break;
        case ContentPart::Kind::ToolResult: {
            // Gemini names the function a response answers, not the call: the name comes from the
            // earlier call with that id (or from the part, when the client format carried one).
            const QString name = m_callNames.value(part.toolCallId, part.toolName);
            out = {{"functionResponse", QJsonObject{{"name", name}, {"response", resultObject(part)}}}};
            break;
        }
        case ContentPart::Kind::Thinking:
            // Thought text is never sent back to Gemini; its signatures ride on function calls.
            return std::nullopt;
        }
        if (part.kind == ContentPart::Kind::ToolCall && !part.signature.isEmpty())
            out.insert("thoughtSignature", part.signature);
        return out;
    }

    QHash<QString, QString> m_callNames;   // tool call id → function name
};

QJsonObject generationConfig(const CanonicalRequest &request)
{
    QJsonObject config;
    if (request.temperature)
        config.insert("temperature", *request.temperature);
    if (request.topP)
        config.insert("topP", *request.topP);
    if (request.topK)
        config.insert("topK", *request.topK);
    if (request.maxTokens)
        config.insert("maxOutputTokens", *request.maxTokens);
    if (!request.stop.isEmpty())
        config.insert("stopSequences", QJsonArray::fromStringList(request.stop));
    const QString formatType = request.responseFormat.value("type").toString();
    if (formatType == QLatin1String("json_object") || formatType == QLatin1String("json_schema")) {
        config.insert("responseMimeType", "application/json");
        const QJsonObject schema = request.responseFormat.value("json_schema").toObject().value("schema").toObject();
        if (!schema.isEmpty())
            config.insert("responseJsonSchema", schema);
    }
    if (request.reasoning) {
        const qint64 budget = request.reasoning->budgetTokens ? *request.reasoning->budgetTokens
                                                              : thinkingBudgetForEffort(request.reasoning->effort);
        config.insert("thinkingConfig", QJsonObject{{"thinkingBudget", budget}});
    }
    return config;
}

std::optional<QJsonObject> toolConfig(const ToolChoice &choice)
{
    QJsonObject calling;
    switch (choice.mode) {
    case ToolChoice::Mode::Unset: return std::nullopt;
    case ToolChoice::Mode::Auto: calling.insert("mode", "AUTO"); break;
    case ToolChoice::Mode::None: calling.insert("mode", "NONE"); break;
    case ToolChoice::Mode::Required: calling.insert("mode", "ANY"); break;
    case ToolChoice::Mode::Named:
        calling = {{"mode", "ANY"}, {"allowedFunctionNames", QJsonArray{choice.name}}};
        break;
    }
    return QJsonObject{{"functionCallingConfig", calling}};
}

} // namespace

qint64 thinkingBudgetForEffort(const QString &effort)
{
    if (effort == QLatin1String("none"))
        return 0;
    if (effort == QLatin1String("low") || effort == QLatin1String("minimal"))
        return 1024;
    if (effort == QLatin1String("high"))
        return 16384;
    return 4096;
}

QByteArray modelPath(const QString &upstreamModel, bool stream)
{
    const QString model = upstreamModel.startsWith(QLatin1String("models/")) ? upstreamModel.mid(7) : upstreamModel;
    return "/models/" + QUrl::toPercentEncoding(model, "/") + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
}

QJsonObject requestBody(const CanonicalRequest &request)
{
    QJsonObject body{{"contents", ContentsWriter().write(request.messages)}};
    QJsonArray system;
    for (const ContentPart &part : request.system) {
        if (!part.text.isEmpty())
            system.append(QJsonObject{{"text", part.text}});
    }
    if (!system.isEmpty())
        body.insert("systemInstruction", QJsonObject{{"parts", system}});
    if (!request.tools.isEmpty()) {
        QJsonArray declarations;
        for (const Tool &tool : request.tools) {
            QJsonObject declaration{{"name", tool.name}};
            if (!tool.description.isEmpty())
                declaration.insert("description", tool.description);
            // parametersJsonSchema takes full JSON Schema, which is what the other formats carry.
            if (!tool.inputSchema.isEmpty())
                declaration.insert("parametersJsonSchema", tool.inputSchema);
            declarations.append(declaration);
        }
        body.insert("tools", QJsonArray{QJsonObject{{"functionDeclarations", declarations}}});
    }
    if (const std::optional<QJsonObject> config = toolConfig(request.toolChoice); config && !request.tools.isEmpty())
        body.insert("toolConfig", *config);
    const QJsonObject config = generationConfig(request);
    if (!config.isEmpty())
        body.insert("generationConfig", config);
    return body;
}

WireRequest GeminiDialect::request(const CanonicalRequest &request, const QString &upstreamModel,
                                   const QString &credential) const
{
    WireRequest wire;
    wire.path = modelPath(upstreamModel, request.stream);
    wire.headers.emplaceBack("content-type", "application/json");
    wire.headers.emplaceBack("accept", request.stream ? "text/event-stream" : "application/json");
    if (!credential.isEmpty())
        wire.headers.emplaceBack("x-goog-api-key", credential.toUtf8());
    wire.body = QJsonDocument(requestBody(request)).toJson(QJsonDocument::Compact);
    return wire;
}

QString partKind(const QJsonObject &part)
{
    for (auto it = part.constBegin(); it != part.constEnd(); ++it) {
        if (it.key() != QLatin1String("thought") && it.key() != QLatin1String("thoughtSignature"))
            return it.key();
    }
    return QStringLiteral("empty");
}

std::optional<ContentPart> partFromAnswer(const QJsonObject &part, const QString &fallbackId)
{
    ContentPart out;
    out.signature = member(part, "thoughtSignature").toString();
    if (part.value("text").isString()) {
        out.text = part.value("text").toString();
        if (part.value("thought").toBool())
            out.kind = ContentPart::Kind::Thinking;
        return out;
    }
    const QJsonValue call = member(part, "functionCall");
    if (call.isObject()) {
        const QJsonObject object = call.toObject();
        out.kind = ContentPart::Kind::ToolCall;
        out.toolName = object.value("name").toString();
        out.toolCallId = object.value("id").toString();
        if (out.toolCallId.isEmpty())
            out.toolCallId = fallbackId;
        out.argumentsJson = QJsonDocument(object.value("args").toObject()).toJson(QJsonDocument::Compact);
        return out;
    }
    return std::nullopt;
}

DecodedAnswer GeminiDialect::decodeAnswer(QByteArrayView body) const
{
    DecodedAnswer decoded;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        decoded.problem = QStringLiteral("the answer is not a JSON object");
        return decoded;
    }
    const QJsonObject object = doc.object();
    if (object.value("error").isObject()) {
        decoded.problem = QStringLiteral("the upstream answered an error: %1")
                              .arg(object.value("error").toObject().value("message").toString());
        return decoded;
    }
    const QJsonArray candidates = object.value("candidates").toArray();
    if (candidates.isEmpty()) {
        const QString blocked = member(member(object, "promptFeedback").toObject(), "blockReason").toString();
        decoded.problem = blocked.isEmpty() ? QStringLiteral("the answer has no candidates")
                                            : QStringLiteral("the prompt was blocked: %1").arg(blocked);
        return decoded;
    }
    const QJsonObject candidate = candidates.first().toObject();
    const QJsonArray parts = candidate.value("content").toObject().value("parts").toArray();
    const QString finish = member(candidate, "finishReason").toString();
    if (parts.isEmpty()) {
        decoded.problem = finish.isEmpty() ? QStringLiteral("the answer has no content")
                                           : QStringLiteral("the answer has no content (finishReason %1)").arg(finish);
        return decoded;
    }
    CanonicalAnswer answer;
    answer.id = member(object, "responseId").toString();
    answer.model = member(object, "modelVersion").toString();
    bool hasToolCall = false;
    int calls = 0;
    for (const QJsonValue &value : parts) {
        const QJsonObject part = value.toObject();
        const QString fallbackId = answer.id.isEmpty() ? QStringLiteral("call_%1").arg(calls)
                                                       : QStringLiteral("call_%1_%2").arg(answer.id).arg(calls);
        if (std::optional<ContentPart> canonical = partFromAnswer(part, fallbackId)) {
            if (canonical->kind == ContentPart::Kind::ToolCall) {
                hasToolCall = true;
                ++calls;
            }
            if (canonical->kind != ContentPart::Kind::Text || !canonical->text.isEmpty())
                answer.parts.append(*canonical);
        } else {
            answer.parts.append(ContentPart::textPart(QStringLiteral("[unsupported part: %1]").arg(partKind(part))));
        }
    }
    if (answer.parts.isEmpty()) {
        decoded.problem = QStringLiteral("the answer has no content");
        return decoded;
    }
    answer.stopReason = stopReasonFromFinish(finish, hasToolCall);
    answer.usage = usageFromMetadata(member(object, "usageMetadata").toObject());
    decoded.answer = std::move(answer);
    return decoded;
}

std::unique_ptr<StreamDecoder> GeminiDialect::streamDecoder() const
{
    return std::make_unique<GeminiStreamDecoder>();
}

} // namespace sy::api::gemini
