#include "api/anthropic/AnthropicStreamWriter.h"

#include "api/anthropic/AnthropicCodec.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonArray>

namespace sy::api::anthropic {

namespace {

// Only text, thinking and tool calls are answer blocks; anything else is written as text.
ContentPart::Kind answerBlockKind(ContentPart::Kind kind)
{
    return kind == ContentPart::Kind::Thinking || kind == ContentPart::Kind::ToolCall ? kind : ContentPart::Kind::Text;
}

} // namespace

AnthropicStreamWriter::AnthropicStreamWriter(WriterOptions options) : m_options(std::move(options)) {}

QByteArray AnthropicStreamWriter::write(const StreamEvent &event)
{
    if (m_finished)
        return {};
    QByteArray out;
    if (!m_started)
        out += start(event);
    switch (event.kind) {
    case StreamEvent::Kind::Start:
        break;
    case StreamEvent::Kind::BlockStart:
        out += closeBlock();
        out += openBlock(event);
        break;
    case StreamEvent::Kind::Delta:
        if (!m_blockOpen || m_blockKind != answerBlockKind(event.blockKind)) {
            out += closeBlock();
            out += openBlock(event);
        }
        out += delta(event);
        break;
    case StreamEvent::Kind::BlockStop:
        out += closeBlock();
        break;
    case StreamEvent::Kind::Finish:
        out += finish(event);
        break;
    }
    return out;
}

QByteArray AnthropicStreamWriter::end()
{
    if (m_finished)
        return {};
    QByteArray out;
    if (!m_started)
        out += start(StreamEvent{});
    StreamEvent finishEvent;
    finishEvent.kind = StreamEvent::Kind::Finish;
    return out + finish(finishEvent);
}

QByteArray AnthropicStreamWriter::interrupted(const QString &reason)
{
    m_finished = true;
    return interruptedEvent(reason);
}

QByteArray AnthropicStreamWriter::start(const StreamEvent &event)
{
    m_started = true;
    // A synthesised Start (the event is not one) carries no id or usage of its own.
    const bool real = event.kind == StreamEvent::Kind::Start;
    if (real)
        m_usage = event.usage;
    const QJsonObject message{
        {"id", messageId(real ? event.id : QString(), m_options.requestId)},
        {"type", "message"},
        {"role", "assistant"},
        {"model", m_options.publicModel},
        {"content", QJsonArray{}},
        {"stop_reason", QJsonValue::Null},
        {"stop_sequence", QJsonValue::Null},
        {"usage", usageJson(m_usage)},
    };
    return sseEvent("message_start", QJsonObject{{"type", "message_start"}, {"message", message}})
        + sseEvent("ping", QJsonObject{{"type", "ping"}});
}

QByteArray AnthropicStreamWriter::openBlock(const StreamEvent &event)
{
    QJsonObject block;
    m_blockKind = answerBlockKind(event.blockKind);
    switch (m_blockKind) {
    case ContentPart::Kind::Thinking:
        block = {{"type", "thinking"}, {"thinking", ""}};
        break;
    case ContentPart::Kind::ToolCall:
        block = {{"type", "tool_use"}, {"id", event.toolCallId}, {"name", event.toolName}, {"input", QJsonObject{}}};
        m_wroteToolCall = true;
        break;
    default:
        block = {{"type", "text"}, {"text", ""}};
        break;
    }
    m_blockOpen = true;
    return sseEvent("content_block_start",
                    QJsonObject{{"type", "content_block_start"}, {"index", m_nextIndex}, {"content_block", block}});
}

QByteArray AnthropicStreamWriter::closeBlock()
{
    if (!m_blockOpen)
        return {};
    m_blockOpen = false;
    const int index = m_nextIndex++;
    return sseEvent("content_block_stop", QJsonObject{{"type", "content_block_stop"}, {"index", index}});
}

QByteArray AnthropicStreamWriter::delta(const StreamEvent &event)
{
    auto deltaEvent = [this](const QJsonObject &delta) {
        return sseEvent("content_block_delta",
                        QJsonObject{{"type", "content_block_delta"}, {"index", m_nextIndex}, {"delta", delta}});
    };
    switch (m_blockKind) {
    case ContentPart::Kind::Thinking: {
        QByteArray out;
        if (!event.text.isEmpty())
            out += deltaEvent({{"type", "thinking_delta"}, {"thinking", event.text}});
        if (!event.signature.isEmpty())
            out += deltaEvent({{"type", "signature_delta"}, {"signature", event.signature}});
        return out;
    }
    case ContentPart::Kind::ToolCall:
        if (event.argumentsDelta.isEmpty())
            return {};
        return deltaEvent({{"type", "input_json_delta"}, {"partial_json", QString::fromUtf8(event.argumentsDelta)}});
    default:
        if (event.text.isEmpty())
            return {};
        return deltaEvent({{"type", "text_delta"}, {"text", event.text}});
    }
}

QByteArray AnthropicStreamWriter::finish(const StreamEvent &event)
{
    QByteArray out = closeBlock();
    m_finished = true;
    if (event.usage.known)
        m_usage = event.usage;
    StopReason reason = event.stopReason;
    if (reason == StopReason::Unknown && m_wroteToolCall)
        reason = StopReason::ToolUse;
    const QJsonValue stopSequence = reason == StopReason::StopSequence && !event.stopSequence.isEmpty()
        ? QJsonValue(event.stopSequence) : QJsonValue(QJsonValue::Null);
    // Anthropic's message_delta usage is cumulative: output tokens, and (in current API versions)
    // the input and cache counts again.
    out += sseEvent("message_delta",
                    QJsonObject{{"type", "message_delta"},
                                {"delta", QJsonObject{{"stop_reason", stopReasonName(reason)}, {"stop_sequence", stopSequence}}},
                                {"usage", usageJson(m_usage)}});
    out += sseEvent("message_stop", QJsonObject{{"type", "message_stop"}});
    return out;
}

} // namespace sy::api::anthropic
