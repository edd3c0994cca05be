#pragma once
// WireFormat: one provider API family (OpenAI Chat Completions, Anthropic Messages, Gemini
// generateContent, and the embedding endpoints) as seen by the simulator: how a request is read
// and how every kind of answer is written. ChatExchange drives the timing and calls a WireFormat
// for the bytes, so a new format is one new sibling class plus its routes.
// Thread: implementations are stateless; any thread.
#include "ChatTypes.h"
#include "http/HttpTypes.h"

#include <QStringList>
#include <optional>

namespace sy::sim {

struct RequestParse {
    std::optional<ChatRequest> request;
    QString error;     // for the error answer when request is empty
    int status = 400;  // of that answer: 400 a bad body, 401 a missing key
};

class WireFormat {
public:
    virtual ~WireFormat() = default;

    // `endpoint` is the API path without the provider prefix ("/v1beta/models/m:generateContent"):
    // some formats read the model and the stream flag from it.
    virtual RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const = 0;

    // Plain (non-stream) bodies, application/json.
    virtual QByteArray completionBody(const ChatReply &reply) const = 0;
    // A 200 answer without any choice or content (empty_200).
    virtual QByteArray emptyCompletionBody(const ChatReply &reply) const = 0;
    // Error body for an HTTP status.
    virtual QByteArray errorBody(int status, const QString &message) const = 0;
    virtual QByteArray modelList(const QStringList &models, const QString &owner) const = 0;

    // --- Streams. The bytes of one stream, in order: streamStart (with the headers), then
    // streamContent for each word, then streamEnd; or streamEmpty alone; or malformedEvent alone;
    // or some content and streamError (error_mid_stream).
    virtual QByteArray streamContentType(const ChatReply &) const { return QByteArrayLiteral("text/event-stream"); }
    // What the stream says before any content (message_start); may be empty.
    virtual QByteArray streamStart(const ChatReply &reply) const = 0;
    // Word `index` of the reply.
    virtual QByteArray streamContent(const ChatReply &reply, qsizetype index) const = 0;
    // Everything after the last word: the tool call if any, finish reason, usage when the client
    // asked, end marker.
    virtual QByteArray streamEnd(const ChatReply &reply) const = 0;
    // A whole stream without content (empty_200), sent after streamStart.
    virtual QByteArray streamEmpty(const ChatReply &reply) const = 0;
    // An event whose payload is not valid JSON (malformed_sse), sent after streamStart.
    virtual QByteArray malformedEvent(const ChatReply &reply) const = 0;
    // The error event that ends a started stream (error_mid_stream) after `sentWords` words.
    virtual QByteArray streamError(const ChatReply &reply, qsizetype sentWords, int status,
                                   const QString &message) const = 0;
};

} // namespace sy::sim
