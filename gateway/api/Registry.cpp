// The codecs and dialects of the formats the gateway speaks, one stateless instance each.
#include "api/Codec.h"
#include "api/Translator.h"
#include "api/anthropic/AnthropicCodec.h"
#include "api/anthropic/AnthropicDialect.h"
#include "api/anthropic/AnthropicPassThrough.h"
#include "api/openai/OpenAiCodec.h"
#include "api/openai/OpenAiDialect.h"
#include "api/responses/ResponsesCodec.h"

namespace sy::api {

const IngressCodec *ingressCodec(Format format)
{
    static const openai::OpenAiCodec openAi;
    static const anthropic::AnthropicCodec anthropic;
    static const responses::ResponsesCodec responses;
    switch (format) {
    case Format::OpenAiChat: return &openAi;
    case Format::Anthropic: return &anthropic;
    case Format::OpenAiResponses: return &responses;
    case Format::Gemini: return nullptr;
    }
    return nullptr;
}

const UpstreamDialect *upstreamDialect(Format format)
{
    static const openai::OpenAiDialect openAi;
    static const anthropic::AnthropicDialect anthropic;
    switch (format) {
    case Format::OpenAiChat: return &openAi;
    case Format::Anthropic: return &anthropic;
    case Format::Gemini:
    case Format::OpenAiResponses: return nullptr;
    }
    return nullptr;
}

std::unique_ptr<Translator> makePassThrough(const ClientRequest &client, const WriterOptions &options)
{
    if (client.format == Format::Anthropic)
        return std::make_unique<anthropic::AnthropicPassThrough>(client, options);
    return nullptr;
}

} // namespace sy::api
