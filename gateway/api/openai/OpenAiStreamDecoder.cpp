#include "api/openai/OpenAiStreamDecoder.h"

#include "api/openai/OpenAiWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::openai {

void OpenAiStreamDecoder::start(const QJsonObject &chunk, std::vector<StreamEvent> &out)
{
    if (m_started)
        return;
    m_started = true;
    StreamEvent event;
    event.kind = StreamEvent::Kind::Start;
    event.id = chunk.value("id").toString();
    event.model = chunk.value("model").toString();
    out.push_back(event);
}

void OpenAiStreamDecoder::openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out,
                                    const QString &toolCallId, const QString &toolName)
{
    closeBlock(out);
    m_openIndex = m_nextIndex++;
    m_openKind = kind;
    StreamEvent event;
    event.kind = StreamEvent::Kind::BlockStart;
    event.index = m_openIndex;
    event.blockKind = kind;
    event.toolCallId = toolCallId;
    event.toolName = toolName;
    out.push_back(event);
}

void OpenAiStreamDecoder::closeBlock(std::vector<StreamEvent> &out)
{
    if (m_openIndex < 0)
        return;
    StreamEvent event;
    event.kind = StreamEvent::Kind::BlockStop;
    event.index = m_openIndex;
    event.blockKind = m_openKind;
    out.push_back(event);
    m_openIndex = -1;
    m_openToolCall = -1;
}

void OpenAiStreamDecoder::toolCallDelta(const QJsonObject &call, qsizetype position, std::vector<StreamEvent> &out)
{
    const int toolIndex = call.value("index").toInt(int(position));
    const QJsonObject function = call.value("function").toObject();
    if (m_openIndex < 0 || m_openKind != ContentPart::Kind::ToolCall || m_openToolCall != toolIndex) {
        // A call whose block was closed already cannot be reopened (blocks do not interleave);
        // OpenAI sends each call's pieces together, so such pieces are dropped.
        if (m_seenToolCalls.contains(toolIndex))
            return;
        m_seenToolCalls.insert(toolIndex);
        openBlock(ContentPart::Kind::ToolCall, out, call.value("id").toString(), function.value("name").toString());
        m_openToolCall = toolIndex;
    }
    const QByteArray arguments = function.value("arguments").toString().toUtf8();
    if (arguments.isEmpty())
        return;
    StreamEvent event;
    event.kind = StreamEvent::Kind::Delta;
    event.index = m_openIndex;
    event.blockKind = ContentPart::Kind::ToolCall;
    event.argumentsDelta = arguments;
    out.push_back(event);
}

void OpenAiStreamDecoder::decodeDelta(const QJsonObject &delta, std::vector<StreamEvent> &out)
{
    auto textDelta = [&](ContentPart::Kind kind, const QString &text) {
        if (text.isEmpty())
            return;
        if (m_openIndex < 0 || m_openKind != kind)
            openBlock(kind, out);
        StreamEvent event;
        event.kind = StreamEvent::Kind::Delta;
        event.index = m_openIndex;
        event.blockKind = kind;
        event.text = text;
        out.push_back(event);
    };
    QString reasoning = delta.value("reasoning_content").toString();
    if (reasoning.isEmpty())
        reasoning = delta.value("reasoning").toString();   // vLLM's and OpenRouter's name for it
    textDelta(ContentPart::Kind::Thinking, reasoning);
    textDelta(ContentPart::Kind::Text, delta.value("content").toString());
    textDelta(ContentPart::Kind::Text, delta.value("refusal").toString());
    const QJsonArray calls = delta.value("tool_calls").toArray();
    for (qsizetype i = 0; i < calls.size(); ++i)
        toolCallDelta(calls.at(i).toObject(), i, out);
}

void OpenAiStreamDecoder::emitFinish(std::vector<StreamEvent> &out)
{
    if (m_finishEmitted)
        return;
    closeBlock(out);
    StreamEvent held = m_heldFinish.value_or(StreamEvent{});
    held.kind = StreamEvent::Kind::Finish;
    held.usage = m_usage;
    out.push_back(held);
    m_finishEmitted = true;
}

DecodedEvents OpenAiStreamDecoder::decode(const SseEvent &event)
{
    DecodedEvents decoded;
    const QByteArray data = event.data.trimmed();
    if (m_finishEmitted || data.isEmpty())
        return decoded;
    if (data == "[DONE]") {
        start(QJsonObject{}, decoded.events);
        emitFinish(decoded.events);
        return decoded;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(data);
    if (!doc.isObject()) {
        decoded.malformed = true;
        return decoded;
    }
    const QJsonObject chunk = doc.object();
    if (const QJsonValue error = chunk.value("error"); !error.isUndefined() && !error.isNull()) {
        decoded.upstreamError = true;
        decoded.errorMessage = error.isObject() ? error.toObject().value("message").toString() : error.toString();
        if (decoded.errorMessage.isEmpty())
            decoded.errorMessage = QString::fromUtf8(QJsonDocument(chunk).toJson(QJsonDocument::Compact));
        return decoded;
    }

    start(chunk, decoded.events);
    const QJsonArray choices = chunk.value("choices").toArray();
    // One choice is asked for (n is never sent); others would be a second answer, not this one.
    if (!choices.isEmpty() && !m_heldFinish) {
        const QJsonObject choice = choices.first().toObject();
        decodeDelta(choice.value("delta").toObject(), decoded.events);
        if (const QJsonValue reason = choice.value("finish_reason"); reason.isString()) {
            closeBlock(decoded.events);
            StreamEvent held;
            held.stopReason = stopReasonFrom(reason.toString());
            m_heldFinish = held;
        }
    }
    if (const QJsonValue usage = chunk.value("usage"); usage.isObject()) {
        m_usage = usageFrom(usage.toObject());
        // The usage that comes with or after finish_reason is the final one: Finish can go now.
        if (m_heldFinish)
            emitFinish(decoded.events);
    }
    return decoded;
}

std::vector<StreamEvent> OpenAiStreamDecoder::finish()
{
    std::vector<StreamEvent> out;
    if (!m_started || m_finishEmitted)
        return out;   // nothing came: no answer to close
    emitFinish(out);
    return out;
}

} // namespace sy::api::openai
