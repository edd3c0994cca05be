#pragma once
// AnthropicStreamWriter: a canonical stream as Anthropic's SSE events — message_start, ping,
// content_block_start / content_block_delta / content_block_stop per block, message_delta (stop
// reason, final usage), message_stop — each `event: NAME\ndata: JSON\n\n`.
//
// Tolerant of what a bridge may hand it: a missing Start is synthesised, a Delta without an open
// block opens one, a block still open is closed before the next or at Finish, and end() without
// a Finish closes the message. Events after Finish write nothing.
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"

namespace sy::api::anthropic {

class AnthropicStreamWriter final : public StreamWriter {
public:
    explicit AnthropicStreamWriter(WriterOptions options);

    QByteArray write(const StreamEvent &event) override;
    QByteArray end() override;
    QByteArray interrupted(const QString &reason) override;

private:
    QByteArray start(const StreamEvent &event);
    QByteArray openBlock(const StreamEvent &event);
    QByteArray closeBlock();
    QByteArray delta(const StreamEvent &event);
    QByteArray finish(const StreamEvent &event);

    WriterOptions m_options;
    bool m_started = false;
    bool m_finished = false;
    bool m_blockOpen = false;
    ContentPart::Kind m_blockKind = ContentPart::Kind::Text;
    int m_nextIndex = 0;          // the client's block index: 0, 1, 2… in the order written
    bool m_wroteToolCall = false;
    TokenUsage m_usage;           // from Start, replaced by Finish's when known
};

} // namespace sy::api::anthropic
