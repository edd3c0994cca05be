#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QCoreApplication>
#include <QHostAddress>

namespace sy::http::test {

bool RawResponse::hasHeader(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

void ResponseParser::feed(const QByteArray &bytes)
{
    m_buffer += bytes;
    while (!m_malformed && step()) {
    }
}

void ResponseParser::finishAtClose()
{
    if (m_state == State::UntilClose) {
        m_current.body += m_buffer;
        m_buffer.clear();
        complete();
    }
}

std::optional<RawResponse> ResponseParser::take()
{
    if (m_done.empty())
        return std::nullopt;
    RawResponse out = std::move(m_done.front());
    m_done.pop_front();
    return out;
}

void ResponseParser::complete()
{
    m_done.push_back(std::move(m_current));
    m_current = {};
    m_state = State::StatusAndHeaders;
}

bool ResponseParser::parseHead(const QByteArray &head)
{
    const QList<QByteArray> lines = head.split('\n');
    const QByteArray statusLine = lines.first().trimmed();
    const QList<QByteArray> parts = statusLine.split(' ');
    if (parts.size() < 2 || !parts.at(0).startsWith("HTTP/1."))
        return false;
    bool ok = false;
    m_current.status = parts.at(1).toInt(&ok);
    if (!ok)
        return false;
    m_current.reason = statusLine.mid(parts.at(0).size() + parts.at(1).size() + 2);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return false;
        m_current.headers.append({line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
    }
    return true;
}

// Consumes what it can of m_buffer; returns true if it made progress.
bool ResponseParser::step()
{
    switch (m_state) {
    case State::StatusAndHeaders: {
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        const QByteArray head = m_buffer.left(end);
        m_buffer.remove(0, end + 4);
        if (!parseHead(head)) {
            m_malformed = true;
            return false;
        }
        const int status = m_current.status;
        const QByteArray encoding = m_current.header("transfer-encoding").toLower();
        const QByteArray length = m_current.header("content-length");
        if ((status >= 100 && status < 200) || status == 204 || status == 304) {
            complete();
        } else if (encoding.contains("chunked")) {
            m_current.chunked = true;
            m_state = State::ChunkSize;
        } else if (!length.isEmpty()) {
            bool ok = false;
            m_remaining = length.toLongLong(&ok);
            if (!ok || m_remaining < 0) {
                m_malformed = true;
                return false;
            }
            m_state = State::LengthBody;
            if (m_remaining == 0)
                complete();
        } else {
            m_state = State::UntilClose;
        }
        return true;
    }
    case State::LengthBody: {
        if (m_buffer.isEmpty())
            return false;
        const qint64 take = std::min<qint64>(m_remaining, m_buffer.size());
        m_current.body += m_buffer.left(take);
        m_buffer.remove(0, take);
        m_remaining -= take;
        if (m_remaining == 0)
            complete();
        return true;
    }
    case State::UntilClose:
        return false;
    case State::ChunkSize: {
        const qsizetype nl = m_buffer.indexOf("\r\n");
        if (nl < 0)
            return false;
        bool ok = false;
        const qint64 size = m_buffer.left(nl).split(';').first().trimmed().toLongLong(&ok, 16);
        m_buffer.remove(0, nl + 2);
        if (!ok || size < 0) {
            m_malformed = true;
            return false;
        }
        m_remaining = size;
        m_state = size == 0 ? State::Trailers : State::ChunkData;
        return true;
    }
    case State::ChunkData: {
        if (m_buffer.size() < m_remaining + 2)
            return false;
        if (m_buffer.mid(m_remaining, 2) != "\r\n") {
            m_malformed = true;
            return false;
        }
        const QByteArray data = m_buffer.left(m_remaining);
        m_current.chunks.append(data);
        m_current.body += data;
        m_buffer.remove(0, m_remaining + 2);
        m_state = State::ChunkSize;
        return true;
    }
    case State::Trailers: {
        const qsizetype nl = m_buffer.indexOf("\r\n");
        if (nl < 0)
            return false;
        const bool last = nl == 0;
        m_buffer.remove(0, nl + 2);
        if (last)
            complete();
        return true;
    }
    }
    return false;
}

RawHttpClient::RawHttpClient(quint16 port)
    : m_port(port)
    , m_socket(std::make_unique<QTcpSocket>())
{
    QObject::connect(m_socket.get(), &QTcpSocket::readyRead, m_socket.get(), [this] { onReadyRead(); });
    QObject::connect(m_socket.get(), &QTcpSocket::disconnected, m_socket.get(), [this] {
        onReadyRead();
        m_closed = true;
        m_parser.finishAtClose();
    });
    QObject::connect(m_socket.get(), &QTcpSocket::errorOccurred, m_socket.get(),
                     [this](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError
            || m_socket->state() == QAbstractSocket::UnconnectedState)
            m_closed = true;
    });
    m_socket->connectToHost(QHostAddress::LocalHost, port);
    sy::test::waitUntil([this] { return connected() || m_socket->state() == QAbstractSocket::UnconnectedState; },
                        5s);
}

RawHttpClient::~RawHttpClient()
{
    m_socket->disconnect();
    m_socket->abort();
}

void RawHttpClient::onReadyRead()
{
    if (!m_socket->isOpen())
        return;
    const QByteArray bytes = m_socket->readAll();
    m_received += bytes;
    m_parser.feed(bytes);
}

void RawHttpClient::send(QByteArrayView bytes)
{
    m_socket->write(bytes.data(), bytes.size());
    m_socket->flush();
}

std::optional<RawResponse> RawHttpClient::readResponse(std::chrono::milliseconds limit)
{
    sy::test::waitUntil([this] { return m_parser.hasResponse() || m_closed || m_parser.malformed(); }, limit);
    return m_parser.take();
}

bool RawHttpClient::waitForServerClose(std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this] { return m_closed; }, limit);
}

bool RawHttpClient::waitForBytes(qsizetype count, std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this, count] { return m_received.size() >= count; }, limit);
}

void RawHttpClient::close()
{
    m_socket->disconnectFromHost();
}

void RawHttpClient::abort()
{
    m_socket->abort();
}

QByteArray buildRequest(QByteArrayView method, QByteArrayView target, quint16 port,
                        const HeaderList &headers, QByteArrayView body)
{
    QByteArray out = method.toByteArray() + ' ' + target.toByteArray() + " HTTP/1.1\r\n";
    bool hasHost = false;
    bool hasFraming = false;
    for (const auto &[name, value] : headers) {
        hasHost = hasHost || name.compare("host", Qt::CaseInsensitive) == 0;
        hasFraming = hasFraming || name.compare("content-length", Qt::CaseInsensitive) == 0
            || name.compare("transfer-encoding", Qt::CaseInsensitive) == 0;
    }
    if (!hasHost)
        out += "Host: 127.0.0.1:" + QByteArray::number(port) + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    if (!body.isEmpty() && !hasFraming)
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    out += "\r\n";
    out += body.toByteArray();
    return out;
}

QByteArray chunkedBody(const QList<QByteArray> &pieces)
{
    QByteArray out;
    for (const QByteArray &piece : pieces)
        out += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    return out + "0\r\n\r\n";
}

void FrontTest::TearDown()
{
    destroyFront();
}

HttpFront &FrontTest::startFront(FrontOptions options)
{
    front = std::make_unique<HttpFront>(std::move(options));
    port = front->listenOn(QHostAddress::LocalHost, 0);
    EXPECT_NE(port, 0) << front->errorString().toStdString();
    return *front;
}

void FrontTest::destroyFront()
{
    front.reset();
    sy::test::processEventsFor(10ms);
}

} // namespace sy::http::test
