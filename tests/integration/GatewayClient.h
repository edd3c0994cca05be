#pragma once
// GatewayClient: a minimal HTTP/1.1 client on a QTcpSocket for the gateway's end-to-end tests.
// It never retries, pools or hides a cut connection, so a test sees exactly what the gateway
// wrote: the status line, the headers, the de-chunked body as it arrives (SSE events one by one),
// and whether the connection closed. It can also disconnect mid-response and send raw bytes.
// Thread: the test's thread, with its event loop (every wait is bounded and processes events).
#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QTcpSocket>
#include <chrono>

namespace sy::integration {

using RequestHeaders = QList<QPair<QByteArray, QByteArray>>;

class GatewayClient {
public:
    explicit GatewayClient(quint16 port);

    // Connects and sends one request with Host (unless given in `headers`), Content-Type and
    // Content-Length. Returns at once.
    void send(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
              const RequestHeaders &headers = {});
    // Connects and sends `bytes` as they are (for malformed or oversized requests).
    void sendRaw(const QByteArray &bytes);

    // Bounded waits, processing events. Each returns whether its condition holds.
    bool waitForHeaders(std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Until the body holds at least `count` SSE `data:` events (or the response ended).
    bool waitForEvents(qsizetype count, std::chrono::milliseconds limit = std::chrono::seconds(5));
    // Until the response is complete or the connection closed.
    bool waitForEnd(std::chrono::milliseconds limit = std::chrono::seconds(5));

    bool hasHeaders() const { return m_headerEnd >= 0; }
    int status() const { return m_status; }
    // First header of that name (case-insensitive), empty if absent.
    QByteArray header(const QByteArray &name) const;
    bool hasHeader(const QByteArray &name) const;
    // Names (lower case) of every response header.
    QList<QByteArray> headerNames() const;
    QByteArray body() const { return m_body; }
    QJsonObject json() const;                       // the body as a JSON object (empty if not)
    bool isChunked() const { return m_chunked; }
    bool isComplete() const { return m_complete; } // Content-Length reached or final chunk seen
    bool isClosed() const { return m_closed; }     // the server closed or reset the connection
    qint64 elapsedMs() const { return m_clock.elapsed(); }

    // The `data: ` payloads of the SSE body, in order.
    QList<QByteArray> sseData() const;

    // Drops the connection at once (a client that goes away mid-response).
    void disconnect() { m_socket.abort(); }

private:
    void onReadyRead();
    void parse();

    quint16 m_port;
    QTcpSocket m_socket;
    QElapsedTimer m_clock;
    QByteArray m_raw;
    qsizetype m_headerEnd = -1;
    int m_status = 0;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    bool m_chunked = false;
    qsizetype m_contentLength = -1;
    qsizetype m_parsed = 0;  // offset in m_raw of the next unparsed chunk
    QByteArray m_body;
    bool m_complete = false;
    bool m_closed = false;
};

} // namespace sy::integration
