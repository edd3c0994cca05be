#pragma once
// ResponseSink: the one way a handler answers a request. It writes HTTP/1.1 straight to the
// client's socket, either as one complete response or as hand-framed chunks
// (Transfer-Encoding: chunked; QtHttpServer 6.4 has no chunked API).
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
#include <QTcpSocket>
#include <functional>

namespace sy::http {

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
    void begin(int status, const HeaderList &headers);
    // One chunk of a begun response; empty data is ignored (an empty chunk would end the body).
    void write(const QByteArray &data);
    // The terminating zero-length chunk. The connection stays open for the next request.
    void finish();
    // Ends the response abnormally: closes the connection (for a chunked body cut short).
    void abort();

    // `callback` runs once, on the gateway thread, if the client disconnects before finish().
    // It never runs from inside a ResponseSink method.
    void onClientGone(std::function<void()> callback);

    // Bytes queued on the socket and not yet sent (for backpressure decisions).
    qint64 bytesQueued() const;

    // Headers added to whatever status line this sink writes (e.g. the CORS grant).
    void setExtraHeaders(HeaderList headers) { m_extraHeaders = std::move(headers); }

    // Close the connection once this response is complete (the client sent `Connection: close`).
    void setCloseAfterResponse(bool close) { m_closeAfter = close; }

private:
    void handleDisconnected();
    void writeRaw(const QByteArray &data);

    QPointer<QTcpSocket> m_socket;
    std::function<void()> m_onGone;
    bool m_begun = false;
    bool m_finished = false;
    bool m_gone = false;
    bool m_closeAfter = false;
    HeaderList m_extraHeaders;
};

} // namespace sy::http
