#pragma once
// HttpFront: the gateway's (and the simulator's) HTTP server on QtHttpServer 6.4.
//
// What it guarantees before any handler runs (each a QtHttpServer 6.4 trap, see ARCHITECTURE.md):
//  - header block limit (default 64 KiB -> 431) and body limit (default 16 MiB -> 413) are
//    enforced while bytes arrive, in LimitedTcpServer, before QtHttpServer buffers them;
//  - requests are read by our own framer (LimitedTcpServer), not by QtHttpServer's parser, and
//    handed to the handler as an HttpRequest it owns;
//  - loopback bind by default; the Host header must name a loopback host unless remote hosts are
//    allowed (DNS-rebinding guard -> 403); a browser Origin that is not allowed gets 403 and no
//    CORS grant;
//  - an HTTP/1.1 request without Host gets 400 (RFC 9112 §3.2); HTTP/1.0 is answered as 1.0;
//  - handlers answer through a ResponseSink that guards the socket, and the answers on one
//    connection leave in request order however the handlers finish (pipelining);
//  - per response, backpressure water marks, and a limit for a client that stops reading
//    (FrontOptions::connection).
// Unknown routes get 404 and wrong methods 405, with a body from the error formatter.
//
// Thread: create, configure and use on one thread (the gateway thread); handlers run there.
#include "http/HttpConnection.h"
#include "http/HttpTypes.h"
#include "http/ResponseSink.h"

#include <QAbstractHttpServer>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

namespace sy::http {

struct FrontOptions {
    qsizetype maxHeaderBytes = 64 * 1024;
    qint64 maxBodyBytes = 16 * 1024 * 1024;
    // Accept any Host header (only for a user who deliberately listens on a non-loopback address).
    bool allowRemoteHosts = false;
    // SO_REUSEPORT on the listening socket: several processes may listen on the same port.
    bool reusePort = false;
    // Browser origins allowed to call the gateway, e.g. "http://localhost:5173". Empty: none.
    QStringList allowedOrigins;
    // Water marks of each response and the stalled-client limit (see ConnectionOptions).
    ConnectionOptions connection;
};

using Handler = std::function<void(HttpRequest &&request, std::shared_ptr<ResponseSink> sink)>;
// Builds the JSON error body for a front-level refusal (404, 405, 403, 413, 431) on `path`, so
// each API family can answer in its own error shape.
using ErrorFormatter = std::function<QByteArray(const QByteArray &path, int status, const QString &message)>;

class LimitedTcpServer;

class HttpFront : public QAbstractHttpServer {
    Q_OBJECT
public:
    explicit HttpFront(FrontOptions options = {}, QObject *parent = nullptr);
    ~HttpFront() override;

    // Exact-path route. `method` e.g. "POST".
    void route(const QByteArray &method, const QByteArray &path, Handler handler);
    // Route for every path that starts with `prefix` (checked after exact routes, longest first).
    void routePrefix(const QByteArray &method, const QByteArray &prefix, Handler handler);
    void setErrorFormatter(ErrorFormatter formatter);

    // Listens on address:port (port 0 = any free port). Returns the bound port, or 0 with
    // errorString() set (e.g. address in use).
    quint16 listenOn(const QHostAddress &address, quint16 port);
    QString errorString() const { return m_error; }
    // Changes the body limit at run time (a settings edit); connections opened from now on use it.
    void setMaxBodyBytes(qint64 bytes);
    const FrontOptions &options() const { return m_options; }

    // Number of requests refused before routing, by reason ("header_too_large", "body_too_large",
    // "bad_host", "missing_host", "bad_origin", "not_found"). For metrics.
    quint64 refusals(const QByteArray &reason) const;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Route {
        QByteArray method;
        QByteArray path;
        bool prefix = false;
        Handler handler;
    };
    // Checks and routes one request (http10/keepAlive/upgrade: what its request line and
    // Connection header said).
    void serve(HttpRequest &&request, QTcpSocket *socket, bool http10, bool keepAlive, bool upgrade);
    void refuse(const std::shared_ptr<ResponseSink> &sink, const QByteArray &path, int status,
                const QString &message, const QByteArray &reason);
    bool hostAllowed(const QByteArray &host) const;
    void sortRoutes();
    bool originAllowed(const QByteArray &origin) const;

    FrontOptions m_options;
    std::vector<Route> m_routes;
    ErrorFormatter m_errorFormatter;
    QString m_error;
    QHash<QByteArray, quint64> m_refusals;
    QList<LimitedTcpServer *> m_servers;
};

} // namespace sy::http
