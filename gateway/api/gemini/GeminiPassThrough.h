#pragma once
// GeminiPassThrough: a Gemini client served by a gemini channel. The client's body goes up as it
// came — safetySettings, cachedContent, Gemini's own tools and anything else survive — with only
// the routing fields `models` / `provider` removed; the model is named by the path. The answer
// and each stream chunk come back as they came, `modelVersion` rewritten to the public model id.
// Thread: the gateway thread (one attempt).
#include "api/Translator.h"
#include "api/gemini/GeminiWire.h"

namespace sy::api::gemini {

class GeminiPassThrough final : public Translator {
public:
    GeminiPassThrough(ClientRequest client, WriterOptions options);

    // Path from `upstreamModel` and the client's stream flag (streams as ?alt=sse); headers
    // content-type, accept, x-goog-api-key when `credential` is not empty; the body's bytes kept
    // but for `models` and `provider` (a JSON round trip only when a key is written with escapes).
    WireRequest request(const QString &upstreamModel, const QString &credential) override;
    // The body as it came with `modelVersion` rewritten; a problem when it is not a JSON object,
    // is an error object or has no candidates. Usage from usageMetadata.
    TranslatedAnswer answer(QByteArrayView upstreamBody) override;
    // The chunk re-framed for the client (SSE as it came, or an element of the JSON array),
    // `modelVersion` rewritten; usage from its usageMetadata (the latest wins); content from the
    // first chunk whose candidate has parts; `{"error":…}` or a blocked prompt is an upstream error
    // (nothing written: the exchange decides).
    TranslatedEvent event(const SseEvent &event) override;
    // The JSON array's close; nothing for SSE.
    QByteArray endOfStream() override { return m_framer.close(); }
    QByteArray interrupted(const QString &reason) override;

private:
    ClientRequest m_client;
    WriterOptions m_options;
    ChunkFramer m_framer;
    bool m_content = false;
};

} // namespace sy::api::gemini
