#pragma once
// ApiError: an error the gateway itself answers, before each client format writes it in its own
// shape (SPEC §9). `code` is the machine-readable reason shared by every format (e.g.
// "model_not_found", "unknown_route"); each format puts it where its clients look.
#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace sy::api {

struct ApiError {
    int status = 500;
    QString message;
    QByteArray code;          // machine-readable reason; empty = none
    QString param;            // the request field at fault; empty = none
    int retryAfterS = 0;      // sent as retry-after on 429/503 (at least 1)
    QJsonObject metadata;     // extra detail (e.g. the attempts of a failed chain) when not empty
};

} // namespace sy::api
