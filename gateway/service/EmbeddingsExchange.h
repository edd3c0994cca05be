#pragma once
// EmbeddingsExchange: one `POST /v1/embeddings` request from the first upstream attempt to the
// answer. The attempt loop is its base (AttemptLoop), over the model's channels only (never
// another model, SPEC §3), with the chat routes' failover rules, capacity wait, reporting and
// money (one charge at the serving channel's prompt price). This is the embeddings part: each
// attempt goes through the channel format's EmbeddingsDialect, and a channel whose format cannot
// serve the request (anthropic; gemini for token arrays) is skipped with its reason in the trace.
// Embeddings never stream.
//
// Ownership: created by the service with `new`; deletes itself (deleteLater) when the response is
// complete or the client is gone. Thread: the gateway thread only.
#include "api/embeddings/EmbeddingsDialect.h"
#include "service/AttemptLoop.h"
#include "service/EmbeddingsCall.h"

namespace sy::service {

class EmbeddingsExchange : public AttemptLoop {
    Q_OBJECT
public:
    EmbeddingsExchange(ExchangeContext context, WorkspacePtr workspace, EmbeddingsCall call, AdmissionTicket ticket,
                       std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream, GatewayState &state,
                       const Clock &clock, QObject *parent = nullptr);

    // Plans the attempts and starts the first. Call once.
    void start();

private:
    void skipIncapableChannels();
    void sendAttempt(const PlannedAttempt &attempt) override;
    void answerBody() override;

    EmbeddingsCall m_call;
    const api::embeddings::EmbeddingsDialect *m_dialect = nullptr;   // of the attempt in progress
};

} // namespace sy::service
