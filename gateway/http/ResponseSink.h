#pragma once
// ResponseSink: the one way a handler answers a request. It writes HTTP/1.1 straight to the
// client's socket, either as one complete response or as hand-framed chunks
// (Transfer-Encoding: chunked; QtHttpServer 6.4 has no chunked API).
//
// HTTP/1.0 requests (setHttp10) are answered as 1.0: an `HTTP/1.0` status line; a whole response
// carries Content-Length and closes the connection unless the client asked for keep-alive; a
// streamed one has no chunked framing — its body ends when the connection closes, always.
//
// Order: the sinks of one connection answer in request order (see HttpConnection): a sink whose
// turn has not come yet keeps its bytes until every earlier response on the connection is done.
//
// Backpressure: bytesQueued() is what the client has not taken yet (on the socket, or held for
// its turn). Once a write brings it to the high-water mark the sink is congested; the producer
// should pause (e.g. UpstreamClient::pause) and resume from onDrained(), which runs when the
// queue is back at the low-water mark. A client that takes nothing for the connection's stall
// limit while bytes wait is disconnected, and onClientGone() runs as for any other disconnect.
//
// Socket guard: the sink holds a QPointer to the socket. QtHttpServer deletes the socket when the
// client disconnects, so every write first checks the pointer and silently drops output for a
// gone client. A handler that keeps the sink (streaming, async upstream calls) registers
// onClientGone() to cancel its upstream work the moment the client disconnects.
//
// Thread: every method on the thread that owns the socket (the gateway thread).
#include "http/HttpTypes.h"

#include <QObject>
#include <QPointer>
#include <QtGlobal>
#include <QTcpSocket>
#include <functional>

namespace sy::http {

class HttpConnection;

class ResponseSink : public QObject {
    Q_OBJECT
public:
    explicit ResponseSink(QTcpSocket *socket);
    ~ResponseSink() override;

    // True while the client is connected and the response is not finished.
    bool isOpen() const;
    // True once a status line has been written (respond() or begin()).
    bool hasBegun() const { return m_begun; }
    bool isFinished() const { return m_finished; }

    // Whole response with Content-Length. Ignored when the response has begun or the client is gone.
    void respond(int status, const HeaderList &headers, const QByteArray &body);
    // Starts a chunked response (status line + headers). Then write() chunks and finish().
    // `first`, when not empty, is the first chunk, sent in the same piece as the head.
    void begin(int status, const HeaderList &headers, const QByteArray &first = {});
    // One chunk of a begun response; empty data is ignored (an empty chunk would end the body).
    void write(const QByteArray &data);
    // The terminating zero-length chunk. The connection stays open for the next request
    // (an HTTP/1.0 stream: the connection closes, which is what ends its body).
    void finish();
    // Ends the response abnormally: closes the connection (for a chunked body cut short).
    void abort();

    // `callback` runs once, on the gateway thread, if the client disconnects before finish().
    // It never runs from inside a ResponseSink method.
    void onClientGone(std::function<void()> callback);

    // Bytes of this response the client has not taken yet (for backpressure decisions).
    qint64 bytesQueued() const;
    // True while bytesQueued() is at or above the high-water mark (congested until drained).
    bool isCongested() const;
    // Runs, on the gateway thread and never from inside a ResponseSink method, each time a
    // congested sink's queue is back at or below the low-water mark. Replaces any earlier one.
    void onDrained(std::function<void()> callback) { m_onDrained = std::move(callback); }
    // Water marks in bytes (defaults from the connection's options: 1 MiB and 256 KiB).
    void setWaterMarks(qint64 highWaterBytes, qint64 lowWaterBytes);
    qint64 highWaterBytes() const { return m_highWater; }
    qint64 lowWaterBytes() const { return m_lowWater; }

    // Answer as HTTP/1.0 (see above); `keepAlive`: the request carried `Connection: keep-alive`.
    void setHttp10(bool keepAlive);
    bool isHttp10() const { return m_http10; }

    // Headers added to whatever status line this sink writes (e.g. the CORS grant).
    void setExtraHeaders(HeaderList headers) { m_extraHeaders = std::move(headers); }

    // Close the connection once this response is complete (the client sent `Connection: close`).
    void setCloseAfterResponse(bool close) { m_closeAfter = close; }

private:
    enum class Ending { Normal, Close, Reset };
    void handleDisconnected();
    void handleBytesWritten();
    void writeRaw(const QByteArray &data);
    void appendChunk(QByteArray &out, const QByteArray &data) const;
    void endResponse(Ending ending);

    QPointer<QTcpSocket> m_socket;
    QPointer<HttpConnection> m_connection;
    std::function<void()> m_onGone;
    std::function<void()> m_onDrained;
    qint64 m_highWater = 1024 * 1024;
    qint64 m_lowWater = 256 * 1024;
    bool m_congested = false;
    bool m_watchingDrain = false;  // connected to the socket's bytesWritten (from the first congestion)
    bool m_http10 = false;
    bool m_keepAlive10 = false;
    bool m_begun = false;
    bool m_finished = false;
    bool m_gone = false;
    bool m_closeAfter = false;
    HeaderList m_extraHeaders;
};

} // namespace sy::http
