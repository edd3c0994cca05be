#include "api/Canonical.h"

namespace sy::api {

std::optional<Format> channelFormatFromName(const QString &name)
{
    if (name == QLatin1String("openai"))
        return Format::OpenAiChat;
    if (name == QLatin1String("anthropic"))
        return Format::Anthropic;
    if (name == QLatin1String("gemini"))
        return Format::Gemini;
    return std::nullopt;
}

const char *formatName(Format format)
{
    switch (format) {
    case Format::OpenAiChat: return "openai";
    case Format::Anthropic: return "anthropic";
    case Format::Gemini: return "gemini";
    case Format::OpenAiResponses: return "openai-responses";
    }
    return "unknown";
}

} // namespace sy::api
