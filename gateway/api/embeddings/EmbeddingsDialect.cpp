#include "api/embeddings/EmbeddingsDialect.h"

#include "api/embeddings/GeminiEmbeddings.h"
#include "api/embeddings/OpenAiEmbeddings.h"

namespace sy::api::embeddings {

const EmbeddingsDialect *embeddingsDialect(Format channelFormat)
{
    static const OpenAiEmbeddings openAi;
    static const GeminiEmbeddings gemini;
    switch (channelFormat) {
    case Format::OpenAiChat: return &openAi;
    case Format::Gemini: return &gemini;
    case Format::Anthropic:
    case Format::OpenAiResponses: break;
    }
    return nullptr;
}

qint64 estimatedPromptTokens(const EmbeddingsRequest &request)
{
    if (request.tokenInput)
        return request.inputTokens;
    return std::max<qint64>(1, (request.inputCharacters + 3) / 4);
}

} // namespace sy::api::embeddings
