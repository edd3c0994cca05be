#include "api/openai/OpenAiDialect.h"

#include "api/openai/OpenAiStreamDecoder.h"
#include "api/openai/OpenAiWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::openai {

namespace {

QJsonObject textPartJson(const QString &text)
{
    return QJsonObject{{"type", "text"}, {"text", text}};
}

QJsonObject imagePartJson(const ContentPart &part)
{
    return QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", imageUrlOf(part)}}}};
}

// `content` for text and image parts: a plain string when it is one text, else an array.
QJsonValue contentJson(const QList<ContentPart> &parts)
{
    if (parts.size() == 1 && parts.first().kind == ContentPart::Kind::Text)
        return parts.first().text;
    QJsonArray array;
    for (const ContentPart &part : parts) {
        if (part.kind == ContentPart::Kind::Text)
            array.append(textPartJson(part.text));
        else if (part.kind == ContentPart::Kind::Image)
            array.append(imagePartJson(part));
    }
    return array;
}

// A tool result as a `tool` message. Its images cannot go there (OpenAI takes images only from
// users): they are returned to follow as a user message.
QJsonObject toolMessage(const ContentPart &result, QList<ContentPart> &images)
{
    QJsonValue content = result.text;
    if (!result.resultParts.isEmpty()) {
        QList<ContentPart> texts;
        for (const ContentPart &part : result.resultParts)
            (part.kind == ContentPart::Kind::Image ? images : texts).append(part);
        content = texts.isEmpty() ? QJsonValue(QString()) : contentJson(texts);
    }
    // The format has no error flag: a failed tool says so in its text, as clients of it expect.
    if (result.isError && content.isString())
        content = QStringLiteral("Error: ") + content.toString();
    return QJsonObject{{"role", "tool"}, {"tool_call_id", result.toolCallId}, {"content", content}};
}

// A user turn: each run of tool results becomes `tool` messages, each run of other parts one
// user message, in the order they came. Images of tool results join the user message after their
// run (nothing may come between the `tool` messages answering one assistant turn).
void appendUserTurn(const Message &turn, QJsonArray &messages)
{
    QList<ContentPart> run;          // user parts waiting for their message
    QList<ContentPart> toolImages;   // images of the tool results since the last user part
    auto flush = [&] {
        if (!run.isEmpty())
            messages.append(QJsonObject{{"role", "user"}, {"content", contentJson(run)}});
        run.clear();
    };
    for (const ContentPart &part : turn.parts) {
        if (part.kind == ContentPart::Kind::ToolResult) {
            flush();
            messages.append(toolMessage(part, toolImages));
        } else if (part.kind == ContentPart::Kind::Text || part.kind == ContentPart::Kind::Image) {
            run.append(toolImages);
            toolImages.clear();
            run.append(part);
        }
    }
    run.append(toolImages);
    flush();
}

// The parts of a chat.completion message: reasoning first (reasoning_content, or `reasoning` as
// some OpenAI-compatible servers name it), then the text, then the tool calls.
QList<ContentPart> messageParts(const QJsonObject &message)
{
    QList<ContentPart> parts;
    QString reasoning = message.value("reasoning_content").toString();
    if (reasoning.isEmpty())
        reasoning = message.value("reasoning").toString();
    if (!reasoning.isEmpty()) {
        ContentPart thinking = ContentPart::textPart(reasoning);
        thinking.kind = ContentPart::Kind::Thinking;
        parts.append(thinking);
    }
    const QJsonValue content = message.value("content");
    if (content.isString() && !content.toString().isEmpty()) {
        parts.append(ContentPart::textPart(content.toString()));
    } else if (content.isArray()) {
        for (const QJsonValue &part : content.toArray()) {
            if (part.toObject().value("type").toString() == QLatin1String("text"))
                parts.append(ContentPart::textPart(part.toObject().value("text").toString()));
        }
    }
    if (const QString refusal = message.value("refusal").toString(); !refusal.isEmpty())
        parts.append(ContentPart::textPart(refusal));
    for (const QJsonValue &value : message.value("tool_calls").toArray()) {
        const QJsonObject call = value.toObject();
        const QJsonObject function = call.value("function").toObject();
        ContentPart part;
        part.kind = ContentPart::Kind::ToolCall;
        part.toolCallId = call.value("id").toString();
        part.toolName = function.value("name").toString();
        part.argumentsJson = function.value("arguments").toString().toUtf8();
        if (part.argumentsJson.trimmed().isEmpty())
            part.argumentsJson = "{}";
        parts.append(part);
    }
    return parts;
}

void appendAssistantTurn(const Message &turn, QJsonArray &messages)
{
    QString text;
    QJsonArray calls;
    for (const ContentPart &part : turn.parts) {
        if (part.kind == ContentPart::Kind::Text) {
            text += part.text;
        } else if (part.kind == ContentPart::Kind::ToolCall) {
            calls.append(QJsonObject{
                {"id", part.toolCallId},
                {"type", "function"},
                {"function", QJsonObject{{"name", part.toolName},
                                         {"arguments", QString::fromUtf8(part.argumentsJson.isEmpty() ? "{}" : part.argumentsJson)}}},
            });
        }
        // Thinking is not sent back: OpenAI-format servers reject or ignore it in a request.
    }
    QJsonObject message{{"role", "assistant"}, {"content", text.isEmpty() && !calls.isEmpty() ? QJsonValue() : QJsonValue(text)}};
    if (!calls.isEmpty())
        message.insert("tool_calls", calls);
    messages.append(message);
}

QJsonValue toolChoiceJson(const ToolChoice &choice)
{
    switch (choice.mode) {
    case ToolChoice::Mode::Auto: return QStringLiteral("auto");
    case ToolChoice::Mode::None: return QStringLiteral("none");
    case ToolChoice::Mode::Required: return QStringLiteral("required");
    case ToolChoice::Mode::Named:
        return QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", choice.name}}}};
    case ToolChoice::Mode::Unset: break;
    }
    return QJsonValue::Undefined;
}

} // namespace

