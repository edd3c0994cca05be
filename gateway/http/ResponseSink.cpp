#include "http/ResponseSink.h"

#include <QMetaObject>

namespace sy::http {

namespace {

QByteArray statusAndHeaders(int status, const HeaderList &headers, const HeaderList &extra,
                            const QByteArray &framing)
{
    QByteArray out;
    out.reserve(256);
    out += "HTTP/1.1 ";
    out += QByteArray::number(status);
    out += ' ';
    out += reasonPhrase(status);
    out += "\r\n";
    for (const auto &[name, value] : extra) {
        out += name;
        out += ": ";
        out += value;
        out += "\r\n";
    }
    for (const auto &[name, value] : headers) {
        // Framing is ours alone: a handler-supplied length or encoding would corrupt the stream.
        if (name.compare("content-length", Qt::CaseInsensitive) == 0
            || name.compare("transfer-encoding", Qt::CaseInsensitive) == 0)
            continue;
        out += name;
        out += ": ";
        out += value;
        out += "\r\n";
    }
    out += framing;
    out += "\r\n";
    return out;
}

} // namespace

ResponseSink::ResponseSink(QTcpSocket *socket)
    : m_socket(socket)
{
    if (socket) {
        connect(socket, &QAbstractSocket::disconnected, this, &ResponseSink::handleDisconnected);
        connect(socket, &QObject::destroyed, this, &ResponseSink::handleDisconnected);
    }
}

ResponseSink::~ResponseSink() = default;

bool ResponseSink::isOpen() const
{
    return !m_finished && !m_gone && m_socket
        && m_socket->state() == QAbstractSocket::ConnectedState;
}

void ResponseSink::respond(int status, const HeaderList &headers, const QByteArray &body)
{
    if (m_begun || !isOpen())
        return;
    m_begun = true;
    QByteArray out = statusAndHeaders(status, headers, m_extraHeaders,
                                      "Content-Length: " + QByteArray::number(body.size()) + "\r\n");
    out += body;
    writeRaw(out);
    m_finished = true;
    if (m_closeAfter && m_socket)
        m_socket->disconnectFromHost();
}

void ResponseSink::begin(int status, const HeaderList &headers)
{
    if (m_begun || !isOpen())
        return;
    m_begun = true;
    writeRaw(statusAndHeaders(status, headers, m_extraHeaders, "Transfer-Encoding: chunked\r\n"));
}

void ResponseSink::write(const QByteArray &data)
{
    if (!m_begun || data.isEmpty() || !isOpen())
        return;
    QByteArray out;
    out.reserve(data.size() + 12);
    out += QByteArray::number(data.size(), 16);
    out += "\r\n";
    out += data;
    out += "\r\n";
    writeRaw(out);
}

void ResponseSink::finish()
{
    if (!m_begun || !isOpen())
        return;
    writeRaw(QByteArrayLiteral("0\r\n\r\n"));
    m_finished = true;
    if (m_closeAfter && m_socket)
        m_socket->disconnectFromHost();
}

void ResponseSink::abort()
{
    if (m_finished || !m_socket)
        return;
    m_finished = true;
    // Before the status line an abrupt reset is the honest signal; after it, flush what was
    // promised and close, so the client sees a body cut short rather than lost bytes.
    if (m_begun)
        m_socket->disconnectFromHost();
    else
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
    return m_socket ? m_socket->bytesToWrite() : 0;
}

void ResponseSink::handleDisconnected()
{
    if (m_gone)
        return;
    m_gone = true;
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
    if (m_socket && m_socket->state() == QAbstractSocket::ConnectedState)
        m_socket->write(data);
}

} // namespace sy::http
