#pragma once
// Error bodies in the OpenAI shape (SPEC §9): {"error":{"message","type","param","code"}}.
#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace sy::api::openai {

// `type` for an HTTP status the gateway produces itself: 400 invalid_request_error,
// 401 authentication_error, 402 insufficient_quota, 403 permission_error, 404 not_found_error,
// 429 rate_limit_exceeded, 5xx api_error.
QByteArray errorTypeForStatus(int status);

// The full error body. `code` and `param` are JSON null when empty. `metadata`, when not empty,
// is added as error.metadata (e.g. the attempts of a failed chain).
QByteArray errorBody(int status, const QString &message, const QByteArray &code = {},
                     const QString &param = {}, const QJsonObject &metadata = {});

} // namespace sy::api::openai
