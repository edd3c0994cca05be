#include "service/ErrorReply.h"

#include "api/openai/OpenAiErrors.h"

namespace sy::service {

void sendErrorReply(http::ResponseSink &sink, const QByteArray &requestId, const ErrorReply &reply)
{
    http::HeaderList headers{{"Content-Type", "application/json"}, {"x-request-id", requestId}};
    if (reply.status == 429 || reply.status == 503)
        headers.emplaceBack("retry-after", QByteArray::number(std::max(1, reply.retryAfterS)));
    sink.respond(reply.status, headers,
                 api::openai::errorBody(reply.status, reply.message, reply.code, reply.param, reply.metadata));
}

} // namespace sy::service
