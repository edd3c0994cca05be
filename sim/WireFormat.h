#pragma once
// WireFormat: one provider API family (OpenAI Chat Completions now; Anthropic Messages and Gemini
// later) as seen by the simulator: how a request body is read and how every kind of answer is
// written. ChatExchange drives the timing and calls a WireFormat for the bytes, so a new format
// is one new sibling class plus its routes.
// Thread: implementations are stateless; any thread.
#include "ChatTypes.h"

#include <QStringList>
#include <optional>

namespace sy::sim {

struct RequestParse {
    std::optional<ChatRequest> request;
    QString error;  // for a 400 answer when request is empty
};

class WireFormat {
public:
    virtual ~WireFormat() = default;

    virtual RequestParse parseRequest(const QByteArray &body) const = 0;

    // Plain (non-stream) bodies, application/json.
    virtual QByteArray completionBody(const ChatReply &reply) const = 0;
    // A 200 answer without any choice or content (empty_200).
    virtual QByteArray emptyCompletionBody(const ChatReply &reply) const = 0;
    // Error body for an HTTP status.
    virtual QByteArray errorBody(int status, const QString &message) const = 0;
    virtual QByteArray modelList(const QStringList &models, const QString &owner) const = 0;

    // Stream bytes, text/event-stream. Word `index` of the reply (index 0 also opens the message).
    virtual QByteArray streamContent(const ChatReply &reply, qsizetype index) const = 0;
    // Everything after the last word: finish reason, usage when the client asked, end marker.
    virtual QByteArray streamEnd(const ChatReply &reply) const = 0;
    // A whole stream without content (empty_200).
    virtual QByteArray streamEmpty(const ChatReply &reply) const = 0;
    // An event whose payload is not valid JSON (malformed_sse).
    virtual QByteArray malformedEvent() const = 0;
};

} // namespace sy::sim
