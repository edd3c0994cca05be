#pragma once
// Codec: the seam every wire format lives on (ARCHITECTURE.md "Formats").
//
//  - IngressCodec, one per client format: a client body to the canonical request; a canonical
//    answer, stream and error back in that format.
//  - UpstreamDialect, one per channel format: the canonical request to the channel's wire request;
//    the channel's answer and stream events back to canonical.
//  - Translator (api/Translator.h), one per attempt: what the exchange talks to. Same format on
//    both sides is a pass-through that keeps the bytes; otherwise it joins a dialect to a codec.
//
// Codecs and dialects are stateless singletons (any thread); stream writers and decoders hold the
// state of one stream and belong to one attempt (the gateway thread).
#include "api/ApiError.h"
#include "api/Canonical.h"
#include "api/SseParser.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <functional>
#include <memory>
#include <variant>
#include <vector>

namespace sy::api {

using WireHeaders = QList<QPair<QByteArray, QByteArray>>;

// What a writer needs to know about the answer it writes.
struct WriterOptions {
    QString publicModel;          // the model id the client sees (never the upstream's name)
    QByteArray requestId;         // the gateway's id, for ids the format needs and none came
    bool includeUsage = false;    // OpenAI streams: stream_options.include_usage was asked
    bool captureText = false;     // fill TranslatedAnswer/TranslatedEvent::text (content logging)
    // Gemini :streamGenerateContent without alt=sse: the stream is one JSON array of answer
    // objects (Content-Type application/json), not server-sent events.
    bool jsonArrayStream = false;
    // Bridged translations call it once with the whole answer when it ended cleanly (a plain answer
    // decoded; a stream whose upstream body ended after its Finish). The Responses route stores it
    // for previous_response_id. Gateway thread; may be empty.
    std::function<void(const CanonicalAnswer &)> onAnswer;
    // The canonical request being answered, for formats whose answer repeats it (OpenAI Responses
    // echoes tools, tool_choice, text, ...). Set by the canonical bridge; may be null.
    std::shared_ptr<const CanonicalRequest> request;
};

// Writes one canonical stream in a client format. Each call returns the bytes to send (possibly
// none); the writer keeps whatever state the format needs (open blocks, indexes, usage so far).
class StreamWriter {
public:
    virtual ~StreamWriter() = default;
    virtual QByteArray write(const StreamEvent &event) = 0;
    // The clean end of the stream (OpenAI: `data: [DONE]`; Anthropic: nothing more than what
    // Finish wrote).
    virtual QByteArray end() = 0;
    // SPEC §5: the format's signal for a stream that broke after it began; nothing follows it.
    virtual QByteArray interrupted(const QString &reason) = 0;
};

class IngressCodec {
public:
    virtual ~IngressCodec() = default;
    virtual Format format() const = 0;
    // The client's body (already a JSON object) in canonical form, or a 400 naming the field.
    // Routing fields (`models`, `provider`) are not the codec's business and are ignored.
    virtual std::variant<CanonicalRequest, ApiError> parse(const QJsonObject &body) const = 0;
    virtual QByteArray answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const = 0;
    virtual std::unique_ptr<StreamWriter> streamWriter(const WriterOptions &options) const = 0;
    // A gateway-produced error in this format (SPEC §9).
    virtual QByteArray errorBody(const ApiError &error) const = 0;
    // Content-Type of a stream in this format.
    virtual QByteArray streamContentType() const { return "text/event-stream"; }
};

// One upstream request on the wire (the base URL is the channel's; `path` is appended to it).
struct WireRequest {
    QByteArray path;              // e.g. "/chat/completions", "/messages"
    WireHeaders headers;          // content-type, accept, auth, version headers
    QByteArray body;
};

// The result of decoding one upstream stream event.
struct DecodedEvents {
    std::vector<StreamEvent> events;
    bool malformed = false;       // not an event of this format (not JSON, wrong shape)
    bool upstreamError = false;   // the upstream reported an error in the stream
    QString errorMessage;         // with upstreamError
};

class StreamDecoder {
public:
    virtual ~StreamDecoder() = default;
    virtual DecodedEvents decode(const SseEvent &event) = 0;
    // The upstream body ended cleanly: whatever closes the canonical stream if the upstream did
    // not (open blocks, a missing Finish).
    virtual std::vector<StreamEvent> finish() = 0;
};

struct DecodedAnswer {
    std::optional<CanonicalAnswer> answer;
    QString problem;              // why there is no usable answer (fail over); empty with an answer
};

class UpstreamDialect {
public:
    virtual ~UpstreamDialect() = default;
    virtual Format format() const = 0;
    // `credential` may be empty (a channel without credentials, e.g. a local server).
    virtual WireRequest request(const CanonicalRequest &request, const QString &upstreamModel,
                                const QString &credential) const = 0;
    virtual DecodedAnswer decodeAnswer(QByteArrayView body) const = 0;
    virtual std::unique_ptr<StreamDecoder> streamDecoder() const = 0;
};

// The codec of a client format and the dialect of a channel format (never null). No channel
// speaks OpenAI Responses: its dialect is null and its clients are served through the canonical
// bridge.
const IngressCodec *ingressCodec(Format format);
const UpstreamDialect *upstreamDialect(Format format);

} // namespace sy::api
