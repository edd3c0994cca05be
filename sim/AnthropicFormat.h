#pragma once
// AnthropicFormat: Anthropic Messages (POST /v1/messages, /v1/messages/count_tokens, and
// GET /v1/models with an anthropic-version header) as written by the simulator: `message` bodies
// with text or tool_use content and usage, the named stream events (message_start,
// content_block_start, ping, content_block_delta, content_block_stop, message_delta,
// message_stop), `event: error` for an interrupted stream, and
// `{"type":"error","error":{"type","message"}}` error bodies. A request needs a key (x-api-key or
// Authorization: Bearer; any value) and max_tokens; anthropic-version is accepted, not required.
#include "WireFormat.h"

namespace sy::sim {

class AnthropicFormat final : public WireFormat {
public:
    // On /v1/messages/count_tokens max_tokens is not required.
    RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const override;

    QByteArray completionBody(const ChatReply &reply) const override;
    QByteArray emptyCompletionBody(const ChatReply &reply) const override;
    QByteArray errorBody(int status, const QString &message) const override;
    // `owner` is not part of Anthropic's list.
    QByteArray modelList(const QStringList &models, const QString &owner) const override;

    QByteArray streamStart(const ChatReply &reply) const override;
    QByteArray streamContent(const ChatReply &reply, qsizetype index) const override;
    QByteArray streamEnd(const ChatReply &reply) const override;
    QByteArray streamEmpty(const ChatReply &reply) const override;
    QByteArray malformedEvent(const ChatReply &reply) const override;
    QByteArray streamError(const ChatReply &reply, qsizetype sentWords, int status,
                           const QString &message) const override;

    // `{"input_tokens":N}`, the count_tokens answer.
    static QByteArray tokenCountBody(int inputTokens);
    // Anthropic's error type for an HTTP status, e.g. 529 -> overloaded_error.
    static QByteArrayView errorType(int status);
    // Anthropic's stop_reason for a reply's finish reason ("tool_calls" -> "tool_use").
    static QByteArrayView stopReason(const ChatReply &reply);
};

} // namespace sy::sim
