#include "api/anthropic/AnthropicStreamDecoder.h"

#include "api/StreamDecoding.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonDocument>

namespace sy::api::anthropic {

DecodedEvents AnthropicStreamDecoder::decode(const SseEvent &event)
{
    DecodedEvents decoded;
    const std::optional<QJsonObject> object = eventObject(event, decoded);
    if (!object)
        return decoded;
    const QJsonObject &data = *object;
    // The `event:` name is the type; a stream without names still carries it in the data.
    const QString type = event.event.isEmpty() ? data.value("type").toString() : QString::fromUtf8(event.event);
    std::vector<StreamEvent> &out = decoded.events;

    if (type == QLatin1String("error")) {
        setStreamError(decoded, data.value("error"));
        return decoded;
    }
    if (type == QLatin1String("ping") || m_finished)
        return decoded;

    if (type == QLatin1String("message_start")) {
        const QJsonObject message = data.value("message").toObject();
        m_started = true;
        mergeUsage(message.value("usage").toObject(), m_usage);
        StreamEvent start = eventOf(StreamEvent::Kind::Start);
        start.id = message.value("id").toString();
        start.model = message.value("model").toString();
        start.usage = m_usage;
        out.push_back(start);
    } else if (type == QLatin1String("content_block_start")) {
        ensureStarted(out);
        onBlockStart(data.value("content_block").toObject(), out);
    } else if (type == QLatin1String("content_block_delta")) {
        ensureStarted(out);
        onBlockDelta(data.value("delta").toObject(), out);
    } else if (type == QLatin1String("content_block_stop")) {
        ensureStarted(out);
        closeBlock(out);
    } else if (type == QLatin1String("message_delta")) {
        ensureStarted(out);
        const QJsonObject delta = data.value("delta").toObject();
        m_stopReason = stopReasonFromName(delta.value("stop_reason").toString());
        m_stopSequence = delta.value("stop_sequence").toString();
        mergeUsage(data.value("usage").toObject(), m_usage);
        emitFinish(out);
    } else if (type == QLatin1String("message_stop")) {
        // Normally after message_delta (which finished the stream); alone it finishes it.
        ensureStarted(out);
        emitFinish(out);
    }
    // Other event types: Anthropic may add new ones; clients are told to ignore them.
    return decoded;
}

std::vector<StreamEvent> AnthropicStreamDecoder::finish()
{
    std::vector<StreamEvent> out;
    if (!m_started || m_finished)
        return out;
    emitFinish(out);
    return out;
}

void AnthropicStreamDecoder::ensureStarted(std::vector<StreamEvent> &out)
{
    if (m_started)
        return;
    m_started = true;
    out.push_back(eventOf(StreamEvent::Kind::Start));
}

void AnthropicStreamDecoder::openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out,
                                       const QString &toolCallId, const QString &toolName)
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
    m_skipDeltas = false;
}

void AnthropicStreamDecoder::closeBlock(std::vector<StreamEvent> &out)
{
    if (!m_blockOpen)
        return;
    StreamEvent stop = eventOf(StreamEvent::Kind::BlockStop);
    stop.index = m_nextIndex++;
    stop.blockKind = m_blockKind;
    out.push_back(stop);
    m_blockOpen = false;
    m_skipDeltas = false;
}

void AnthropicStreamDecoder::onBlockStart(const QJsonObject &block, std::vector<StreamEvent> &out)
{
    const QString type = block.value("type").toString();
    auto delta = [&](auto fill) {
        StreamEvent d = eventOf(StreamEvent::Kind::Delta);
        d.index = m_nextIndex;
        d.blockKind = m_blockKind;
        fill(d);
        out.push_back(d);
    };
    if (type == QLatin1String("text")) {
        openBlock(ContentPart::Kind::Text, out);
        const QString text = block.value("text").toString();
        if (!text.isEmpty())
            delta([&](StreamEvent &d) { d.text = text; });
    } else if (type == QLatin1String("thinking")) {
        openBlock(ContentPart::Kind::Thinking, out);
        const QString text = block.value("thinking").toString();
        if (!text.isEmpty())
            delta([&](StreamEvent &d) { d.text = text; });
    } else if (type == QLatin1String("redacted_thinking")) {
        openBlock(ContentPart::Kind::Thinking, out);
        delta([&](StreamEvent &d) { d.signature = block.value("data").toString(); });
    } else if (type == QLatin1String("tool_use")) {
        openBlock(ContentPart::Kind::ToolCall, out, block.value("id").toString(), block.value("name").toString());
        const QJsonObject input = block.value("input").toObject();
        if (!input.isEmpty())
            delta([&](StreamEvent &d) { d.argumentsDelta = QJsonDocument(input).toJson(QJsonDocument::Compact); });
    } else {
        openBlock(ContentPart::Kind::Text, out);
        delta([&](StreamEvent &d) { d.text = QStringLiteral("[unsupported block: %1]").arg(type); });
        m_skipDeltas = true;
    }
}

void AnthropicStreamDecoder::onBlockDelta(const QJsonObject &delta, std::vector<StreamEvent> &out)
{
    if (m_skipDeltas)
        return;
    const QString type = delta.value("type").toString();
    ContentPart::Kind kind;
    StreamEvent d = eventOf(StreamEvent::Kind::Delta);
    if (type == QLatin1String("text_delta")) {
        kind = ContentPart::Kind::Text;
        d.text = delta.value("text").toString();
    } else if (type == QLatin1String("thinking_delta")) {
        kind = ContentPart::Kind::Thinking;
        d.text = delta.value("thinking").toString();
    } else if (type == QLatin1String("signature_delta")) {
        kind = ContentPart::Kind::Thinking;
        d.signature = delta.value("signature").toString();
    } else if (type == QLatin1String("input_json_delta")) {
        kind = ContentPart::Kind::ToolCall;
        d.argumentsDelta = delta.value("partial_json").toString().toUtf8();
    } else {
        return;   // citations_delta and future delta types carry nothing canonical
    }
    // A delta outside a block of its kind opens one, so the canonical stream stays well formed.
    if (!m_blockOpen || m_blockKind != kind)
        openBlock(kind, out);
    d.index = m_nextIndex;
    d.blockKind = kind;
    out.push_back(d);
}

void AnthropicStreamDecoder::emitFinish(std::vector<StreamEvent> &out)
{
    closeBlock(out);
    StreamEvent finish = eventOf(StreamEvent::Kind::Finish);
    finish.stopReason = m_stopReason;
    finish.stopSequence = m_stopSequence;
    finish.usage = m_usage;
    out.push_back(finish);
    m_finished = true;
}

} // namespace sy::api::anthropic
