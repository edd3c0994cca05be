#include "api/gemini/GeminiStreamWriter.h"

#include "api/gemini/GeminiCodec.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::gemini {

GeminiStreamWriter::GeminiStreamWriter(WriterOptions options)
    : m_options(std::move(options)), m_framer(m_options.jsonArrayStream)
{
}

QByteArray GeminiStreamWriter::write(const StreamEvent &event)
{
    if (m_finished)
        return {};
    switch (event.kind) {
    case StreamEvent::Kind::Start:
        m_id = event.id;
        if (event.usage.known)
            m_usage = event.usage;
        return {};
    case StreamEvent::Kind::BlockStart:
        if (event.blockKind != ContentPart::Kind::ToolCall)
            return flushToolCall();
        {
            QByteArray out = flushToolCall();
            m_toolCallOpen = true;
            m_toolCall = ContentPart{};
            m_toolCall.kind = ContentPart::Kind::ToolCall;
            m_toolCall.toolCallId = event.toolCallId;
            m_toolCall.toolName = event.toolName;
            return out;
        }
    case StreamEvent::Kind::Delta:
        if (event.blockKind == ContentPart::Kind::ToolCall) {
            m_toolCall.argumentsJson += event.argumentsDelta;
            if (!event.signature.isEmpty())
                m_toolCall.signature += event.signature;
            return {};
        }
        if (event.text.isEmpty() && event.signature.isEmpty())
            return {};
        {
            ContentPart part = ContentPart::textPart(event.text);
            if (event.blockKind == ContentPart::Kind::Thinking)
                part.kind = ContentPart::Kind::Thinking;
            part.signature = event.signature;
            const std::optional<QJsonObject> json = answerPartJson(part);
            if (!json)
                return {};
            QByteArray out = flushToolCall();   // before the chunk: both advance the framing
            return out + chunk(QJsonArray{*json}, nullptr);
        }
    case StreamEvent::Kind::BlockStop:
        return flushToolCall();
    case StreamEvent::Kind::Finish:
        return finish(event);
    }
    return {};
}

QByteArray GeminiStreamWriter::end()
{
    QByteArray out;
    if (!m_finished) {
        StreamEvent finishEvent;
        finishEvent.kind = StreamEvent::Kind::Finish;
        out += finish(finishEvent);
    }
    return out + m_framer.close();
}

QByteArray GeminiStreamWriter::interrupted(const QString &reason)
{
    m_finished = true;
    QByteArray out = m_framer.element(interruptedObject(reason));
    return out + m_framer.close();
}

QByteArray GeminiStreamWriter::chunk(const QJsonArray &parts, const StreamEvent *finishEvent)
{
    QJsonObject candidate{{"content", QJsonObject{{"role", "model"}, {"parts", parts}}}, {"index", 0}};
    QJsonObject body{
        {"modelVersion", m_options.publicModel},
        {"responseId", responseId(m_id, m_options.requestId)},
    };
    if (finishEvent) {
        StopReason reason = finishEvent->stopReason;
        if (reason == StopReason::Unknown && m_wroteToolCall)
            reason = StopReason::ToolUse;
        candidate.insert("finishReason", finishReasonName(reason));
        body.insert("usageMetadata", usageMetadataJson(m_usage));
    }
    body.insert("candidates", QJsonArray{candidate});
    return m_framer.element(QJsonDocument(body).toJson(QJsonDocument::Compact));
}

QByteArray GeminiStreamWriter::flushToolCall()
{
    if (!m_toolCallOpen)
        return {};
    m_toolCallOpen = false;
    m_wroteToolCall = true;
    return chunk(QJsonArray{*answerPartJson(m_toolCall)}, nullptr);
}

QByteArray GeminiStreamWriter::finish(const StreamEvent &event)
{
    QByteArray out = flushToolCall();
    m_finished = true;
    if (event.usage.known)
        m_usage = event.usage;
    // Gemini's last chunk carries an empty text part beside the finish reason.
    return out + chunk(QJsonArray{QJsonObject{{"text", ""}}}, &event);
}

} // namespace sy::api::gemini
