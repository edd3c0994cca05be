#pragma once
// Gateway-produced error responses in the OpenAI shape, with `x-request-id` and, for 429/503,
// `retry-after` (SPEC §6, §9).
#include "http/ResponseSink.h"

#include <QJsonObject>
#include <QString>

namespace sy::service {

struct ErrorReply {
    int status = 500;
    QString message;
    QByteArray code;          // error.code; empty = null
    QString param;            // error.param; empty = null
    int retryAfterS = 0;      // sent as retry-after on 429/503 (at least 1)
    QJsonObject metadata;     // error.metadata when not empty
};

// Writes `reply` to `sink` (no-op when the client is gone). Gateway thread.
void sendErrorReply(http::ResponseSink &sink, const QByteArray &requestId, const ErrorReply &reply);

} // namespace sy::service
