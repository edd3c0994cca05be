#pragma once
// HttpTestClient: a minimal HTTP/1.1 client on a QTcpSocket for tests that talk to a real server
// on the loopback. Unlike QNetworkAccessManager it never retries, pools or hides a cut
// connection, so a test sees exactly what the server wrote: the status line, the headers, the
// decoded body as it arrives (SSE events one by one), and whether (and when) the connection
// closed. It can send raw bytes (malformed, split or pipelined requests), read several responses
// from one connection, and disconnect mid-response.
//
// ResponseParser is the incremental response parser underneath: Content-Length, chunked and
// close-delimited bodies; 1xx, 204 and 304 responses have no body.
//
// Thread: the test's thread, with its event loop; every wait is bounded and processes events.
#include <QByteArray>
#include <QByteArrayView>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QTcpSocket>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

namespace sy::test {

// Header fields in arrival order (the same type as the gateway's http::HeaderList).
using HeaderList = QList<QPair<QByteArray, QByteArray>>;

struct RawResponse {
    int status = 0;
    QByteArray reason;
    HeaderList headers;        // names lower-cased, in arrival order
    QByteArray body;           // decoded body (so far, while the response is incomplete)
    bool chunked = false;
    QList<QByteArray> chunks;  // each chunk's data as framed (chunked responses only)

    // First header of that name (case-insensitive), empty if absent.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
};

// Incremental HTTP/1.1 response parser. 1xx responses are returned as responses of their own.
class ResponseParser {
public:
    void feed(const QByteArray &bytes);
    // Call when the connection closed: completes a body delimited by the close.
    void finishAtClose();
    std::optional<RawResponse> take();
    bool hasResponse() const { return !m_done.empty(); }
    // The oldest response not yet taken: complete, or still arriving (headers parsed), else null.
    const RawResponse *front() const;
    // Set when the bytes are not valid HTTP/1.1 response framing.
    bool malformed() const { return m_malformed; }
    // A response has begun (status line seen) but is not complete.
    bool midResponse() const { return m_state != State::StatusAndHeaders || !m_buffer.isEmpty(); }

private:
    enum class State { StatusAndHeaders, LengthBody, UntilClose, ChunkSize, ChunkData, Trailers };
    bool step();
    bool parseHead(const QByteArray &head);
    void complete();

    State m_state = State::StatusAndHeaders;
    QByteArray m_buffer;
    RawResponse m_current;
    qint64 m_remaining = 0;
    std::deque<RawResponse> m_done;
    bool m_malformed = false;
};

// A request as bytes. Adds `Host: 127.0.0.1:<port>` unless `headers` has a Host, and
// `Content-Length` when `body` is not empty and `headers` has neither length nor encoding.
QByteArray buildRequest(QByteArrayView method, QByteArrayView target, quint16 port,
                        const HeaderList &headers = {}, QByteArrayView body = {});
// Chunked request body framing of `pieces` (with the terminating chunk).
QByteArray chunkedBody(const QList<QByteArray> &pieces);

class HttpTestClient {
public:
    // Does not connect yet: send()/sendRaw() connect, or connectToServer().
    explicit HttpTestClient(quint16 port);
    ~HttpTestClient();
    HttpTestClient(const HttpTestClient &) = delete;
    HttpTestClient &operator=(const HttpTestClient &) = delete;

    quint16 port() const { return m_port; }

    // Starts connecting to 127.0.0.1:port and restarts the clock. Returns at once.
    void connectToServer();
    bool connected() const { return m_socket->state() == QAbstractSocket::ConnectedState; }
    // Bounded wait until connected (or the attempt failed). Returns connected().
    bool waitForConnected(std::chrono::milliseconds limit = std::chrono::seconds(5));

    // Connects and sends one request with Host (unless given in `headers`), Content-Type:
    // application/json and Content-Length. Returns at once.
    void send(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
              const HeaderList &headers = {});
    // Connects and sends `bytes` as they are (for malformed or oversized requests).
    void sendRaw(QByteArrayView bytes);
    // Writes `bytes` on the current connection (no connect).
    void write(QByteArrayView bytes);

    // --- The first response on the connection (until readResponse() takes it) ---
    // Bounded waits, processing events. Each returns whether its condition holds.
    bool waitForHeaders(std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Until the body holds at least `bytes` bytes (or the response ended).
    bool waitForBody(qsizetype bytes, std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Until the body holds at least `count` SSE `data:` events (or the response ended).
    bool waitForEvents(qsizetype count, std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Until the response is complete or the connection closed.
    bool waitForEnd(std::chrono::milliseconds limit = std::chrono::seconds(5));

    bool hasHeaders() const { return m_parser.front() != nullptr; }
    int status() const;
    // First header of that name (case-insensitive), empty if absent.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
    // Names (lower case) of every response header.
    QList<QByteArray> headerNames() const;
    QByteArray body() const;                        // decoded, as far as it arrived
    QJsonObject json() const;                       // the body as a JSON object (empty if not)
    bool isChunked() const;
    bool isComplete() const { return m_parser.hasResponse(); } // framing says the body ended
    bool isClosed() const { return m_closed; }     // the server closed or reset the connection
    // The `data: ` payloads of the SSE body, in order.
    QList<QByteArray> sseData() const;

    // Milliseconds since the request was sent; and from then until the headers / the first body
    // byte / the end of the first response arrived.
    qint64 elapsedMs() const { return m_clock.elapsed(); }
    std::optional<qint64> msToHeaders() const { return m_msToHeaders; }
    std::optional<qint64> msToFirstBodyByte() const { return m_msToBody; }
    std::optional<qint64> msToComplete() const { return m_msToComplete; }

    // --- Any number of responses (pipelining, keep-alive) ---
    // Takes the next complete response, or nullopt if none arrives within `limit` (or the
    // connection closed, or the bytes are malformed).
    std::optional<RawResponse> readResponse(std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Every byte received so far.
    const QByteArray &received() const { return m_received; }
    qsizetype bytesReceived() const { return m_received.size(); }
    const ResponseParser &parser() const { return m_parser; }
    bool waitForBytes(qsizetype count, std::chrono::milliseconds limit = std::chrono::seconds(5));
    // True once the server closed (or reset) the connection, within `limit`.
    bool waitForClose(std::chrono::milliseconds limit = std::chrono::seconds(5));

    // Client-side close (FIN), or abort (RST: a client that goes away mid-response).
    void disconnectFromHost() { m_socket->disconnectFromHost(); }
    void abort() { m_socket->abort(); }
    void disconnect() { abort(); }

private:
    void onReadyRead();
    void onClosed();

    quint16 m_port;
    std::unique_ptr<QTcpSocket> m_socket;
    QElapsedTimer m_clock;
    QByteArray m_received;
    ResponseParser m_parser;
    bool m_closed = false;
    std::optional<qint64> m_msToHeaders;
    std::optional<qint64> m_msToBody;
    std::optional<qint64> m_msToComplete;
};

} // namespace sy::test
