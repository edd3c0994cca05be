#pragma once
// Translator: what one attempt of an exchange talks to — the client's request turned into the
// channel's wire request, and the channel's answer or stream turned into the client's bytes.
// One per attempt (it holds the stream's state), made by makeTranslator() for a pair of formats:
// a pass-through when both are the same (bytes kept, only the model rewritten), otherwise a
// canonical bridge (dialect → canonical → codec). The exchange never looks inside the bodies.
//
// Thread: the gateway thread (one attempt).
#include "api/Codec.h"

#include <QJsonObject>
#include <memory>
#include <optional>

namespace sy::api {

// The client's request as every translator may need it.
struct ClientRequest {
    Format format = Format::OpenAiChat;
    QByteArray raw;               // the body as the client sent it
    QJsonObject body;             // the same, parsed
    bool stream = false;
    bool includeUsage = false;    // OpenAI: stream_options.include_usage
    // Client headers a same-format pass-through forwards (Anthropic: anthropic-version,
    // anthropic-beta); names lower-case.
    WireHeaders forwardHeaders;
    // The canonical form, parsed at ingress when a translation may be needed (or always for
    // formats whose ingress validates through it); null otherwise.
    std::shared_ptr<const CanonicalRequest> canonical;
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

} // namespace sy::api
