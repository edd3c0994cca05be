#pragma once
// LimitedTcpServer: the QTcpServer handed to QtHttpServer's bind(). QtHttpServer 6.4 buffers
// whole header blocks and bodies with no limit, so every accepted socket gets a RequestFramer
// that sees each batch of bytes *before* QtHttpServer parses it (its readyRead slot is connected
// first) and follows the HTTP/1.1 framing just far enough to enforce the limits:
//   header block > maxHeaderBytes  -> 431, connection closed
//   Content-Length or chunked body > maxBodyBytes -> 413, connection closed (before buffering)
// It also answers `Expect: 100-continue` (QtHttpServer never does, and curl would stall a second).
//
// Thread: lives on the gateway thread with its HttpFront.
#include <QByteArray>
#include <QTcpServer>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace sy::http {

struct FramingLimits {
    qsizetype maxHeaderBytes = 64 * 1024;
    qint64 maxBodyBytes = 16 * 1024 * 1024;
};

struct ConnectionOptions;

// What the framer learnt about one request that QtHttpServer 6.4 does not tell its handler.
struct FramedRequest {
    bool http10 = false;     // the request line says HTTP/1.0
    bool keepAlive = false;  // a `Connection: keep-alive` token was sent
};

// Builds the complete HTTP response sent when a request is refused (431, 413, 400):
// (status, request path) -> bytes.
using LimitResponder = std::function<QByteArray(int status, const QByteArray &path)>;

class LimitedTcpServer : public QTcpServer {
    Q_OBJECT
public:
    LimitedTcpServer(FramingLimits limits, const ConnectionOptions &connection, LimitResponder responder,
                     QObject *parent = nullptr);
    ~LimitedTcpServer() override;
    // listen() with SO_REUSEPORT (and SO_REUSEADDR) set before bind, so other processes that do
    // the same can listen on the same address and port; the kernel spreads new connections
    // among them. QTcpServer has no such option: the socket is made here and handed over with
    // setSocketDescriptor(). False with errorString() set, like listen().
    bool listenSharingPort(const QHostAddress &address, quint16 port);
    QString errorString() const;
    // New limits for connections accepted from now on (open connections keep theirs).
    void setLimits(FramingLimits limits) { m_limits = limits; }

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    FramingLimits m_limits;
    std::unique_ptr<ConnectionOptions> m_connection;
    LimitResponder m_responder;
    QString m_sharingError;   // why listenSharingPort() failed (QTcpServer's own error is not settable)
};

// Incremental HTTP/1.1 request framing, only as deep as the limits need. Exposed for unit tests.
class RequestFramer {
public:
    // BadFraming: conflicting Content-Length / Transfer-Encoding headers (request smuggling) -> 400.
    enum class Verdict { Ok, HeaderTooLarge, BodyTooLarge, BadFraming, ExpectContinue };
    explicit RequestFramer(FramingLimits limits) : m_limits(limits) {}

    // Feeds the next bytes of the connection. Returns the first non-Ok verdict met (a limit,
    // or a request that waits for 100 Continue), else Ok.
    Verdict feed(QByteArrayView bytes);
    // Path of the request being framed ("" until its request line is complete).
    QByteArray currentPath() const { return m_path; }
    // Requests completed by the last feed() before the one a refusal is about: those must still
    // reach QtHttpServer and be answered first.
    int completedInLastFeed() const { return m_completedInFeed; }
    // Facts of the oldest request whose header block was framed and not yet taken, in order.
    std::optional<FramedRequest> takeFramed();

private:
    enum class State { Headers, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers };
    Verdict headersComplete();
    void requestComplete();
    qsizetype feedChunked(QByteArrayView bytes, Verdict &verdict);

    FramingLimits m_limits;
    State m_state = State::Headers;
    QByteArray m_buffer;       // header block or chunk-size/trailer line being collected
    QByteArray m_path;
    qint64 m_remaining = 0;    // body or chunk bytes still expected
    qint64 m_bodySeen = 0;     // decoded body bytes of the current chunked request
    int m_completedInFeed = 0;
    std::deque<FramedRequest> m_framed;  // bounded by the requests QtHttpServer has not handled
};

} // namespace sy::http
