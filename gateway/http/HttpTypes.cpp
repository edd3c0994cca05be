#include "http/HttpTypes.h"

namespace sy::http {

QByteArray headerValue(const HeaderList &headers, QByteArrayView name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QByteArray lowerCaseHeaderName(QByteArrayView name)
{
    // Requests of the official SDKs and coding agents, and answers of the providers.
    static const QByteArray kCommon[] = {
        QByteArrayLiteral("host"), QByteArrayLiteral("user-agent"), QByteArrayLiteral("accept"),
        QByteArrayLiteral("accept-encoding"), QByteArrayLiteral("accept-language"),
        QByteArrayLiteral("content-type"), QByteArrayLiteral("content-length"),
        QByteArrayLiteral("connection"), QByteArrayLiteral("keep-alive"), QByteArrayLiteral("authorization"),
        QByteArrayLiteral("x-api-key"), QByteArrayLiteral("x-goog-api-key"), QByteArrayLiteral("anthropic-version"),
        QByteArrayLiteral("anthropic-beta"), QByteArrayLiteral("x-stainless-lang"),
        QByteArrayLiteral("x-stainless-package-version"), QByteArrayLiteral("x-stainless-os"),
        QByteArrayLiteral("x-stainless-arch"), QByteArrayLiteral("x-stainless-runtime"),
        QByteArrayLiteral("x-stainless-runtime-version"), QByteArrayLiteral("x-stainless-retry-count"),
        QByteArrayLiteral("x-stainless-timeout"), QByteArrayLiteral("x-goog-api-client"),
        QByteArrayLiteral("transfer-encoding"), QByteArrayLiteral("date"), QByteArrayLiteral("server"),
        QByteArrayLiteral("x-request-id"), QByteArrayLiteral("request-id"), QByteArrayLiteral("cache-control"),
        QByteArrayLiteral("vary"), QByteArrayLiteral("retry-after"),
    };
    char lower[32];
    if (name.size() > qsizetype(sizeof lower))
        return name.toByteArray().toLower();  // ASCII letters only, as below
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char c = name[i];
        lower[i] = (c >= 'A' && c <= 'Z') ? char(c + ('a' - 'A')) : c;
    }
    const QByteArrayView lowered(lower, name.size());
    for (const QByteArray &common : kCommon) {
        if (common.size() == lowered.size() && QByteArrayView(common) == lowered)
            return common;
    }
    return lowered.toByteArray();
}

bool HttpRequest::hasHeader(QByteArrayView name) const
{
    for (const auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

QByteArrayView reasonPhraseView(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 425: return "Too Early";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
    }
}

QByteArray reasonPhrase(int status)
{
    return reasonPhraseView(status).toByteArray();
}

} // namespace sy::http
