#include "http/HttpConnection.h"

#include <QAbstractEventDispatcher>

#include <algorithm>
#include <cerrno>
#include <sys/socket.h>
#include <utility>
#include <vector>

namespace sy::http {

namespace {

// Event-loop passes of this thread, counted from the dispatcher's awake() (emitted at the start
// of every processEvents). Zero while no dispatcher is hooked: then every write may go direct.
thread_local quint64 t_pass = 0;
thread_local QPointer<QAbstractEventDispatcher> t_hooked;
// Connections that gathered writes in the current pass (HttpConnection::writeToSocket).
thread_local std::vector<QPointer<HttpConnection>> t_gathering;

quint64 currentPass()
{
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    if (dispatcher && t_hooked != dispatcher) {
        t_hooked = dispatcher;
        ++t_pass;
        QObject::connect(dispatcher, &QAbstractEventDispatcher::awake, dispatcher, [] {
            ++t_pass;
            // What the last pass gathered and did not end goes out now, before this pass waits.
            for (const QPointer<HttpConnection> &connection : std::exchange(t_gathering, {})) {
                if (connection)
                    connection->flush();
            }
        });
    }
    return t_hooked ? t_pass : 0;
}

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, FramingLimits limits, ConnectionOptions options)
    : QObject(socket)
    , m_socket(socket)
    , m_framer(limits)
    , m_options(options)
{
    m_stallTimer.setSingleShot(true);
    connect(&m_stallTimer, &QTimer::timeout, this, &HttpConnection::onStalled);
    connect(socket, &QIODevice::bytesWritten, this, &HttpConnection::onBytesWritten);
}

HttpConnection *HttpConnection::of(QTcpSocket *socket)
{
    return socket ? socket->findChild<HttpConnection *>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
}

void HttpConnection::enqueue(const ResponseSink *sink)
{
    m_queue.push_back({sink, {}, false, End::KeepOpen});
}

void HttpConnection::write(const ResponseSink *sink, const QByteArray &bytes)
{
    const auto it = std::find_if(m_queue.begin(), m_queue.end(),
                                 [sink](const Entry &entry) { return entry.sink == sink; });
    if (it == m_queue.end() || it->ended)
        return;
    if (it == m_queue.begin())
        writeToSocket(bytes);
    else
        it->held += bytes;
}

void HttpConnection::end(const ResponseSink *sink, End end)
{
    const auto it = std::find_if(m_queue.begin(), m_queue.end(),
                                 [sink](const Entry &entry) { return entry.sink == sink; });
    if (it == m_queue.end() || it->ended)
        return;
    it->ended = true;
    it->end = end;
    if (it == m_queue.begin())
        advance();
}

void HttpConnection::forget(const ResponseSink *sink)
{
    // Its bytes and its end stay queued; only the pointer (soon dangling) goes.
    for (Entry &entry : m_queue) {
        if (entry.sink == sink)
            entry.sink = nullptr;
    }
}

qint64 HttpConnection::queuedBytes(const ResponseSink *sink) const
{
    const auto it = std::find_if(m_queue.begin(), m_queue.end(),
                                 [sink](const Entry &entry) { return entry.sink == sink; });
    if (it == m_queue.end())
        return 0;
    return it == m_queue.begin() ? m_socket->bytesToWrite() + m_gathered.size() : it->held.size();
}

void HttpConnection::writeLastAndClose(const QByteArray &bytes)
{
    m_last = bytes;
    m_hasLast = true;
    if (m_queue.empty())
        advance();
}

void HttpConnection::writeToSocket(const QByteArray &bytes)
{
    if (m_closing || m_socket->state() != QAbstractSocket::ConnectedState)
        return;
    // Nothing queued: the bytes go to the kernel now. Only what it does not take is left to the
    // socket's buffer, whose write notifier is switched on for it and off after it drains (two
    // epoll_ctl calls per write, most of a stream's system calls). Once per event-loop pass:
    // further writes of the same pass (several events out of one upstream read) are gathered
    // here and leave in one send when the response ends, or when the pass does (flush()),
    // rather than one send each.
    if (!m_gathered.isEmpty()) {
        if (m_gathered.size() + bytes.size() <= kGatherBytes) {
            m_gathered += bytes;
            return;
        }
        flush();
    }
    const bool nothingWaited = m_socket->bytesToWrite() == 0;
    const quint64 pass = currentPass();
    if (nothingWaited && pass != 0 && pass == m_directPass && bytes.size() <= kGatherBytes) {
        m_gathered = bytes;
        t_gathering.emplace_back(this);
        return;
    }
    if (nothingWaited)
        m_directPass = pass;
    sendOrQueue(bytes);
}

void HttpConnection::flush()
{
    if (!m_gathered.isEmpty()) {
        const QByteArray gathered = std::exchange(m_gathered, QByteArray());
        if (m_socket->state() != QAbstractSocket::ConnectedState)
            return;
        sendOrQueue(gathered);
    }
    m_socket->flush();
}

void HttpConnection::sendOrQueue(const QByteArray &bytes)
{
    const bool nothingWaited = m_socket->bytesToWrite() == 0;
    const qsizetype sent = nothingWaited ? sendNow(bytes) : 0;
    if (sent == bytes.size())
        return;
    m_socket->write(bytes.constData() + sent, bytes.size() - sent);
    if (m_options.stalledClientTimeout.count() <= 0)
        return;
    if (nothingWaited)
        m_progressAt = std::chrono::steady_clock::now();  // the stall clock starts with the wait
    if (!m_stallTimer.isActive())
        m_stallTimer.start(m_options.stalledClientTimeout);
}

qsizetype HttpConnection::sendNow(const QByteArray &bytes)
{
    const qintptr fd = m_socket->socketDescriptor();
    if (fd < 0)
        return 0;
    qsizetype sent = 0;
    while (sent < bytes.size()) {
        // The descriptor is non-blocking (Qt's socket engine); MSG_NOSIGNAL: a gone client is an
        // EPIPE here, not a SIGPIPE.
        const ssize_t n = ::send(int(fd), bytes.constData() + sent, size_t(bytes.size() - sent),
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            sent += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        // EAGAIN (the kernel's buffer is full) or an error: the rest goes through the socket,
        // which meets the same condition and handles it its own way (waits for room; reports
        // the error and disconnects, which is what tells the sinks the client is gone).
        break;
    }
    return sent;
}

void HttpConnection::advance()
{
    // Carries out the end of every finished response at the front and lets the next one write.
    while (!m_queue.empty() && m_queue.front().ended) {
        const End end = m_queue.front().end;
        m_queue.pop_front();
        if (end != End::KeepOpen) {
            m_queue.clear();
            flush();
            m_closing = true;
            // Reset: an abrupt end is the honest signal for a response cut short before its
            // status line — unless earlier answers still wait on the socket: those are flushed,
            // as is what was written of a begun response, before the close.
            if (end == End::Reset && m_socket->bytesToWrite() == 0)
                m_socket->abort();
            else
                m_socket->disconnectFromHost();
            return;
        }
        if (m_queue.empty())
            break;
        Entry &next = m_queue.front();
        if (!next.held.isEmpty())
            writeToSocket(std::exchange(next.held, QByteArray()));
    }
    if (m_queue.empty() && m_hasLast && !m_closing) {
        writeToSocket(m_last);
        flush();
        m_closing = true;
        m_socket->disconnectFromHost();
    }
}

void HttpConnection::onBytesWritten()
{
    // Progress restarts the stall clock. The timer itself is left as it is: starting and
    // stopping a timer per write costs a walk of the thread's timer list, which with thousands
    // of open streams was most of the gateway thread's time; onStalled re-arms it instead.
    m_progressAt = std::chrono::steady_clock::now();
}

void HttpConnection::onStalled()
{
    if (m_socket->bytesToWrite() == 0)
        return;  // nothing waits: the next write arms the timer again
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_progressAt);
    if (waited < m_options.stalledClientTimeout) {
        m_stallTimer.start(m_options.stalledClientTimeout - waited);
        return;
    }
    m_closing = true;
    m_queue.clear();
    m_gathered.clear();
    m_socket->abort();
}

} // namespace sy::http
