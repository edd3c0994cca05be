#include "api/Translator.h"

#include "api/CanonicalBridge.h"
#include "api/openai/OpenAiPassThrough.h"

namespace sy::api {

std::unique_ptr<Translator> makeTranslator(const ClientRequest &client, Format channel, const WriterOptions &options)
{
    if (client.format == channel) {
        if (channel == Format::OpenAiChat)
            return std::make_unique<openai::OpenAiPassThrough>(client, options);
        if (std::unique_ptr<Translator> same = makePassThrough(client, options))
            return same;
    }
    const IngressCodec *codec = ingressCodec(client.format);
    const UpstreamDialect *dialect = upstreamDialect(channel);
    if (!codec || !dialect || !client.canonical)
        return nullptr;
    return std::make_unique<CanonicalBridge>(client.canonical, *codec, *dialect, options);
}

} // namespace sy::api
