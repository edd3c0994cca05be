#pragma once
// OpenAiPassThrough: the Translator for an OpenAI Chat Completions client on an OpenAI-format
// channel. The bodies pass through as they came, with only the routing fields rewritten in place
// (ChatBodies): the upstream's model name going up, the public model id coming back, usage shown
// only when the client asked for it. Unknown fields survive both ways.
#include "api/Translator.h"

namespace sy::api::openai {

class OpenAiPassThrough final : public Translator {
public:
    OpenAiPassThrough(ClientRequest client, WriterOptions options);

    WireRequest request(const QString &upstreamModel, const QString &credential) override;
    TranslatedAnswer answer(QByteArrayView upstreamBody) override;
    TranslatedEvent event(const SseEvent &event) override;
    QByteArray endOfStream() override;
    QByteArray interrupted(const QString &reason) override;

private:
    ClientRequest m_client;
    WriterOptions m_options;
    QByteArray m_publicModelJson;   // the public model id as a JSON string, made at the first chunk
};

// The Chat Completions interrupted-stream event (SPEC §5), shared with the OpenAI stream writer.
QByteArray interruptedStreamEvent(const QString &reason);

} // namespace sy::api::openai
