#pragma once
// OpenAI-format channels: `POST {base}/embeddings`, the client's body with `model` rewritten to
// the upstream name (routing fields removed, everything else as sent); the answer with `model`
// rewritten to the public id, byte for byte otherwise.
#include "api/embeddings/EmbeddingsDialect.h"

namespace sy::api::embeddings {

class OpenAiEmbeddings final : public EmbeddingsDialect {
public:
    QString cannotServe(const EmbeddingsRequest &) const override { return {}; }
    WireRequest request(const EmbeddingsRequest &request, const QString &upstreamModel,
                        const QString &credential) const override;
    EmbeddingsAnswer answer(const QByteArray &upstreamBody, const EmbeddingsRequest &request,
                            const QString &publicModel) const override;
};

} // namespace sy::api::embeddings
