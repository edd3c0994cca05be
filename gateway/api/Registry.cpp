// The codecs and dialects of the formats the gateway speaks, one stateless instance each.
#include "api/Codec.h"
#include "api/Translator.h"

namespace sy::api {

const IngressCodec *ingressCodec(Format)
{
    return nullptr;
}

const UpstreamDialect *upstreamDialect(Format)
{
    return nullptr;
}

std::unique_ptr<Translator> makePassThrough(const ClientRequest &, const WriterOptions &)
{
    return nullptr;
}

} // namespace sy::api