QJsonObject chatRequestBody(const CanonicalRequest &request, const QString &upstreamModel)
{
    QJsonArray messages;
    if (!request.system.isEmpty()) {
        QStringList texts;
        for (const ContentPart &part : request.system)
            texts.append(part.text);
        // One system message: local servers' chat templates often take only one, at the start.
        messages.append(QJsonObject{{"role", "system"}, {"content", texts.join(QStringLiteral("\n\n"))}});
    }
    for (const Message &turn : request.messages) {
        if (turn.role == Role::User)
            appendUserTurn(turn, messages);
        else
            appendAssistantTurn(turn, messages);
    }

    QJsonObject body{{"model", upstreamModel}, {"messages", messages}};
    if (!request.tools.isEmpty()) {
        QJsonArray tools;
        for (const Tool &tool : request.tools) {
            QJsonObject function{{"name", tool.name}};
            if (!tool.description.isEmpty())
                function.insert("description", tool.description);
            if (!tool.inputSchema.isEmpty())
                function.insert("parameters", tool.inputSchema);
            tools.append(QJsonObject{{"type", "function"}, {"function", function}});
        }
        body.insert("tools", tools);
        // OpenAI refuses parallel_tool_calls without tools.
        if (request.toolChoice.disableParallel)
            body.insert("parallel_tool_calls", false);
    }
    if (const QJsonValue choice = toolChoiceJson(request.toolChoice); !choice.isUndefined())
        body.insert("tool_choice", choice);
    if (!request.stop.isEmpty())
        body.insert("stop", QJsonArray::fromStringList(request.stop));
    if (request.temperature)
        body.insert("temperature", *request.temperature);
    if (request.topP)
        body.insert("top_p", *request.topP);
    if (request.maxTokens)
        body.insert("max_tokens", *request.maxTokens);
    if (!request.responseFormat.isEmpty())
        body.insert("response_format", request.responseFormat);
    if (request.reasoning) {
        if (const QString effort = effortFor(*request.reasoning); !effort.isEmpty())
            body.insert("reasoning_effort", effort);
    }
    if (!request.user.isEmpty())
        body.insert("user", request.user);
    if (request.stream) {
        body.insert("stream", true);
        body.insert("stream_options", QJsonObject{{"include_usage", true}});
    }
    return body;
}

WireRequest OpenAiDialect::request(const CanonicalRequest &request, const QString &upstreamModel,
                                   const QString &credential) const
{
    WireRequest wire;
    wire.path = "/chat/completions";
    wire.headers.append(qMakePair(QByteArray("content-type"), QByteArray("application/json")));
    wire.headers.append(qMakePair(QByteArray("accept"), QByteArray(request.stream ? "text/event-stream" : "application/json")));
    if (!credential.isEmpty())
        wire.headers.append(qMakePair(QByteArray("authorization"), "Bearer " + credential.toUtf8()));
    wire.body = QJsonDocument(chatRequestBody(request, upstreamModel)).toJson(QJsonDocument::Compact);
    return wire;
}

DecodedAnswer OpenAiDialect::decodeAnswer(QByteArrayView body) const
{
    DecodedAnswer decoded;
    const QJsonDocument doc = QJsonDocument::fromJson(body.toByteArray());
    if (!doc.isObject()) {
        decoded.problem = QStringLiteral("upstream returned a body that is not a JSON object");
        return decoded;
    }
    const QJsonObject object = doc.object();
    if (object.value("error").isObject()) {
        decoded.problem = QStringLiteral("upstream returned an error: %1")
                              .arg(object.value("error").toObject().value("message").toString());
        return decoded;
    }
    const QJsonArray choices = object.value("choices").toArray();
    if (choices.isEmpty()) {
        decoded.problem = QStringLiteral("upstream returned no choices");
        return decoded;
    }
    const QJsonObject choice = choices.first().toObject();
    if (!choice.value("message").isObject()) {
        decoded.problem = QStringLiteral("upstream returned a choice without a message");
        return decoded;
    }
    const QJsonObject message = choice.value("message").toObject();

    CanonicalAnswer answer;
    answer.id = object.value("id").toString();
    answer.model = object.value("model").toString();
    answer.parts = messageParts(message);
    answer.stopReason = stopReasonFrom(choice.value("finish_reason").toString());
    answer.usage = usageFrom(object.value("usage").toObject());
    decoded.answer = answer;
    return decoded;
}

std::unique_ptr<StreamDecoder> OpenAiDialect::streamDecoder() const
{
    return std::make_unique<OpenAiStreamDecoder>();
}

} // namespace sy::api::openai
