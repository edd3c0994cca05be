#pragma once
// GeminiStreamWriter: a canonical stream as Gemini's stream of GenerateContentResponse chunks —
// one chunk per text or thought delta, a function call as one whole part when its block stops
// (Gemini never streams partial arguments), and a last chunk with finishReason and usageMetadata.
// Framed as server-sent events or, with WriterOptions::jsonArrayStream, as one JSON array.
//
// Tolerant of what a bridge may hand it: deltas without a BlockStart are written, a tool call
// still open at Finish or end() is written before the last chunk, and end() without a Finish
// writes one. Events after Finish write nothing but the array's close.
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"
#include "api/gemini/GeminiWire.h"

namespace sy::api::gemini {

class GeminiStreamWriter final : public StreamWriter {
public:
    explicit GeminiStreamWriter(WriterOptions options);

    QByteArray write(const StreamEvent &event) override;
    QByteArray end() override;
    QByteArray interrupted(const QString &reason) override;

private:
    QByteArray chunk(const QJsonArray &parts, const StreamEvent *finish);
    QByteArray flushToolCall();
    QByteArray finish(const StreamEvent &event);

    WriterOptions m_options;
    ChunkFramer m_framer;
    bool m_finished = false;
    QString m_id;
    bool m_toolCallOpen = false;
    ContentPart m_toolCall;       // the open call: arguments gathered until its block stops
    bool m_wroteToolCall = false;
    TokenUsage m_usage;
};

} // namespace sy::api::gemini
