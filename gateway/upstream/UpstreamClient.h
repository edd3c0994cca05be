#pragma once
// UpstreamClient: sends one HTTP request to an upstream provider and streams the answer back.
// The production implementation is CurlUpstreamClient (libcurl multi on the Qt event loop).
//
// Contract (every implementation):
//  - send() never calls the handler synchronously; callbacks arrive later on the thread that
//    called send() (the gateway thread), in order: onHeaders once, onChunk zero or more times,
//    then exactly one of onComplete / onError. onError may also come without onHeaders.
//  - cancel(id) may be called at any time, including from inside a callback of that transfer;
//    after it returns, the handler of that transfer is never called again. Unknown or finished
//    ids are ignored.
//  - The handler must stay alive until the terminal callback or cancel().
#include "http/HttpTypes.h"

#include <QByteArray>
#include <QString>
#include <chrono>

namespace sy::upstream {

using http::HeaderList;

struct UpstreamRequest {
    QByteArray method = "POST";
    QByteArray url;           // absolute http:// or https:// URL
    HeaderList headers;       // sent as given (no Host/Content-Length needed)
    QByteArray body;
    std::chrono::milliseconds connectTimeout{10'000};
    // From the moment the request is fully sent until the first response byte.
    std::chrono::milliseconds firstByteTimeout{30'000};
    // Longest silence between two received pieces of the response after the first byte.
    std::chrono::milliseconds idleTimeout{60'000};
    bool verifyTls = true;    // false: no peer or host name verification (opt-in per channel)
    // PEM file of the certificate authorities to trust instead of the system store; empty = the
    // system store.
    QByteArray caFile;
    // Proxy URL for this request ("http://host:port"); empty = the environment's https_proxy /
    // http_proxy / no_proxy, as the curl tool reads them.
    QByteArray proxy;
    // The answer is relayed to the client as it arrives, possibly for minutes (a streamed
    // completion). LaneUpstreamClient serves these after the short requests.
    bool streamed = false;
};

enum class UpstreamErrorKind {
    Connect,           // DNS failure, refused, unreachable, connect timeout, TLS handshake failure
    FirstByteTimeout,  // connected and sent, no response byte within firstByteTimeout
    IdleTimeout,       // response started, then silence longer than idleTimeout
    Reset,             // connection closed or reset before the response was complete
    // A reused keep-alive connection closed after the request was written and before any
    // response byte. The upstream may have received (and billed) the request, so it is never
    // re-sent silently: this attempt ends here and failover decides what happens next.
    ReusedConnectionLost,
    Protocol,          // malformed HTTP from the upstream
    // The gateway itself could not open a connection: it is out of file descriptors (its
    // open-file limit or the system's) or memory. Not the upstream's fault: no channel is
    // penalised for it.
    LocalResources,
    Other,
};

struct UpstreamError {
    UpstreamErrorKind kind = UpstreamErrorKind::Other;
    QString message;   // human readable, no secrets
};

// Stable lower-case name of an error kind for logs and traces ("connect", "first_byte_timeout", ...).
const char *errorKindName(UpstreamErrorKind kind);

class StreamHandler {
public:
    virtual ~StreamHandler() = default;
    virtual void onHeaders(int status, const HeaderList &headers) = 0;  // names lower-cased
    virtual void onChunk(const QByteArray &bytes) = 0;                  // body bytes as they arrive
    virtual void onComplete() = 0;
    virtual void onError(const UpstreamError &error) = 0;
};

using TransferId = quint64;

class UpstreamClient {
public:
    virtual ~UpstreamClient() = default;
    virtual TransferId send(UpstreamRequest request, StreamHandler *handler) = 0;
    virtual void cancel(TransferId id) = 0;
    // Backpressure: stop receiving the response of `id` (the upstream's own flow control then
    // holds the rest) until resume(id). May be called from inside that transfer's callbacks; the
    // current chunk is still delivered. While paused, no idle or first-byte deadline runs.
    // resume() takes effect on a later event-loop pass, never calling the handler from inside
    // resume() itself. Unknown, finished or cancelled ids are ignored, as are repeated calls.
    // An implementation that cannot pause ignores both (the caller then buffers).
    virtual void pause(TransferId) {}
    virtual void resume(TransferId) {}
    // Transfers started and not yet finished or cancelled.
    virtual int activeTransfers() const = 0;
};

} // namespace sy::upstream
