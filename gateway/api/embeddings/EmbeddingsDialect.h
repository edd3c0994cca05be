#pragma once
// EmbeddingsDialect: one channel format's side of `POST /v1/embeddings` — the upstream request
// for a client's EmbeddingsRequest and the upstream's answer back in OpenAI's list shape
// (`{"object":"list","data":[{"object":"embedding","index","embedding"}],"model","usage"}`).
// One stateless instance per format (any thread); the exchange picks it, the dialect never routes.
#include "api/Canonical.h"
#include "api/Codec.h"
#include "api/embeddings/EmbeddingsRequest.h"

namespace sy::api::embeddings {

struct EmbeddingsAnswer {
    QByteArray body;              // OpenAI's list shape; `model` is the public id
    qint64 promptTokens = 0;      // what the request is charged for
    QString problem;              // not empty: the answer is unusable (fails over like an empty 200)
};

class EmbeddingsDialect {
public:
    virtual ~EmbeddingsDialect() = default;
    // Why a channel of this format cannot serve `request` (for the route trace); empty when it can.
    virtual QString cannotServe(const EmbeddingsRequest &request) const = 0;
    virtual WireRequest request(const EmbeddingsRequest &request, const QString &upstreamModel,
                                const QString &credential) const = 0;
    // `upstreamBody` of a 2xx answer.
    virtual EmbeddingsAnswer answer(const QByteArray &upstreamBody, const EmbeddingsRequest &request,
                                    const QString &publicModel) const = 0;
};

// The dialect of a channel format; nullptr for a format that serves no embeddings (anthropic).
const EmbeddingsDialect *embeddingsDialect(Format channelFormat);

// The prompt tokens of `request` when the upstream counts none: a token array's length, else one
// token per four characters of text, rounded up, at least one.
qint64 estimatedPromptTokens(const EmbeddingsRequest &request);

} // namespace sy::api::embeddings
