#pragma once
// OpenAiFormat: OpenAI Chat Completions (POST /v1/chat/completions, GET /v1/models) as written by
// the simulator: `chat.completion` bodies with usage, `chat.completion.chunk` SSE events ending
// in `data: [DONE]`, a usage chunk with empty choices when stream_options.include_usage is set,
// `tool_calls` answers, and `{"error":{"message","type","param","code"}}` error bodies (also as the
// one event of an interrupted stream). No key is checked.
#include "WireFormat.h"

namespace sy::sim {

class OpenAiFormat final : public WireFormat {
public:
    RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const override;

    QByteArray completionBody(const ChatReply &reply) const override;
    QByteArray emptyCompletionBody(const ChatReply &reply) const override;
    QByteArray errorBody(int status, const QString &message) const override;
    QByteArray modelList(const QStringList &models, const QString &owner) const override;

    QByteArray streamStart(const ChatReply &) const override { return {}; }
    QByteArray streamContent(const ChatReply &reply, qsizetype index) const override;
    QByteArray streamEnd(const ChatReply &reply) const override;
    QByteArray streamEmpty(const ChatReply &reply) const override;
    QByteArray malformedEvent(const ChatReply &reply) const override;
    QByteArray streamError(const ChatReply &reply, qsizetype sentWords, int status,
                           const QString &message) const override;

    // OpenAI's (type, code) pair for an HTTP status, e.g. 429 -> rate_limit_exceeded.
    static std::pair<QByteArrayView, QByteArrayView> errorTypeAndCode(int status);
};

} // namespace sy::sim
