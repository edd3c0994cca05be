#pragma once
// Test helpers for the HTTP front: a raw HTTP/1.1 client on a QTcpSocket (exact bytes, split
// writes, pipelining, disconnects), an incremental response parser that keeps every chunk of a
// chunked body, and a fixture base that starts an HttpFront on 127.0.0.1, port 0.
//
// Thread: everything runs on the test thread; waits process events with a bound.
#include "http/HttpFront.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QTcpSocket>
#include <chrono>
#include <deque>
#include <gtest/gtest.h>
#include <memory>
#include <optional>

namespace sy::http::test {

using namespace std::chrono_literals;

struct RawResponse {
    int status = 0;
    QByteArray reason;
    HeaderList headers;        // names lower-cased, in arrival order
    QByteArray body;           // decoded body
    bool chunked = false;
    QList<QByteArray> chunks;  // each chunk's data as framed (chunked responses only)

    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
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

class RawHttpClient {
public:
    // Connects to 127.0.0.1:port (bounded wait). Check connected().
    explicit RawHttpClient(quint16 port);
    ~RawHttpClient();

    bool connected() const { return m_socket->state() == QAbstractSocket::ConnectedState; }
    quint16 port() const { return m_port; }
    void send(QByteArrayView bytes);
    // Next complete response, or nullopt if none arrives within `limit` (or the connection closed).
    std::optional<RawResponse> readResponse(std::chrono::milliseconds limit = 5s);
    // True once the server closed (or reset) the connection, within `limit`.
    bool waitForServerClose(std::chrono::milliseconds limit = 5s);
    bool serverClosed() const { return m_closed; }
    // Every byte received so far.
    const QByteArray &received() const { return m_received; }
    const ResponseParser &parser() const { return m_parser; }
    // Waits until at least `count` bytes arrived.
    bool waitForBytes(qsizetype count, std::chrono::milliseconds limit = 5s);
    // Client-side close (FIN), or abort (RST).
    void close();
    void abort();

private:
    void onReadyRead();

    quint16 m_port;
    std::unique_ptr<QTcpSocket> m_socket;
    QByteArray m_received;
    ResponseParser m_parser;
    bool m_closed = false;
};

// A request as bytes. Adds `Host: 127.0.0.1:<port>` unless `headers` has a Host, and
// `Content-Length` when `body` is not empty and `headers` has neither length nor encoding.
QByteArray buildRequest(QByteArrayView method, QByteArrayView target, quint16 port,
                        const HeaderList &headers = {}, QByteArrayView body = {});
// Chunked request body framing of `pieces` (with the terminating chunk).
QByteArray chunkedBody(const QList<QByteArray> &pieces);

// Fixture base: an HttpFront on 127.0.0.1, port 0, destroyed (and its sockets cleaned up) after
// each test.
class FrontTest : public ::testing::Test {
protected:
    void TearDown() override;
    // Creates and starts the front; fails the test if it cannot listen.
    HttpFront &startFront(FrontOptions options = {});
    // Stops the front now (deletes it and processes the deferred deletions).
    void destroyFront();

    std::unique_ptr<HttpFront> front;
    quint16 port = 0;
};

} // namespace sy::http::test
