#pragma once
// AnthropicStreamDecoder: an Anthropic Messages event stream to canonical stream events.
//  message_start → Start (id, model, input and cache usage); content_block_start / _delta / _stop
//  → BlockStart / Delta / BlockStop, blocks renumbered 0,1,2… in order; message_delta → Finish
//  (stop reason, usage merged with message_start's); message_stop, ping, unknown event types →
//  nothing; `error` → upstreamError; data that is not a JSON object → malformed.
// Block types the canonical model has no place for (server tool calls and results) become a text
// block `[unsupported block: TYPE]` whose own deltas are skipped. redacted_thinking becomes a
// Thinking block whose data comes as a signature delta.
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"

namespace sy::api::anthropic {

class AnthropicStreamDecoder final : public StreamDecoder {
public:
    DecodedEvents decode(const SseEvent &event) override;
    std::vector<StreamEvent> finish() override;

private:
    void ensureStarted(std::vector<StreamEvent> &out);
    void openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out, const QString &toolCallId = {},
                   const QString &toolName = {});
    void closeBlock(std::vector<StreamEvent> &out);
    void onBlockStart(const QJsonObject &block, std::vector<StreamEvent> &out);
    void onBlockDelta(const QJsonObject &delta, std::vector<StreamEvent> &out);
    void emitFinish(std::vector<StreamEvent> &out);

    bool m_started = false;
    bool m_finished = false;
    bool m_blockOpen = false;
    bool m_skipDeltas = false;    // the open block is an unsupported one: its deltas are not content
    ContentPart::Kind m_blockKind = ContentPart::Kind::Text;
    int m_nextIndex = 0;
    StopReason m_stopReason = StopReason::Unknown;
    QString m_stopSequence;
    TokenUsage m_usage;
};

} // namespace sy::api::anthropic
