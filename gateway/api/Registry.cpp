// The codecs and dialects of the formats the gateway speaks, one stateless instance each.
#include "api/Codec.h"
#include "api/Translator.h"
#include "api/anthropic/AnthropicCodec.h"
#include "api/anthropic/AnthropicDialect.h"
#include "api/anthropic/AnthropicPassThrough.h"
#include "api/gemini/GeminiCodec.h"
#include "api/gemini/GeminiDialect.h"
#include "api/gemini/GeminiPassThrough.h"
#include "api/openai/OpenAiCodec.h"
#include "api/openai/OpenAiDialect.h"
#include "api/responses/ResponsesCodec.h"

namespace sy::api {

const IngressCodec *ingressCodec(Format format)
{
    static const openai::OpenAiCodec openAi;
    static const anthropic::AnthropicCodec anthropic;
    static const gemini::GeminiCodec gemini;
    static const responses::ResponsesCodec responses;
    switch (format) {
    case Format::OpenAiChat: return &openAi;
    case Format::Anthropic: return &anthropic;
    case Format::Gemini: return &gemini;
    case Format::OpenAiResponses: return &responses;
    }
    return nullptr;
}

const UpstreamDialect *upstreamDialect(Format format)
{
    static const openai::OpenAiDialect openAi;
    static const anthropic::AnthropicDialect anthropic;
    static const gemini::GeminiDialect gemini;
    switch (format) {
    case Format::OpenAiChat: return &openAi;
    case Format::Anthropic: return &anthropic;
    case Format::Gemini: return &gemini;
    case Format::OpenAiResponses: return nullptr;
    }
    return nullptr;
}

std::unique_ptr<Translator> makePassThrough(const ClientRequest &client, const WriterOptions &options)
{
    if (client.format == Format::Anthropic)
        return std::make_unique<anthropic::AnthropicPassThrough>(client, options);
    if (client.format == Format::Gemini)
        return std::make_unique<gemini::GeminiPassThrough>(client, options);
    return nullptr;
}

} // namespace sy::api
