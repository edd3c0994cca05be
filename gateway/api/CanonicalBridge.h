#pragma once
// CanonicalBridge: the Translator for a client and a channel of different formats. The request
// goes up through the channel's dialect from the canonical request; the answer and each stream
// event come back through the dialect's decoder to canonical, and the client's codec writes them.
#include "api/AnswerAccumulator.h"
#include "api/Translator.h"

namespace sy::api {

class CanonicalBridge final : public Translator {
public:
    // All three must outlive the bridge (the codec and dialect are singletons).
    CanonicalBridge(std::shared_ptr<const CanonicalRequest> request, const IngressCodec &codec,
                    const UpstreamDialect &dialect, WriterOptions options);

    WireRequest request(const QString &upstreamModel, const QString &credential) override;
    TranslatedAnswer answer(QByteArrayView upstreamBody) override;
    TranslatedEvent event(const SseEvent &event) override;
    QByteArray endOfStream() override;
    QByteArray interrupted(const QString &reason) override;

private:
    void writeEvents(const std::vector<StreamEvent> &events, TranslatedEvent &out);

    std::shared_ptr<const CanonicalRequest> m_request;
    const IngressCodec &m_codec;
    const UpstreamDialect &m_dialect;
    WriterOptions m_options;
    std::unique_ptr<StreamDecoder> m_decoder;
    std::unique_ptr<StreamWriter> m_writer;
    AnswerAccumulator m_streamed;   // kept only when options.onAnswer is set
};

} // namespace sy::api
