#pragma once
// RawHttpClient: a minimal HTTP/1.1 client on a QTcpSocket for the simulator's loopback tests.
// Unlike QNetworkAccessManager it never retries, pools or hides a cut connection, so a test sees
// exactly what the server wrote: status, headers, the de-chunked body as it arrives, and whether
// (and when) the connection closed. Thread: the test's thread, with its event loop.
#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QPair>
#include <QTcpSocket>
#include <chrono>
#include <optional>

namespace sy::sim::test {

class RawHttpClient {
public:
    explicit RawHttpClient(quint16 port);

    // Connects and sends one request (Content-Length set from body). Returns at once.
    void send(const QByteArray &method, const QByteArray &path, const QByteArray &body = {});

    // Bounded waits, processing events. True when the condition holds.
    bool waitForHeaders(std::chrono::milliseconds limit = std::chrono::seconds(5));
    bool waitForBody(qsizetype bytes, std::chrono::milliseconds limit = std::chrono::seconds(5));
    bool waitForEnd(std::chrono::milliseconds limit = std::chrono::seconds(5));  // complete or closed

    bool hasHeaders() const { return m_headerEnd >= 0; }
    int status() const { return m_status; }
    QByteArray header(const QByteArray &lowerCaseName) const;
    QByteArray body() const { return m_body; }  // de-chunked
    bool isChunked() const { return m_chunked; }
    bool isComplete() const { return m_complete; }  // Content-Length reached or final chunk seen
    bool isClosed() const { return m_closed; }      // the server closed or reset the connection
    qsizetype bytesReceived() const { return m_raw.size(); }
    // Milliseconds from send() until the headers / the first body byte arrived.
    std::optional<qint64> msToHeaders() const { return m_msToHeaders; }
    std::optional<qint64> msToFirstBodyByte() const { return m_msToBody; }
    std::optional<qint64> msToComplete() const { return m_msToComplete; }

    // The `data: ` payloads of the SSE body, in order.
    QList<QByteArray> sseData() const;

    void close() { m_socket.abort(); }

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
    std::optional<qint64> m_msToHeaders;
    std::optional<qint64> m_msToBody;
    std::optional<qint64> m_msToComplete;
};

} // namespace sy::sim::test
