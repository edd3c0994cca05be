#pragma once
// ResponsesStreamWriter: a canonical stream written as OpenAI Responses events, the sequence the
// official SDKs fold into a Response: response.created, response.in_progress, then per output item
// response.output_item.added, its content events (a message: content_part.added,
// output_text.delta…, output_text.done, content_part.done; a function call:
// function_call_arguments.delta…, .done; reasoning: reasoning_summary_part.added,
// reasoning_summary_text.delta…, .done, reasoning_summary_part.done), response.output_item.done,
// and last response.completed (or response.incomplete) carrying the whole Response object. Every
// event has `event: <type>` and a `sequence_number` counting from 0. No `data: [DONE]`.
// A stream that breaks ends with response.failed (status failed, error.code stream_interrupted).
//
// Each canonical block of a known kind is one output item, numbered in order (ResponsesWire's
// ids), so the object the last event carries repeats the items the stream announced.
//
// Thread: the one that owns the attempt (gateway thread); one stream per writer.
#include "api/AnswerAccumulator.h"
#include "api/Codec.h"
#include "api/responses/ResponsesWire.h"

namespace sy::api::responses {

class ResponsesStreamWriter final : public StreamWriter {
public:
    explicit ResponsesStreamWriter(WriterOptions options);

    QByteArray write(const StreamEvent &event) override;
    QByteArray end() override;
    // Also when the stream never started: response.created comes first then, as clients need it.
    QByteArray interrupted(const QString &reason) override;

private:
    struct OpenItem {
        int blockIndex = -1;        // canonical block index
        ItemKind kind = ItemKind::None;
        int outputIndex = 0;
        QString id;
        bool summaryStarted = false;   // reasoning: a summary part was announced
    };

    QByteArray event(const QString &type, QJsonObject data);
    QByteArray start();
    QByteArray openItem(const StreamEvent &event);
    QByteArray delta(const StreamEvent &event);
    QByteArray closeItem();
    QByteArray finish();
    ResponseState state(const QString &status) const;

    WriterOptions m_options;
    QString m_responseId;
    qint64 m_createdAt = 0;
    qint64 m_sequence = 0;
    int m_outputCount = 0;
    bool m_started = false;
    bool m_finished = false;
    bool m_closed = false;          // end() or interrupted(): nothing more is written
    std::optional<OpenItem> m_open;
    AnswerAccumulator m_answer;
};

} // namespace sy::api::responses
