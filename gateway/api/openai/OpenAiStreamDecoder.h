#pragma once
// OpenAiStreamDecoder: Chat Completions chunks of one upstream stream as canonical events. Start
// comes with the first chunk; a Text block opens on the first non-empty content, a Thinking block
// on reasoning_content, one ToolCall block per tool_calls index, each closing the block before it.
// finish_reason closes the open block, but Finish is held until the usage chunk, `[DONE]` or
// finish(), so that it carries the final usage (the gateway bills from it).
//
// Thread: the one that owns the attempt (gateway thread); one stream per decoder.
#include "api/Codec.h"

#include <QSet>

namespace sy::api::openai {

class OpenAiStreamDecoder final : public StreamDecoder {
public:
    DecodedEvents decode(const SseEvent &event) override;
    std::vector<StreamEvent> finish() override;

private:
    void start(const QJsonObject &chunk, std::vector<StreamEvent> &out);
    void openBlock(ContentPart::Kind kind, std::vector<StreamEvent> &out, const QString &toolCallId = {},
                   const QString &toolName = {});
    void closeBlock(std::vector<StreamEvent> &out);
    void decodeDelta(const QJsonObject &delta, std::vector<StreamEvent> &out);
    void toolCallDelta(const QJsonObject &call, qsizetype position, std::vector<StreamEvent> &out);
    void emitFinish(std::vector<StreamEvent> &out);

    bool m_started = false;
    bool m_finishEmitted = false;
    int m_nextIndex = 0;                  // canonical index of the next block
    int m_openIndex = -1;                 // the open block, -1 when none
    ContentPart::Kind m_openKind = ContentPart::Kind::Text;
    int m_openToolCall = -1;              // the upstream tool_calls index of the open block
    QSet<int> m_seenToolCalls;           // upstream tool_calls indexes already given a block
    std::optional<StreamEvent> m_heldFinish;
    TokenUsage m_usage;                   // the latest usage seen
};

} // namespace sy::api::openai
