#include "http/ResponseSink.h"

#include "http/HttpConnection.h"

#include <QMetaObject>
#include <charconv>
#include <cstring>

namespace sy::http {

namespace {

// The most a chunk adds around its data: the size in hex and two line ends.
constexpr qsizetype kChunkFraming = 16 + 4;

// Copies `bytes` to `at`; returns the position after them.
char *put(char *at, QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return at;  // an empty view may have no data pointer at all
    std::memcpy(at, bytes.data(), size_t(bytes.size()));
    return at + bytes.size();
}

// Framing is ours alone: a handler-supplied length or encoding would corrupt the stream.
// By length first: the head's two passes ask this of every header, and most are none of the three.
bool isFraming(const QByteArray &name)
{
    switch (name.size()) {
    case 14: return name.compare("content-length", Qt::CaseInsensitive) == 0;
    case 17: return name.compare("transfer-encoding", Qt::CaseInsensitive) == 0;
    case 10: return name.compare("connection", Qt::CaseInsensitive) == 0;
    default: return false;
    }
}

// The status line, `extra` and `headers` (framing headers left out), `framing`, the blank line and
// `body`, built in one allocation of the exact size (with room for `spare` more bytes after it).
QByteArray statusAndHeaders(QByteArrayView version, int status, const HeaderList &headers,
                            const HeaderList &extra, QByteArrayView framing, QByteArrayView body = {},
                            qsizetype spare = 0)
{
    char code[12];
    const QByteArrayView codeText(code, std::to_chars(code, code + sizeof code, status).ptr - code);
    const QByteArrayView reason = reasonPhraseView(status);
    qsizetype size = version.size() + 1 + codeText.size() + 1 + reason.size() + 2;
    for (const auto &[name, value] : extra)
        size += name.size() + 2 + value.size() + 2;
    for (const auto &[name, value] : headers) {
        if (!isFraming(name))
            size += name.size() + 2 + value.size() + 2;
    }
    size += framing.size() + 2 + body.size();
    QByteArray out;
    out.reserve(size + spare);
    out.resize(size);
    char *at = put(out.data(), version);
    *at++ = ' ';
    at = put(at, codeText);
    *at++ = ' ';
    at = put(at, reason);
    at = put(at, "\r\n");
    const auto putHeader = [&at](const QByteArray &name, const QByteArray &value) {
        at = put(at, name);
        at = put(at, ": ");
        at = put(at, value);
        at = put(at, "\r\n");
    };
    for (const auto &[name, value] : extra)
        putHeader(name, value);
    for (const auto &[name, value] : headers) {
        if (!isFraming(name))
            putHeader(name, value);
    }
    at = put(at, framing);
    at = put(at, "\r\n");
    at = put(at, body);
    Q_ASSERT(at == out.constData() + out.size());
    return out;
}

} // namespace

ResponseSink::ResponseSink(QTcpSocket *socket)
    : m_socket(socket)
    , m_connection(HttpConnection::of(socket))
{
    if (socket) {
        connect(socket, &QAbstractSocket::disconnected, this, &ResponseSink::handleDisconnected);
        connect(socket, &QObject::destroyed, this, &ResponseSink::handleDisconnected);
        // bytesWritten only matters once the response is congested: connected then (writeRaw).
    }
    if (m_connection) {
        m_connection->enqueue(this);
        m_highWater = m_connection->options().highWaterBytes;
        m_lowWater = m_connection->options().lowWaterBytes;
    }
}

ResponseSink::~ResponseSink()
{
    if (!m_connection)
        return;
    // Dropped unanswered: closing tells the client, and frees the answers queued behind it.
    if (!m_finished)
        m_connection->end(this, m_begun ? HttpConnection::End::Close : HttpConnection::End::Reset);
    m_connection->forget(this);
}

bool ResponseSink::isOpen() const
{
    return !m_finished && !m_gone && m_socket
        && m_socket->state() == QAbstractSocket::ConnectedState;
}

void ResponseSink::setHttp10(bool keepAlive)
{
    m_http10 = true;
    m_keepAlive10 = keepAlive;
}

void ResponseSink::respond(int status, const HeaderList &headers, const QByteArray &body)
{
    if (m_begun || !isOpen())
        return;
    m_begun = true;
    char framing[64];
    char *at = put(framing, "Content-Length: ");
    at = std::to_chars(at, framing + sizeof framing, body.size()).ptr;
    at = put(at, "\r\n");
    // A 1.0 client keeps the connection only when it asked; the answer says which it got.
    const bool close = m_closeAfter || (m_http10 && !m_keepAlive10);
    if (m_http10)
        at = put(at, close ? QByteArrayView("Connection: close\r\n") : QByteArrayView("Connection: keep-alive\r\n"));
    else if (close)
        at = put(at, "Connection: close\r\n");
    const QByteArray out = statusAndHeaders(m_http10 ? "HTTP/1.0" : "HTTP/1.1", status, headers, m_extraHeaders,
                                            QByteArrayView(framing, at - framing), body);
    writeRaw(out);
    endResponse(close ? Ending::Close : Ending::Normal);
}

void ResponseSink::begin(int status, const HeaderList &headers, const QByteArray &first)
{
    if (m_begun || !isOpen())
        return;
    m_begun = true;
    // HTTP/1.0 knows no chunked coding: the body runs until the connection closes.
    const qsizetype chunk = first.size() + kChunkFraming;
    QByteArray out = m_http10 ? statusAndHeaders("HTTP/1.0", status, headers, m_extraHeaders, "Connection: close\r\n", {}, chunk)
                              : statusAndHeaders("HTTP/1.1", status, headers, m_extraHeaders,
                                                 m_closeAfter ? "Transfer-Encoding: chunked\r\nConnection: close\r\n"
                                                              : "Transfer-Encoding: chunked\r\n", {}, chunk);
    appendChunk(out, first);
    writeRaw(out);
}

void ResponseSink::write(const QByteArray &data)
{
    if (!m_begun || data.isEmpty() || !isOpen())
        return;
    QByteArray out;
    out.reserve(data.size() + kChunkFraming);
    appendChunk(out, data);
    writeRaw(out);
}

void ResponseSink::appendChunk(QByteArray &out, const QByteArray &data) const
{
    if (data.isEmpty())
        return;  // an empty chunk would end the body
    if (m_http10) {
        out += data;
        return;
    }
    char size[20];
    const char *sizeEnd = std::to_chars(size, size + sizeof size, data.size(), 16).ptr;
    const qsizetype at = out.size();
    out.resize(at + (sizeEnd - size) + 2 + data.size() + 2);
    char *to = put(out.data() + at, QByteArrayView(size, sizeEnd - size));
    to = put(to, "\r\n");
    to = put(to, data);
    put(to, "\r\n");
}

void ResponseSink::finish()
{
    if (!m_begun || !isOpen())
        return;
    if (m_http10) {
        endResponse(Ending::Close);
        return;
    }
    writeRaw(QByteArrayLiteral("0\r\n\r\n"));
    endResponse(m_closeAfter ? Ending::Close : Ending::Normal);
}

void ResponseSink::abort()
{
    if (m_finished || !m_socket)
        return;
    // Before the status line an abrupt reset is the honest signal; after it, flush what was
    // promised and close, so the client sees a body cut short rather than lost bytes.
    endResponse(m_begun ? Ending::Close : Ending::Reset);
}

void ResponseSink::endResponse(Ending ending)
{
    m_finished = true;
    // A finished answer goes to the kernel now, not when the event loop next runs: the gateway
    // thread may be busy a while (a ledger commit, other requests), and what was charged and
    // answered should not sit in a user-space buffer meanwhile. The same write, done earlier.
    if (m_connection && ending != Ending::Reset)
        m_connection->flush();
    else if (m_socket && ending != Ending::Reset)
        m_socket->flush();
    if (m_connection) {
        m_connection->end(this, ending == Ending::Normal ? HttpConnection::End::KeepOpen
                                : ending == Ending::Close ? HttpConnection::End::Close
                                                          : HttpConnection::End::Reset);
        return;
    }
    if (!m_socket)
        return;
    if (ending == Ending::Close)
        m_socket->disconnectFromHost();
    else if (ending == Ending::Reset)
        m_socket->abort();
}

void ResponseSink::onClientGone(std::function<void()> callback)
{
    m_onGone = std::move(callback);
    if (m_gone && m_onGone) {
        // Already gone: still honour "never from inside a ResponseSink method".
        QMetaObject::invokeMethod(this, [this] {
            if (auto cb = std::exchange(m_onGone, nullptr))
                cb();
        }, Qt::QueuedConnection);
    }
}

qint64 ResponseSink::bytesQueued() const
{
    if (m_gone || !m_socket)
        return 0;
    return m_connection ? m_connection->queuedBytes(this) : m_socket->bytesToWrite();
}

bool ResponseSink::isCongested() const
{
    return m_congested;
}

void ResponseSink::setWaterMarks(qint64 highWaterBytes, qint64 lowWaterBytes)
{
    m_highWater = std::max<qint64>(1, highWaterBytes);
    m_lowWater = std::clamp<qint64>(lowWaterBytes, 0, m_highWater - 1);
}

void ResponseSink::handleBytesWritten()
{
    if (!m_congested || bytesQueued() > m_lowWater)
        return;
    m_congested = false;
    if (m_onDrained)
        m_onDrained();
}

void ResponseSink::handleDisconnected()
{
    if (m_gone)
        return;
    m_gone = true;
    m_congested = false;
    if (m_finished || !m_onGone)
        return;
    // Queued: the disconnect can be signalled synchronously from inside our own write or abort.
    QMetaObject::invokeMethod(this, [this] {
        if (auto cb = std::exchange(m_onGone, nullptr))
            cb();
    }, Qt::QueuedConnection);
}

void ResponseSink::writeRaw(const QByteArray &data)
{
    if (!m_socket || m_socket->state() != QAbstractSocket::ConnectedState)
        return;
    if (m_connection)
        m_connection->write(this, data);
    else
        m_socket->write(data);
    if (bytesQueued() >= m_highWater) {
        if (!m_watchingDrain) {
            // Most responses never get here: no connection made and undone for them.
            connect(m_socket, &QIODevice::bytesWritten, this, &ResponseSink::handleBytesWritten);
            m_watchingDrain = true;
        }
        m_congested = true;
    }
}

} // namespace sy::http
