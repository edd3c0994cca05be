#pragma once
// Plain request/response data of the HTTP front. A HttpRequest is a deep copy of what the client
// sent: QtHttpServer 6.4 reuses its own request object for the next request on the connection,
// so nothing of it may be kept past the handler call.
#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QUrlQuery>

namespace sy::http {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// First value of header `name` (case-insensitive), or an empty array.
QByteArray headerValue(const HeaderList &headers, QByteArrayView name);

// `name` in lower case (ASCII letters only). The names clients, SDKs and providers send with
// nearly every request come back as shared static text, without an allocation of their own.
QByteArray lowerCaseHeaderName(QByteArrayView name);

struct HttpRequest {
    QByteArray method;   // upper case: "GET", "POST", ...
    QByteArray path;     // percent-decoded path, e.g. "/v1/chat/completions"
    QUrlQuery query;
    HeaderList headers;  // names lower-cased, in arrival order
    QByteArray body;
    QHostAddress peer;

    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
    // True when the header was sent, even with an empty value.
    bool hasHeader(QByteArrayView name) const;
};

// Standard reason phrase for a status code ("Not Found"); "Unknown" for codes it does not know.
QByteArray reasonPhrase(int status);
// The same, as a view of static text.
QByteArrayView reasonPhraseView(int status);

} // namespace sy::http
