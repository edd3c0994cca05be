#include "service/ErrorReply.h"

#include "api/Codec.h"
#include "api/openai/OpenAiErrors.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sy::service {

QString upstreamErrorMessage(const QByteArray &body)
{
    const QJsonObject obj = QJsonDocument::fromJson(body).object();
    const QJsonValue error = obj.value("error");
    QString message = error.isObject() ? error.toObject().value("message").toString() : error.toString();
    if (message.isEmpty())
        message = QString::fromUtf8(body.left(200)).simplified();
    return message.left(200);
}

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
