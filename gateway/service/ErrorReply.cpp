#include "service/ErrorReply.h"

#include "api/Codec.h"
#include "api/openai/OpenAiErrors.h"

namespace sy::service {

QByteArray errorBodyIn(api::Format format, const ErrorReply &reply)
{
    if (const api::IngressCodec *codec = api::ingressCodec(format))
        return codec->errorBody(reply);
    return api::openai::errorBody(reply.status, reply.message, reply.code, reply.param, reply.metadata);
}

void sendErrorReply(http::ResponseSink &sink, const QByteArray &requestId, const ErrorReply &reply, api::Format format)
{
    http::HeaderList headers{{"Content-Type", "application/json"}, {"x-request-id", requestId}};
    if (reply.status == 429 || reply.status == 503)
        headers.emplaceBack("retry-after", QByteArray::number(std::max(1, reply.retryAfterS)));
    sink.respond(reply.status, headers, errorBodyIn(format, reply));
}

} // namespace sy::service
