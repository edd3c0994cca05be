#include "api/openai/OpenAiErrors.h"

#include <QJsonDocument>

namespace sy::api::openai {

QByteArray errorTypeForStatus(int status)
{
    switch (status) {
    case 400: case 405: case 413: case 415: case 422: case 431: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "insufficient_quota";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 429: return "rate_limit_exceeded";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

QByteArray errorBody(int status, const QString &message, const QByteArray &code,
                     const QString &param, const QJsonObject &metadata)
{
    QJsonObject error{
        {"message", message},
        {"type", QString::fromLatin1(errorTypeForStatus(status))},
        {"param", param.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(param)},
        {"code", code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromUtf8(code))},
    };
    if (!metadata.isEmpty())
        error.insert("metadata", metadata);
    return QJsonDocument(QJsonObject{{"error", error}}).toJson(QJsonDocument::Compact);
}

} // namespace sy::api::openai
