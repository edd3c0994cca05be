#include "api/gemini/GeminiStreamDecoder.h"

#include "api/StreamDecoding.h"
#include "api/gemini/GeminiDialect.h"
#include "api/gemini/GeminiWire.h"

#include <QJsonArray>

namespace sy::api::gemini {

DecodedEvents GeminiStreamDecoder::decode(const SseEvent &event)
{
    DecodedEvents decoded;
    const std::optional<QJsonObject> object = eventObject(event, decoded);
    if (!object)
        return decoded;
    const QJsonObject &chunk = *object;
    if (chunk.value("error").isObject()) {
        setStreamError(decoded, chunk.value("error"));
        return decoded;
    }
    const QString blocked = member(member(chunk, "promptFeedback").toObject(), "blockReason").toString();
    if (!blocked.isEmpty()) {
        decoded.upstreamError = true;
        decoded.errorMessage = QStringLiteral("the prompt was blocked: %1").arg(blocked);
        return decoded;
    }
    if (m_finished)
        return decoded;
    std::vector<StreamEvent> &out = decoded.events;
    const QJsonValue usage = member(chunk, "usageMetadata");
    if (usage.isObject()) {
        const TokenUsage latest = usageFromMetadata(usage.toObject());
        if (latest.known)
            m_usage = latest;
    }
    const QJsonArray candidates = chunk.value("candidates").toArray();
    if (candidates.isEmpty())
        return decoded;   // usage alone (or nothing): no content yet
    const QJsonObject candidate = candidates.first().toObject();
    ensureStarted(chunk, out);
    for (const QJsonValue &part : candidate.value("content").toObject().value("parts").toArray())
        onPart(part.toObject(), out);
    const QString finish = member(candidate, "finishReason").toString();
    if (!finish.isEmpty()) {
        m_finishReason = finish;
        emitFinish(out);
    }
    return decoded;
}

std::vector<StreamEvent> GeminiStreamDecoder::finish()
{
    std::vector<StreamEvent> out;
    if (!m_started || m_finished)
        return out;
    emitFinish(out);
    return out;
}

void GeminiStreamDecoder::ensureStarted(const QJsonObject &chunk, std::vector<StreamEvent> &out)
{
    if (m_started)
        return;
    m_started = true;
    StreamEvent start = eventOf(StreamEvent::Kind::Start);
    m_id = member(chunk, "responseId").toString();
    start.id = m_id;
    start.model = member(chunk, "modelVersion").toString();
    start.usage = m_usage;
    out.push_back(start);
}

void GeminiStreamDecoder::onPart(const QJsonObject &part, std::vector<StreamEvent> &out)
{
    const QString fallbackId = m_id.isEmpty() ? QStringLiteral("call_%1").arg(m_calls)
                                              : QStringLiteral("call_%1_%2").arg(m_id).arg(m_calls);
    const std::optional<ContentPart> canonical = partFromAnswer(part, fallbackId);
    if (!canonical) {
        textDelta(ContentPart::Kind::Text, QStringLiteral("[unsupported part: %1]").arg(partKind(part)), {}, out);
        return;
    }
    if (canonical->kind != ContentPart::Kind::ToolCall) {
        textDelta(canonical->kind, canonical->text, canonical->signature, out);
        return;
    }
    ++m_calls;
    m_sawToolCall = true;
    openBlock(ContentPart::Kind::ToolCall, out, canonical->toolCallId, canonical->toolName);
    StreamEvent arguments = eventOf(StreamEvent::Kind::Delta);
    arguments.index = m_nextIndex;
    arguments.blockKind = ContentPart::Kind::ToolCall;
    arguments.argumentsDelta = canonical->argumentsJson;
    arguments.signature = canonical->signature;
    out.push_back(arguments);
    closeBlock(out);
}

void GeminiStreamDecoder::textDelta(ContentPart::Kind kind, const QString &text, const QString &signature,
                                    std::vector<StreamEvent> &out)
{
    // The empty text part of a last chunk is no content.
    if (text.isEmpty() && (signature.isEmpty() || kind != ContentPart::Kind::Thinking))
        return;
    if (!m_blockOpen || m_blockKind != kind)
        openBlock(kind, out);
    StreamEvent d = eventOf(StreamEvent::Kind::Delta);
    d.index = m_nextIndex;
    d.blockKind = kind;
    d.text = text;
    d.signature = signature;
    out.push_back(d);
}

void GeminiStreamDecoder::openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out, const QString &toolCallId,
                                    const QString &toolName)
{
    closeBlock(out);
    StreamEvent start = eventOf(StreamEvent::Kind::BlockStart);
    start.index = m_nextIndex;
    start.blockKind = kind;
    start.toolCallId = toolCallId;
    start.toolName = toolName;
    out.push_back(start);
    m_blockOpen = true;
    m_blockKind = kind;
}

void GeminiStreamDecoder::closeBlock(std::vector<StreamEvent> &out)
{
    if (!m_blockOpen)
        return;
    StreamEvent stop = eventOf(StreamEvent::Kind::BlockStop);
    stop.index = m_nextIndex++;
    stop.blockKind = m_blockKind;
    out.push_back(stop);
    m_blockOpen = false;
}

void GeminiStreamDecoder::emitFinish(std::vector<StreamEvent> &out)
{
    closeBlock(out);
    StreamEvent finish = eventOf(StreamEvent::Kind::Finish);
    finish.stopReason = stopReasonFromFinish(m_finishReason, m_sawToolCall);
    finish.usage = m_usage;
    out.push_back(finish);
    m_finished = true;
}

} // namespace sy::api::gemini
