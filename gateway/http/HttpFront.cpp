#include "http/HttpFront.h"

#include "core/RequestId.h"
#include "http/LimitedTcpServer.h"

#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>

namespace sy::http {

namespace {

QByteArray methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get: return "GET";
    case QHttpServerRequest::Method::Put: return "PUT";
    case QHttpServerRequest::Method::Delete: return "DELETE";
    case QHttpServerRequest::Method::Post: return "POST";
    case QHttpServerRequest::Method::Head: return "HEAD";
    case QHttpServerRequest::Method::Options: return "OPTIONS";
    case QHttpServerRequest::Method::Patch: return "PATCH";
    case QHttpServerRequest::Method::Connect: return "CONNECT";
    case QHttpServerRequest::Method::Trace: return "TRACE";
    default: return "UNKNOWN";
    }
}

HttpRequest copyOut(const QHttpServerRequest &request)
{
    HttpRequest out;
    out.method = methodName(request.method());
    const QUrl url = request.url();
    out.path = url.path(QUrl::FullyDecoded).toUtf8();
    out.query = QUrlQuery(url);
    const auto headers = request.headers();
    out.headers.reserve(headers.size());
    for (const auto &[name, value] : headers)
        out.headers.append({lowerCaseHeaderName(name), value});
    out.body = request.body();
    out.peer = request.remoteAddress();
    return out;
}

// A request target that QUrl would give back unchanged as its fully decoded path, with no query:
// an origin-form path of unreserved characters, sub-delimiters, ':', '@' and '/' only.
bool isPlainPath(QByteArrayView target)
{
    if (!target.startsWith('/') || target.startsWith("//"))
        return false;
    for (const char c : target) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || QByteArrayView("-._~!$&'()*+,;=:@/").contains(c);
        if (!plain)
            return false;
    }
    return true;
}

// The handler's copy of a request read by the connection's framer; path and query as
// QtHttpServer 6.4 made them (the target parsed by QUrl, the authority from Host), without
// QUrl on the common plain path.
HttpRequest fromFramed(FramedRequest &framed, QTcpSocket *socket)
{
    HttpRequest out;
    out.method = std::move(framed.method);
    if (isPlainPath(framed.target)) {
        out.path = std::move(framed.target);
    } else {
        QUrl url = QUrl::fromEncoded(framed.target);
        if (const QByteArray host = headerValue(framed.headers, "host"); !host.isEmpty())
            url.setAuthority(QString::fromUtf8(host));
        out.path = url.path(QUrl::FullyDecoded).toUtf8();
        out.query = QUrlQuery(url);
    }
    out.headers = std::move(framed.headers);
    out.body = std::move(framed.body);
    out.peer = socket->peerAddress();
    return out;
}

QByteArray defaultErrorBody(const QByteArray &, int status, const QString &message)
{
    return QJsonDocument(QJsonObject{{"error", QJsonObject{{"message", message}, {"code", status}}}})
        .toJson(QJsonDocument::Compact);
}

QString limitMessage(int status, const FrontOptions &options)
{
    if (status == 431)
        return QStringLiteral("Request header block exceeds %1 bytes.").arg(options.maxHeaderBytes);
    if (status == 400)
        return QStringLiteral("Conflicting Content-Length / Transfer-Encoding framing.");
    return QStringLiteral("Request body exceeds the limit of %1 bytes.").arg(options.maxBodyBytes);
}

QByteArray wholeResponse(int status, const QByteArray &body, bool close)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
        + "\r\nx-request-id: " + newRequestId() + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    return out + "\r\n" + body;
}

} // namespace

