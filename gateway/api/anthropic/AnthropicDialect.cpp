#include "api/anthropic/AnthropicDialect.h"

#include "api/anthropic/AnthropicStreamDecoder.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::anthropic {

namespace {

// Anthropic refuses thinking budgets below this.
constexpr qint64 kMinThinkingBudget = 1024;

// A part as a block of a request turn; nullopt for what Anthropic would refuse: an empty text
// block, a thinking block without the signature Anthropic gave it (one written by another
// provider cannot be replayed).
std::optional<QJsonObject> requestBlock(const ContentPart &part)
{
    if (part.kind == ContentPart::Kind::Text && part.text.isEmpty())
        return std::nullopt;
    if (part.kind == ContentPart::Kind::Thinking && part.signature.isEmpty())
        return std::nullopt;
    return blockFromPart(part);
}

QJsonArray messagesJson(const QList<Message> &messages)
{
    // Anthropic wants turns that alternate: consecutive turns of a role are joined, and in a user
    // turn the tool results come first (they must answer the previous assistant turn's calls).
    struct Turn {
        Role role;
        QJsonArray results;
        QJsonArray blocks;
    };
    QList<Turn> turns;
    for (const Message &message : messages) {
        if (turns.isEmpty() || turns.last().role != message.role)
            turns.append(Turn{message.role, {}, {}});
        Turn &turn = turns.last();
        for (const ContentPart &part : message.parts) {
            const std::optional<QJsonObject> block = requestBlock(part);
            if (!block)
                continue;
            if (part.kind == ContentPart::Kind::ToolResult && message.role == Role::User)
                turn.results.append(*block);
            else
                turn.blocks.append(*block);
        }
    }
    QJsonArray out;
    for (const Turn &turn : turns) {
        QJsonArray content = turn.results;
        for (const QJsonValue &block : turn.blocks)
            content.append(block);
        if (content.isEmpty())
            continue;   // Anthropic refuses a turn without content
        out.append(QJsonObject{{"role", turn.role == Role::User ? "user" : "assistant"}, {"content", content}});
    }
    return out;
}

QJsonArray toolsJson(const QList<Tool> &tools)
{
    QJsonArray out;
    for (const Tool &tool : tools) {
        QJsonObject object{{"name", tool.name},
                           {"input_schema", tool.inputSchema.isEmpty() ? QJsonObject{{"type", "object"}} : tool.inputSchema}};
        if (!tool.description.isEmpty())
            object.insert("description", tool.description);
        if (!tool.cacheControl.isEmpty())
            object.insert("cache_control", tool.cacheControl);
        out.append(object);
    }
    return out;
}

std::optional<QJsonObject> toolChoiceJson(const ToolChoice &choice)
{
    QJsonObject out;
    switch (choice.mode) {
    case ToolChoice::Mode::Unset:
        if (!choice.disableParallel)
            return std::nullopt;
        out.insert("type", "auto");
        break;
    case ToolChoice::Mode::Auto: out.insert("type", "auto"); break;
    case ToolChoice::Mode::None: out.insert("type", "none"); break;
    case ToolChoice::Mode::Required: out.insert("type", "any"); break;
    case ToolChoice::Mode::Named: out = {{"type", "tool"}, {"name", choice.name}}; break;
    }
    if (choice.disableParallel && choice.mode != ToolChoice::Mode::None)
        out.insert("disable_parallel_tool_use", true);
    return out;
}

} // namespace

qint64 budgetForEffort(const QString &effort)
{
    if (effort == QLatin1String("low") || effort == QLatin1String("minimal"))
        return 1024;
    if (effort == QLatin1String("high"))
        return 16384;
    return 4096;
}

