#pragma once
// AnthropicPassThrough: an Anthropic client served by an Anthropic channel. The bytes pass as they
// came — unknown fields, server tools, betas all survive — with only the model named for each
// side: the upstream's name in the request, the public model id in the answer and in
// message_start. Stream events are told apart by their `event:` name; content deltas, the bulk of
// a stream, are never parsed.
// Thread: the gateway thread (one attempt).
#include "api/Translator.h"

namespace sy::api::anthropic {

class AnthropicPassThrough final : public Translator {
public:
    AnthropicPassThrough(ClientRequest client, WriterOptions options);

    // `model` rewritten to `upstreamModel` (added when the client named only `models`), `models`
    // and `provider` dropped, every other byte kept (a JSON round trip only when the text has a
    // key written with escapes). Headers: the client's anthropic-version (or 2023-06-01) and
    // anthropic-beta, x-api-key when `credential` is not empty.
    WireRequest request(const QString &upstreamModel, const QString &credential) override;
    // Top-level `model` rewritten to the public id; a problem when the body is not a JSON object
    // or has no content blocks.
    TranslatedAnswer answer(QByteArrayView upstreamBody) override;
    // The event as it came, message_start's message.model rewritten; content from the first
    // content block on; usage from message_start (input, cache) merged with message_delta
    // (output); an `error` event is an upstream error (nothing written: the exchange decides).
    TranslatedEvent event(const SseEvent &event) override;
    // Nothing: message_stop came through.
    QByteArray endOfStream() override { return {}; }
    QByteArray interrupted(const QString &reason) override;

private:
    // Rewrites message.model in `data` and takes the usage; malformed when there is no message object.
    TranslatedEvent messageStart(QByteArray &data);

    ClientRequest m_client;
    WriterOptions m_options;
    bool m_content = false;
    TokenUsage m_usage;
};

} // namespace sy::api::anthropic