HttpFront::HttpFront(FrontOptions options, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_options(std::move(options))
    , m_errorFormatter(defaultErrorBody)
{
}

HttpFront::~HttpFront() = default;

void HttpFront::route(const QByteArray &method, const QByteArray &path, Handler handler)
{
    m_routes.push_back({method, path, false, std::move(handler)});
    sortRoutes();
}

void HttpFront::routePrefix(const QByteArray &method, const QByteArray &prefix, Handler handler)
{
    m_routes.push_back({method, prefix, true, std::move(handler)});
    sortRoutes();
}

void HttpFront::sortRoutes()
{
    // Exact routes before all prefixes, then the longest prefix first, whatever the order of registration.
    std::stable_sort(m_routes.begin(), m_routes.end(), [](const Route &a, const Route &b) {
        if (a.prefix != b.prefix)
            return !a.prefix;
        return a.prefix && a.path.size() > b.path.size();
    });
}

void HttpFront::setErrorFormatter(ErrorFormatter formatter)
{
    m_errorFormatter = std::move(formatter);
}

quint16 HttpFront::listenOn(const QHostAddress &address, quint16 port)
{
    FramingLimits limits{m_options.maxHeaderBytes, m_options.maxBodyBytes};
    auto responder = [this](int status, const QByteArray &path) {
        ++m_refusals[status == 431 ? "header_too_large" : status == 413 ? "body_too_large" : "bad_framing"];
        return wholeResponse(status, m_errorFormatter(path, status, limitMessage(status, m_options)), true);
    };
    auto dispatcher = [this](FramedRequest &&framed, QTcpSocket *socket) {
        const bool http10 = framed.http10, keepAlive = framed.keepAlive, upgrade = framed.upgrade;
        serve(fromFramed(framed, socket), socket, http10, keepAlive, upgrade);
    };
    auto *server = new LimitedTcpServer(limits, m_options.connection, responder, dispatcher, this);
    if (!(m_options.reusePort ? server->listenSharingPort(address, port) : server->listen(address, port))) {
        m_error = server->errorString();
        delete server;
        return 0;
    }
    bind(server);
    m_servers.append(server);
    return server->serverPort();
}

void HttpFront::setMaxBodyBytes(qint64 bytes)
{
    m_options.maxBodyBytes = bytes;
    for (LimitedTcpServer *server : std::as_const(m_servers))
        server->setLimits({m_options.maxHeaderBytes, m_options.maxBodyBytes});
}

quint64 HttpFront::refusals(const QByteArray &reason) const
{
    return m_refusals.value(reason);
}

bool HttpFront::hostAllowed(const QByteArray &hostHeader) const
{
    if (m_options.allowRemoteHosts || hostHeader.isEmpty())
        return true;
    // What local clients send nearly always, answered without a lower-cased copy and an address
    // parse (the same answer as below: the name, then at most one ':' and a port).
    for (const QByteArrayView plain : {QByteArrayView("127.0.0.1"), QByteArrayView("localhost")}) {
        if (hostHeader.startsWith(plain)) {
            const QByteArrayView rest = QByteArrayView(hostHeader).sliced(plain.size());
            if (rest.isEmpty() || (rest.front() == ':' && !rest.sliced(1).contains(':')))
                return true;
        }
    }
    QByteArray host = hostHeader.trimmed().toLower();
    if (host.startsWith('[')) {
        const qsizetype end = host.indexOf(']');
        host = end < 0 ? QByteArray() : host.mid(1, end - 1);
    } else if (const qsizetype colon = host.lastIndexOf(':'); colon >= 0 && host.count(':') == 1) {
        host.truncate(colon);
    }
    if (host == "localhost" || host.endsWith(".localhost"))
        return true;
    const QHostAddress address(QString::fromLatin1(host));
    return !address.isNull() && address.isLoopback();
}

bool HttpFront::originAllowed(const QByteArray &origin) const
{
    if (origin.isEmpty())
        return true;
    return m_options.allowedOrigins.contains(QString::fromUtf8(origin), Qt::CaseInsensitive);
}

void HttpFront::refuse(const std::shared_ptr<ResponseSink> &sink, const QByteArray &path, int status,
                       const QString &message, const QByteArray &reason)
{
    ++m_refusals[reason];
    sink->respond(status, {{"Content-Type", "application/json"}, {"x-request-id", newRequestId()}},
                  m_errorFormatter(path, status, message));
}

bool HttpFront::handleRequest(const QHttpServerRequest &qrequest, QTcpSocket *socket)
{
    // Only for a socket whose requests QtHttpServer parsed itself: every socket accepted by a
    // LimitedTcpServer is read by its framer and served through the dispatcher instead.
    serve(copyOut(qrequest), socket, false, false, false);
    return true;
}

void HttpFront::serve(HttpRequest &&request, QTcpSocket *socket, bool http10, bool keepAlive, bool upgrade)
{
    // Every request gets its sink first, refused or not: it holds the request's place in the
    // connection's answer order.
    auto sink = std::make_shared<ResponseSink>(socket);
    if (http10)
        sink->setHttp10(keepAlive);
    if (request.header("connection").compare("close", Qt::CaseInsensitive) == 0)
        sink->setCloseAfterResponse(true);
    // QtHttpServer 6.4 closed a connection that asked for a WebSocket upgrade (no WebSocket
    // server is connected); it is answered, then closed.
    if (upgrade && request.header("upgrade").compare("websocket", Qt::CaseInsensitive) == 0)
        sink->setCloseAfterResponse(true);

    if (!http10 && !request.hasHeader("host")) {
        refuse(sink, request.path, 400, QStringLiteral("An HTTP/1.1 request must carry a Host header."),
               "missing_host");
        return;
    }
    if (!hostAllowed(request.header("host"))) {
        refuse(sink, request.path, 403, QStringLiteral("Host not allowed: only loopback names may be used."),
               "bad_host");
        return;
    }
    const QByteArray origin = request.header("origin");
    if (!originAllowed(origin)) {
        refuse(sink, request.path, 403, QStringLiteral("Origin not allowed: %1").arg(QString::fromUtf8(origin)),
               "bad_origin");
        return;
    }

    if (!origin.isEmpty()) {
        sink->setExtraHeaders({{"Access-Control-Allow-Origin", origin}, {"Vary", "Origin"}});
        if (request.method == "OPTIONS") {
            sink->respond(204, {{"Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS"},
                                {"Access-Control-Allow-Headers", "*"},
                                {"Access-Control-Max-Age", "600"}}, {});
            return;
        }
    }

    bool pathKnown = false;
    for (const Route &route : m_routes) {
        const bool match = route.prefix ? request.path.startsWith(route.path) : request.path == route.path;
        if (!match)
            continue;
        pathKnown = true;
        if (route.method != request.method)
            continue;
        route.handler(std::move(request), std::move(sink));
        return;
    }
    const int status = pathKnown ? 405 : 404;
    ++m_refusals[pathKnown ? "method_not_allowed" : "not_found"];
    const QString message = pathKnown
        ? QStringLiteral("Method %1 is not allowed on %2.").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path))
        : QStringLiteral("Unknown route: %1 %2").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path));
    sink->respond(status, {{"Content-Type", "application/json"}, {"x-request-id", newRequestId()}},
                  m_errorFormatter(request.path, status, message));
}

void HttpFront::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // handleRequest() answers every request itself; this only runs if that ever changes.
    refuse(std::make_shared<ResponseSink>(socket), request.url().path().toUtf8(), 404,
           QStringLiteral("Unknown route."), "not_found");
}

} // namespace sy::http
