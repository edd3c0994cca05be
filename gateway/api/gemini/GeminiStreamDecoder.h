#pragma once
// GeminiStreamDecoder: Gemini's :streamGenerateContent?alt=sse chunks to canonical stream events.
// Each event's data is a whole GenerateContentResponse: the first chunk with a candidate starts
// the stream (id from responseId, model from modelVersion); text parts are deltas of a Text block
// (thought parts of a Thinking block), a block closing when the kind changes; a functionCall part
// is one whole ToolCall block (start, its arguments as one delta, stop); a finishReason ends the
// stream with Finish (usageMetadata of the latest chunk that had one); later chunks add nothing.
// `{"error":…}` or promptFeedback.blockReason → upstreamError; data that is not a JSON object →
// malformed. Part kinds the canonical model has no place for become `[unsupported part: KIND]`.
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"

namespace sy::api::gemini {

class GeminiStreamDecoder final : public StreamDecoder {
public:
    DecodedEvents decode(const SseEvent &event) override;
    std::vector<StreamEvent> finish() override;

private:
    void ensureStarted(const QJsonObject &chunk, std::vector<StreamEvent> &out);
    void onPart(const QJsonObject &part, std::vector<StreamEvent> &out);
    void textDelta(ContentPart::Kind kind, const QString &text, const QString &signature, std::vector<StreamEvent> &out);
    void openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out, const QString &toolCallId = {},
                   const QString &toolName = {});
    void closeBlock(std::vector<StreamEvent> &out);
    void emitFinish(std::vector<StreamEvent> &out);

    bool m_started = false;
    bool m_finished = false;
    bool m_blockOpen = false;
    ContentPart::Kind m_blockKind = ContentPart::Kind::Text;
    int m_nextIndex = 0;
    int m_calls = 0;
    bool m_sawToolCall = false;
    QString m_id;
    QString m_finishReason;
    TokenUsage m_usage;
};

} // namespace sy::api::gemini
