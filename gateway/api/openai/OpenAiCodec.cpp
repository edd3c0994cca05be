#include "api/openai/OpenAiCodec.h"

#include "api/openai/OpenAiErrors.h"
#include "api/openai/OpenAiRequestParser.h"
#include "api/openai/OpenAiStreamWriter.h"
#include "api/openai/OpenAiWire.h"
#include "core/JsonText.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::openai {

std::variant<CanonicalRequest, ApiError> OpenAiCodec::parse(const QJsonObject &body) const
{
    return parseChatRequest(body);
}

namespace {

// An answer without tool calls (what most answers are), written directly with the bytes the
// QJsonObject below would give (keys in its sorted order, Qt's escaping, integers as integers);
// nullopt when it calls tools, which the QJsonObject path writes.
std::optional<QByteArray> answerWithoutToolCalls(const CanonicalAnswer &answer, const WriterOptions &options)
{
    QString text;
    QString reasoning;
    for (const ContentPart &part : answer.parts) {
        if (part.kind == ContentPart::Kind::ToolCall)
            return std::nullopt;
        if (part.kind == ContentPart::Kind::Text)
            text += part.text;
        else if (part.kind == ContentPart::Kind::Thinking)
            reasoning += part.text;
    }
    QByteArray out;
    out.reserve((text.size() + reasoning.size()) * 3 / 2 + 360);
    out += "{\"choices\":[{\"finish_reason\":";
    json::appendString(out, finishReasonFor(answer.stopReason, false));
    out += ",\"index\":0,\"logprobs\":null,\"message\":{\"content\":";
    json::appendString(out, text);
    if (!reasoning.isEmpty()) {
        out += ",\"reasoning_content\":";
        json::appendString(out, reasoning);
    }
    out += ",\"role\":\"assistant\"}}],\"created\":" + QByteArray::number(QDateTime::currentSecsSinceEpoch()) + ",\"id\":";
    json::appendString(out, chatCompletionId(answer.id, options.requestId));
    out += ",\"model\":";
    json::appendString(out, options.publicModel);
    out += ",\"object\":\"chat.completion\"";
    if (answer.usage.known) {
        const TokenUsage &usage = answer.usage;
        const qint64 prompt = usage.promptTokensTotal();
        out += ",\"usage\":{\"completion_tokens\":" + QByteArray::number(usage.outputTokens)
            + ",\"prompt_tokens\":" + QByteArray::number(prompt)
            + ",\"prompt_tokens_details\":{\"cached_tokens\":" + QByteArray::number(usage.cacheReadTokens)
            + "},\"total_tokens\":" + QByteArray::number(prompt + usage.outputTokens) + '}';
    }
    out += '}';
    return out;
}

} // namespace

QByteArray OpenAiCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    if (std::optional<QByteArray> plain = answerWithoutToolCalls(answer, options))
        return *std::move(plain);
    QString text;
    QString reasoning;
    QJsonArray toolCalls;
    for (const ContentPart &part : answer.parts) {
        switch (part.kind) {
        case ContentPart::Kind::Text: text += part.text; break;
        case ContentPart::Kind::Thinking: reasoning += part.text; break;
        case ContentPart::Kind::ToolCall:
            toolCalls.append(QJsonObject{
                {"id", part.toolCallId},
                {"type", "function"},
                {"function", QJsonObject{{"name", part.toolName},
                                         {"arguments", QString::fromUtf8(part.argumentsJson.isEmpty() ? "{}" : part.argumentsJson)}}},
            });
            break;
        case ContentPart::Kind::Image:
        case ContentPart::Kind::ToolResult: break;   // not parts of an answer in this format
        }
    }

    QJsonObject message{{"role", "assistant"}, {"content", text.isEmpty() && !toolCalls.isEmpty() ? QJsonValue() : QJsonValue(text)}};
    if (!toolCalls.isEmpty())
        message.insert("tool_calls", toolCalls);
    if (!reasoning.isEmpty())
        message.insert("reasoning_content", reasoning);
    const QJsonObject choice{
        {"index", 0},
        {"message", message},
        {"logprobs", QJsonValue::Null},
        {"finish_reason", finishReasonFor(answer.stopReason, !toolCalls.isEmpty())},
    };
    QJsonObject body{
        {"id", chatCompletionId(answer.id, options.requestId)},
        {"object", "chat.completion"},
        {"created", QDateTime::currentSecsSinceEpoch()},
        {"model", options.publicModel},
        {"choices", QJsonArray{choice}},
    };
    if (answer.usage.known)
        body.insert("usage", usageJson(answer.usage));
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::unique_ptr<StreamWriter> OpenAiCodec::streamWriter(const WriterOptions &options) const
{
    return std::make_unique<OpenAiStreamWriter>(options);
}

QByteArray OpenAiCodec::errorBody(const ApiError &error) const
{
    return openai::errorBody(error.status, error.message, error.code, error.param, error.metadata);
}

} // namespace sy::api::openai
