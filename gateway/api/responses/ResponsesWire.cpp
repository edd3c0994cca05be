#include "api/responses/ResponsesWire.h"

#include <QJsonDocument>

namespace sy::api::responses {

namespace {

QJsonObject outputText(const QString &text)
{
    return QJsonObject{{"type", "output_text"}, {"text", text}, {"annotations", QJsonArray{}}};
}

QJsonValue nullable(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue toolChoiceJson(const ToolChoice &choice)
{
    switch (choice.mode) {
    case ToolChoice::Mode::None: return QStringLiteral("none");
    case ToolChoice::Mode::Required: return QStringLiteral("required");
    case ToolChoice::Mode::Named: return QJsonObject{{"type", "function"}, {"name", choice.name}};
    case ToolChoice::Mode::Unset:
    case ToolChoice::Mode::Auto: break;
    }
    return QStringLiteral("auto");
}

QJsonArray toolsJson(const QList<Tool> &tools)
{
    QJsonArray out;
    for (const Tool &tool : tools) {
        // `strict` is not kept in the canonical request: null says "not known" in the SDK's type.
        QJsonObject t{{"type", "function"}, {"name", tool.name}, {"parameters", tool.inputSchema}, {"strict", QJsonValue::Null}};
        t.insert("description", tool.description.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(tool.description));
        out.append(t);
    }
    return out;
}

// text.format back from the response_format shape the parser stored.
QJsonObject textJson(const QJsonObject &responseFormat)
{
    const QString type = responseFormat.value("type").toString();
    if (type == QLatin1String("json_object"))
        return QJsonObject{{"format", QJsonObject{{"type", "json_object"}}}};
    if (type == QLatin1String("json_schema")) {
        QJsonObject format = responseFormat.value("json_schema").toObject();
        format.insert("type", "json_schema");
        return QJsonObject{{"format", format}};
    }
    return QJsonObject{{"format", QJsonObject{{"type", "text"}}}};
}

} // namespace

ItemKind itemKindOf(ContentPart::Kind kind)
{
    switch (kind) {
    case ContentPart::Kind::Text: return ItemKind::Message;
    case ContentPart::Kind::ToolCall: return ItemKind::FunctionCall;
    case ContentPart::Kind::Thinking: return ItemKind::Reasoning;
    case ContentPart::Kind::Image:
    case ContentPart::Kind::ToolResult: break;
    }
    return ItemKind::None;
}

QString itemId(ItemKind kind, const QString &responseId, int outputIndex)
{
    const QString base = responseId.startsWith(QLatin1String("resp_")) ? responseId.mid(5) : responseId;
    const char *prefix = kind == ItemKind::FunctionCall ? "fc_" : kind == ItemKind::Reasoning ? "rs_" : "msg_";
    return QLatin1String(prefix) + base + QLatin1Char('_') + QString::number(outputIndex);
}

QJsonObject outputItem(const ContentPart &part, const QString &id, const QString &status)
{
    const bool shell = status == QLatin1String("in_progress");
    switch (itemKindOf(part.kind)) {
    case ItemKind::Message:
        return QJsonObject{{"type", "message"}, {"id", id}, {"status", status}, {"role", "assistant"},
                           {"content", shell ? QJsonArray{} : QJsonArray{outputText(part.text)}}};
    case ItemKind::FunctionCall:
        return QJsonObject{{"type", "function_call"}, {"id", id}, {"status", status}, {"call_id", part.toolCallId},
                           {"name", part.toolName},
                           {"arguments", shell ? QString() : QString::fromUtf8(part.argumentsJson.isEmpty() ? "{}" : part.argumentsJson)}};
    case ItemKind::Reasoning: {
        QJsonArray summary;
        if (!shell && !part.text.isEmpty())
            summary.append(QJsonObject{{"type", "summary_text"}, {"text", part.text}});
        QJsonObject item{{"type", "reasoning"}, {"id", id}, {"summary", summary}};
        // The provider's signature (or redacted thinking) rides in encrypted_content, so a client
        // that sends the item back gives an Anthropic channel what it needs for the next turn.
        if (!shell && !part.signature.isEmpty())
            item.insert("encrypted_content", part.signature);
        return item;
    }
    case ItemKind::None: break;
    }
    return {};
}

QJsonArray outputItems(const QList<ContentPart> &parts, const QString &responseId, const QString &status)
{
    QJsonArray out;
    for (const ContentPart &part : parts) {
        const ItemKind kind = itemKindOf(part.kind);
        if (kind != ItemKind::None)
            out.append(outputItem(part, itemId(kind, responseId, int(out.size())), status));
    }
    return out;
}

QJsonValue usageJson(const TokenUsage &usage)
{
    if (!usage.known)
        return QJsonValue::Null;
    const qint64 input = usage.promptTokensTotal();
    return QJsonObject{
        {"input_tokens", input},
        {"input_tokens_details", QJsonObject{{"cached_tokens", usage.cacheReadTokens}}},
        {"output_tokens", usage.outputTokens},
        {"output_tokens_details", QJsonObject{{"reasoning_tokens", 0}}},
        {"total_tokens", input + usage.outputTokens},
    };
}

QString statusFor(StopReason reason)
{
    return reason == StopReason::MaxTokens || reason == StopReason::ContentFilter ? QStringLiteral("incomplete")
                                                                                : QStringLiteral("completed");
}

QJsonValue incompleteDetailsFor(StopReason reason)
{
    if (reason == StopReason::MaxTokens)
        return QJsonObject{{"reason", "max_output_tokens"}};
    if (reason == StopReason::ContentFilter)
        return QJsonObject{{"reason", "content_filter"}};
    return QJsonValue::Null;
}

QJsonObject responseObject(const ResponseState &state, const CanonicalRequest *request)
{
    QString text;
    for (const QJsonValue &item : state.output) {
        for (const QJsonValue &part : item.toObject().value("content").toArray()) {
            if (part.toObject().value("type").toString() == QLatin1String("output_text"))
                text += part.toObject().value("text").toString();
        }
    }
    const CanonicalRequest none;
    const CanonicalRequest &r = request ? *request : none;
    QJsonObject reasoning{{"effort", r.reasoning ? QJsonValue(r.reasoning->effort) : QJsonValue(QJsonValue::Null)},
                          {"summary", QJsonValue::Null}};
    return QJsonObject{
        {"id", state.id},
        {"object", "response"},
        {"created_at", state.createdAt},
        {"status", state.status},
        {"model", state.model},
        {"output", state.output},
        {"output_text", text},
        {"usage", state.usage},
        {"error", state.error},
        {"incomplete_details", state.incompleteDetails},
        {"instructions", QJsonValue::Null},
        {"metadata", QJsonObject{}},
        {"parallel_tool_calls", !r.toolChoice.disableParallel},
        {"tool_choice", toolChoiceJson(r.toolChoice)},
        {"tools", toolsJson(r.tools)},
        {"text", textJson(r.responseFormat)},
        {"reasoning", reasoning},
        {"temperature", nullable(r.temperature)},
        {"top_p", nullable(r.topP)},
        {"max_output_tokens", r.maxTokens ? QJsonValue(*r.maxTokens) : QJsonValue(QJsonValue::Null)},
        {"previous_response_id", r.previousResponseId.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.previousResponseId)},
        {"store", r.store},
        {"truncation", "disabled"},
    };
}

QByteArray sseEvent(const QString &type, QJsonObject data, qint64 sequenceNumber)
{
    data.insert("type", type);
    data.insert("sequence_number", sequenceNumber);
    return "event: " + type.toUtf8() + "\ndata: " + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
}

} // namespace sy::api::responses
