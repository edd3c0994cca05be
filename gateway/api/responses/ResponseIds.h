#pragma once
// The id of the OpenAI Responses object the gateway answers a request with: derived from the
// gateway's request id, so the service can store the answer under the id the client sees.
#include <QByteArray>
#include <QString>

namespace sy::api::responses {

inline QString responseIdFor(const QByteArray &requestId)
{
    return QStringLiteral("resp_") + QString::fromLatin1(requestId.startsWith("req_") ? requestId.mid(4) : requestId);
}

} // namespace sy::api::responses
