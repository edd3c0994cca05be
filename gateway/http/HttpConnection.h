#pragma once
// HttpConnection: what the front knows about one client connection, beyond what QtHttpServer
// 6.4 keeps. Created by LimitedTcpServer for every accepted socket, as the socket's child (so it
// dies with the socket; holders keep a QPointer).
//
//  - Reading: the connection's RequestFramer, which reads and frames its requests.
//  - Response order (RFC 9112 §9.3.2): every ResponseSink of the connection takes a place in a
//    queue in request order. Only the first unfinished one writes to the socket; a later one's
//    bytes are held here until every earlier response is complete, so a fast answer to a
//    pipelined request never overtakes a slow one. A sink dropped unanswered closes the
//    connection when its turn comes, rather than blocking the answers behind it.
//  - Writes: while nothing waits in the socket's buffer, the first write of an event-loop pass
//    is sent to the descriptor at once, and only what the kernel does not take is queued on the
//    QTcpSocket (see sendNow). Later writes of the same pass are gathered here (up to
//    kGatherBytes) and sent together by flush(): when their response ends, or else when the
//    next pass starts (the dispatcher's awake(), before it waits). So a stream answered within
//    one pass leaves in two sends, and the socket's write notifier is not switched on and off
//    for it.
//  - Stalled client: when bytes are queued on the socket and none of them drains for
//    `stalledClientTimeout`, the connection is aborted (the sinks report the client gone).
//
// Thread: the socket's thread (the gateway thread), like everything of the front.
#include "http/RequestFramer.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <deque>

namespace sy::http {

class ResponseSink;

struct ConnectionOptions {
    // Backpressure water marks of each response (bytes queued on the socket, or held behind an
    // earlier pipelined response): at or above `highWaterBytes` a sink reports congestion; it
    // reports the drain once the queue is back at or below `lowWaterBytes`.
    qint64 highWaterBytes = 1024 * 1024;
    qint64 lowWaterBytes = 256 * 1024;
    // A client that drains nothing for this long while bytes wait for it is disconnected.
    // Zero or negative: never.
    std::chrono::milliseconds stalledClientTimeout{30'000};
};

class HttpConnection : public QObject {
    Q_OBJECT
public:
    // How a response ends once all its bytes are written.
    enum class End { KeepOpen, Close, Reset };

    HttpConnection(QTcpSocket *socket, FramingLimits limits, ConnectionOptions options);
    // The connection object of `socket`, or null for a socket that was not accepted by a
    // LimitedTcpServer.
    static HttpConnection *of(QTcpSocket *socket);

    RequestFramer &framer() { return m_framer; }

    const ConnectionOptions &options() const { return m_options; }

    // --- Response queue (called by ResponseSink) ---
    void enqueue(const ResponseSink *sink);
    // Writes now when `sink` is first in line, else holds the bytes.
    void write(const ResponseSink *sink, const QByteArray &bytes);
    // `sink` wrote all it will; `end` is carried out once its bytes are on the socket.
    void end(const ResponseSink *sink, End end);
    // `sink` is being destroyed; whatever it wrote and its end stay queued.
    void forget(const ResponseSink *sink);
    // Bytes of `sink` not yet sent: the socket's queue for the first in line, else its held bytes.
    qint64 queuedBytes(const ResponseSink *sink) const;
    // Once every response queued so far is written, writes `bytes` and closes the connection
    // (a refusal of a later pipelined request).
    void writeLastAndClose(const QByteArray &bytes);
    // Hands what was gathered, then what waits on the socket, to the kernel now (as far as it
    // takes them; the rest waits on the socket).
    void flush();

    // The most a pass gathers before it hands them on (below the sinks' low water mark, so
    // gathered bytes alone never congest a sink).
    static constexpr qsizetype kGatherBytes = 64 * 1024;

private:
    struct Entry {
        const ResponseSink *sink;  // null once forgotten
        QByteArray held;
        bool ended = false;
        End end = End::KeepOpen;
    };
    void writeToSocket(const QByteArray &bytes);
    // Writes straight to the descriptor what the kernel takes without blocking; returns how many
    // bytes it took. Only while the socket's own buffer is empty, so the order is kept.
    qsizetype sendNow(const QByteArray &bytes);
    // Sends what the kernel takes now when nothing waits on the socket (sendNow), and leaves the
    // rest to the socket's buffer and its stall clock.
    void sendOrQueue(const QByteArray &bytes);
    void advance();
    void onBytesWritten();
    void onStalled();

    QTcpSocket *m_socket;  // the parent
    RequestFramer m_framer;
    ConnectionOptions m_options;
    std::deque<Entry> m_queue;
    QByteArray m_last;
    bool m_hasLast = false;
    bool m_closing = false;  // an ended response closed the connection: nothing more is sent
    // Stall detection: the last time bytes drained, or the time bytes began to wait on an empty
    // socket queue. The single-shot timer runs from the first wait and is re-armed for what is
    // left when it fires with bytes still waiting and recent progress.
    std::chrono::steady_clock::time_point m_progressAt;
    QTimer m_stallTimer;
    quint64 m_directPass = 0;  // the event-loop pass of the last direct send (see writeToSocket)
    QByteArray m_gathered;     // later writes of that pass, not yet handed on (flush())
};

} // namespace sy::http
