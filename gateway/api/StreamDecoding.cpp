#include "api/StreamDecoding.h"

#include <QJsonDocument>

namespace sy::api {

StreamEvent eventOf(StreamEvent::Kind kind)
{
    StreamEvent e;
    e.kind = kind;
    return e;
}

std::optional<QJsonObject> eventObject(const SseEvent &event, DecodedEvents &decoded)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(event.data, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        decoded.malformed = true;
        return std::nullopt;
    }
    return doc.object();
}

void setStreamError(DecodedEvents &decoded, const QJsonValue &error)
{
    decoded.upstreamError = true;
    decoded.errorMessage = error.toObject().value("message").toString();
    if (decoded.errorMessage.isEmpty())
        decoded.errorMessage = QStringLiteral("the upstream reported an error in the stream");
}

} // namespace sy::api
