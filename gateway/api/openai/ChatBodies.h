#pragma once
// ChatBodies: the rewrites the gateway makes to Chat Completions bodies on their way through —
// the request sent upstream (the upstream's model name, routing fields removed, usage asked for
// on streams), a plain answer and each stream chunk (the public model id; usage kept only when
// the client asked). Done in place on the text where it is well formed (the rest of the body is
// copied byte for byte), with a full JSON round trip as the fallback. Pure functions.
#include "api/Translator.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace sy::api::openai {

// Chat Completions usage as the wire has it: prompt_tokens includes the cached tokens.
struct Usage {
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 cachedTokens = 0;     // prompt_tokens_details.cached_tokens
    bool known = false;

    TokenUsage canonical() const;
};

// The body to send upstream for `request` on a channel that names the model `upstreamModel`.
QByteArray upstreamRequestBody(const ClientRequest &request, const QString &upstreamModel);

struct PlainAnswer {
    QString problem;               // why this is no usable answer; empty when it is
    Usage usage;
    QByteArray body;               // the answer for the client (model = the public id)
};
PlainAnswer rewritePlainAnswer(QByteArrayView upstreamBody, const QString &publicModel);

struct StreamChunk {
    bool malformed = false;        // not a JSON object
    bool isError = false;          // an upstream error event
    bool hasChoices = false;       // carries at least one choice
    std::optional<Usage> usage;    // the chunk's usage, when it has one
    QByteArray data;               // the chunk for the client; empty = drop it
};
StreamChunk rewriteStreamChunk(QByteArrayView data, const QString &publicModel, bool clientWantsUsage);
// The same with the public model id already written as a JSON string (jsonString of its UTF-8),
// so a stream encodes it once rather than once per chunk.
StreamChunk rewriteStreamChunkAs(QByteArrayView data, const QString &publicModel, const QByteArray &publicModelJson,
                                 bool clientWantsUsage);

} // namespace sy::api::openai
