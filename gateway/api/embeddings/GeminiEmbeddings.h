#pragma once
// Gemini-format channels: `POST {base}/models/{upstream}:batchEmbedContents` with x-goog-api-key,
// one request per input text (`outputDimensionality` from `dimensions`); the `embeddings` answer
// turned into OpenAI's list shape, base64 (little-endian float32) when the client asked for it.
// Gemini counts no tokens: the usage is estimatedPromptTokens(). Token-array input cannot be sent.
#include "api/embeddings/EmbeddingsDialect.h"

namespace sy::api::embeddings {

class GeminiEmbeddings final : public EmbeddingsDialect {
public:
    QString cannotServe(const EmbeddingsRequest &request) const override;
    WireRequest request(const EmbeddingsRequest &request, const QString &upstreamModel,
                        const QString &credential) const override;
    EmbeddingsAnswer answer(const QByteArray &upstreamBody, const EmbeddingsRequest &request,
                            const QString &publicModel) const override;
};

} // namespace sy::api::embeddings
