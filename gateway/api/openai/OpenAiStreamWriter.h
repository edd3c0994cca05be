#pragma once
// OpenAiStreamWriter: a canonical stream written as Chat Completions chunks, the way OpenAI sends
// them: a first chunk with {role: assistant, content: ""}, content / reasoning_content / tool_calls
// deltas, a chunk with an empty delta and the finish_reason, the usage chunk (choices: []) only
// when the client asked for it, then `data: [DONE]`. Tool calls are numbered by their order in the
// answer (delta.tool_calls[].index), not by the canonical block index.
//
// Thread: the one that owns the attempt (gateway thread); one stream per writer.
#include "api/Codec.h"

#include <QHash>

namespace sy::api::openai {

class OpenAiStreamWriter final : public StreamWriter {
public:
    explicit OpenAiStreamWriter(WriterOptions options);

    QByteArray write(const StreamEvent &event) override;
    QByteArray end() override;
    QByteArray interrupted(const QString &reason) override;

private:
    QByteArray start(const QString &id);
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null) const;
    QByteArray finish(StopReason reason, const TokenUsage &usage);

    WriterOptions m_options;
    QString m_id;
    qint64 m_created = 0;
    bool m_started = false;
    bool m_finished = false;
    bool m_closed = false;                      // end() or interrupted(): nothing more is written
    QHash<int, ContentPart::Kind> m_blockKinds; // canonical block index → its kind
    QHash<int, int> m_toolIndexes;              // canonical block index → tool call index
};

} // namespace sy::api::openai
