#pragma once
// Translator: what one attempt of an exchange talks to — the client's request turned into the
// channel's wire request, and the channel's answer or stream turned into the client's bytes.
// One per attempt (it holds the stream's state), made by makeTranslator() for a pair of formats:
// a pass-through when both are the same (bytes kept, only the model rewritten), otherwise a
// canonical bridge (dialect → canonical → codec). The exchange never looks inside the bodies.
//
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"
#include "api/JsonBody.h"

#include <QJsonObject>
#include <memory>
#include <optional>

namespace sy::api {

// The client's request as every translator may need it.
struct ClientRequest {
    Format format = Format::OpenAiChat;
    QByteArray raw;               // the body as the client sent it
    JsonBody body;                // the same, parsed when first asked for
    bool stream = false;
    bool includeUsage = false;    // OpenAI: stream_options.include_usage
    // The canonical form, parsed at ingress when a translation may be needed (or always for
    // formats whose ingress validates through it); null otherwise.
    std::shared_ptr<const CanonicalRequest> canonical;
    // Headers of the client's that a channel of the same format gets too (anthropic-version,
    // anthropic-beta); a translated request never carries them.
    WireHeaders forwardHeaders;
};

struct TranslatedAnswer {
    QString problem;              // no usable answer (fail over); empty when `body` is the answer
    TokenUsage usage;
    QByteArray body;              // for the client
    QByteArray contentType = "application/json";
    QString text;                 // the answer's text (content logging)
};

struct TranslatedEvent {
    QByteArray out;               // bytes for the client (possibly none)
    bool content = false;         // carries content: the stream can be committed (SPEC §5)
    bool malformed = false;       // not an event of the channel's format
    bool upstreamError = false;   // the upstream reported an error in the stream
    QString errorMessage;
    std::optional<TokenUsage> usage;   // usage seen in this event (the latest wins)
    QString text;                 // answer text carried (content logging)
};

class Translator {
public:
    virtual ~Translator() = default;
    virtual WireRequest request(const QString &upstreamModel, const QString &credential) = 0;
    virtual TranslatedAnswer answer(QByteArrayView upstreamBody) = 0;
    virtual TranslatedEvent event(const SseEvent &event) = 0;
    // After the upstream body ended cleanly (including what closes a stream the upstream left open).
    virtual QByteArray endOfStream() = 0;
    // SPEC §5 interrupted-stream signal in the client's format.
    virtual QByteArray interrupted(const QString &reason) = 0;
};

// A translator for one attempt. `channel` is the channel's format; `options.publicModel` the
// attempt's public model id. Returns null when the pair cannot be served (a format without a
// codec or dialect, or a bridge without the canonical request).
std::unique_ptr<Translator> makeTranslator(const ClientRequest &client, Format channel, const WriterOptions &options);

// The byte-keeping translator of a format other than OpenAI Chat for a client and channel of that
// same format; null when the format has none (the canonical bridge serves it then).
std::unique_ptr<Translator> makePassThrough(const ClientRequest &client, const WriterOptions &options);

} // namespace sy::api