QJsonObject requestBody(const CanonicalRequest &request, const QString &upstreamModel)
{
    QJsonObject body{{"model", upstreamModel}, {"messages", messagesJson(request.messages)}};
    qint64 maxTokens = request.maxTokens.value_or(kDefaultMaxTokens);

    std::optional<qint64> budget;
    if (request.reasoning) {
        if (request.reasoning->budgetTokens)
            budget = std::max(*request.reasoning->budgetTokens, kMinThinkingBudget);
        else if (!request.reasoning->effort.isEmpty() && request.reasoning->effort != QLatin1String("none"))
            budget = budgetForEffort(request.reasoning->effort);
    }
    if (budget) {
        // Thinking counts against max_tokens and must stay below it: the answer keeps the room the
        // client asked for on top of the budget.
        if (maxTokens <= *budget)
            maxTokens += *budget;
        body.insert("thinking", QJsonObject{{"type", "enabled"}, {"budget_tokens", *budget}});
    }
    body.insert("max_tokens", maxTokens);

    if (!request.system.isEmpty()) {
        QJsonArray system;
        for (const ContentPart &part : request.system) {
            if (const std::optional<QJsonObject> block = requestBlock(part))
                system.append(*block);
        }
        if (!system.isEmpty())
            body.insert("system", system);
    }
    if (!request.tools.isEmpty())
        body.insert("tools", toolsJson(request.tools));
    if (const std::optional<QJsonObject> choice = toolChoiceJson(request.toolChoice))
        body.insert("tool_choice", *choice);
    if (!request.stop.isEmpty())
        body.insert("stop_sequences", QJsonArray::fromStringList(request.stop));
    // With thinking on Anthropic refuses a changed temperature or top_k: they are left out then.
    if (request.temperature && !budget)
        body.insert("temperature", *request.temperature);
    if (request.topP)
        body.insert("top_p", *request.topP);
    if (request.topK && !budget)
        body.insert("top_k", *request.topK);
    if (!request.user.isEmpty())
        body.insert("metadata", QJsonObject{{"user_id", request.user}});
    body.insert("stream", request.stream);
    return body;
}

WireRequest AnthropicDialect::request(const CanonicalRequest &request, const QString &upstreamModel,
                                      const QString &credential) const
{
    WireRequest wire;
    wire.path = "/messages";
    wire.headers.emplaceBack("content-type", "application/json");
    wire.headers.emplaceBack("accept", request.stream ? "text/event-stream" : "application/json");
    if (!credential.isEmpty())
        wire.headers.emplaceBack("x-api-key", credential.toUtf8());
    wire.headers.emplaceBack("anthropic-version", kApiVersion);
    wire.body = QJsonDocument(requestBody(request, upstreamModel)).toJson(QJsonDocument::Compact);
    return wire;
}

DecodedAnswer AnthropicDialect::decodeAnswer(QByteArrayView body) const
{
    DecodedAnswer decoded;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        decoded.problem = QStringLiteral("the answer is not a JSON object");
        return decoded;
    }
    const QJsonObject object = doc.object();
    if (object.value("type") == QLatin1String("error")) {
        decoded.problem = QStringLiteral("the upstream answered an error: %1")
                              .arg(object.value("error").toObject().value("message").toString());
        return decoded;
    }
    const QJsonArray content = object.value("content").toArray();
    if (content.isEmpty()) {
        decoded.problem = QStringLiteral("the answer has no content");
        return decoded;
    }
    CanonicalAnswer answer;
    answer.id = object.value("id").toString();
    answer.model = object.value("model").toString();
    for (const QJsonValue &block : content)
        answer.parts.append(partFromAnswerBlock(block.toObject()));
    answer.stopReason = stopReasonFromName(object.value("stop_reason").toString());
    answer.stopSequence = object.value("stop_sequence").toString();
    mergeUsage(object.value("usage").toObject(), answer.usage);
    decoded.answer = std::move(answer);
    return decoded;
}

std::unique_ptr<StreamDecoder> AnthropicDialect::streamDecoder() const
{
    return std::make_unique<AnthropicStreamDecoder>();
}

} // namespace sy::api::anthropic
