#include "support/HttpTestClient.h"

#include "support/Waits.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <algorithm>

namespace sy::test {

QByteArray RawResponse::header(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool RawResponse::hasHeader(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

const RawResponse *ResponseParser::front() const
{
    if (!m_done.empty())
        return &m_done.front();
    return m_state == State::StatusAndHeaders ? nullptr : &m_current;
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

HttpTestClient::HttpTestClient(quint16 port)
    : m_port(port)
    , m_socket(std::make_unique<QTcpSocket>())
{
    QObject::connect(m_socket.get(), &QTcpSocket::readyRead, m_socket.get(), [this] { onReadyRead(); });
    QObject::connect(m_socket.get(), &QTcpSocket::disconnected, m_socket.get(), [this] { onClosed(); });
    // A reset may arrive as an error without `disconnected`.
    QObject::connect(m_socket.get(), &QTcpSocket::errorOccurred, m_socket.get(),
                     [this](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError
            || m_socket->state() != QAbstractSocket::ConnectedState)
            onClosed();
    });
}

HttpTestClient::~HttpTestClient()
{
    m_socket->disconnect();
    m_socket->abort();
}

void HttpTestClient::connectToServer()
{
    m_clock.start();
    m_socket->connectToHost(QHostAddress::LocalHost, m_port);
}

bool HttpTestClient::waitForConnected(std::chrono::milliseconds limit)
{
    waitUntil([this] { return connected() || m_socket->state() == QAbstractSocket::UnconnectedState; }, limit);
    return connected();
}

void HttpTestClient::send(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                          const HeaderList &headers)
{
    HeaderList all = headers;
    all.append({QByteArray("Content-Type"), QByteArray("application/json")});
    all.append({QByteArray("Content-Length"), QByteArray::number(body.size())});
    sendRaw(buildRequest(method, path, m_port, all, body));
}

void HttpTestClient::sendRaw(QByteArrayView bytes)
{
    connectToServer();
    write(bytes);
}

void HttpTestClient::write(QByteArrayView bytes)
{
    m_socket->write(bytes.data(), bytes.size());
    // Flushing a socket still connecting fails it; the write goes out once connected.
    if (connected())
        m_socket->flush();
}

bool HttpTestClient::waitForHeaders(std::chrono::milliseconds limit)
{
    return waitUntil([this] { return hasHeaders() || m_closed; }, limit) && hasHeaders();
}

bool HttpTestClient::waitForBody(qsizetype bytes, std::chrono::milliseconds limit)
{
    return waitUntil([this, bytes] { return body().size() >= bytes || isComplete() || m_closed; }, limit)
        && body().size() >= bytes;
}

bool HttpTestClient::waitForEvents(qsizetype count, std::chrono::milliseconds limit)
{
    return waitUntil([this, count] { return sseData().size() >= count || isComplete() || m_closed; }, limit)
        && sseData().size() >= count;
}

bool HttpTestClient::waitForEnd(std::chrono::milliseconds limit)
{
    return waitUntil([this] { return isComplete() || m_closed; }, limit);
}

int HttpTestClient::status() const
{
    const RawResponse *response = m_parser.front();
    return response ? response->status : 0;
}

QByteArray HttpTestClient::header(QByteArrayView name) const
{
    const RawResponse *response = m_parser.front();
    return response ? response->header(name) : QByteArray();
}

bool HttpTestClient::hasHeader(QByteArrayView name) const
{
    const RawResponse *response = m_parser.front();
    return response && response->hasHeader(name);
}

QList<QByteArray> HttpTestClient::headerNames() const
{
    QList<QByteArray> names;
    if (const RawResponse *response = m_parser.front()) {
        for (const auto &header : response->headers)
            names.append(header.first);
    }
    return names;
}

QByteArray HttpTestClient::body() const
{
    const RawResponse *response = m_parser.front();
    return response ? response->body : QByteArray();
}

QJsonObject HttpTestClient::json() const
{
    return QJsonDocument::fromJson(body()).object();
}

bool HttpTestClient::isChunked() const
{
    const RawResponse *response = m_parser.front();
    return response && response->chunked;
}

QList<QByteArray> HttpTestClient::sseData() const
{
    QList<QByteArray> payloads;
    for (const QByteArray &line : body().split('\n')) {
        if (line.startsWith("data: "))
            payloads.append(line.mid(6));
    }
    return payloads;
}

std::optional<RawResponse> HttpTestClient::readResponse(std::chrono::milliseconds limit)
{
    waitUntil([this] { return m_parser.hasResponse() || m_closed || m_parser.malformed(); }, limit);
    return m_parser.take();
}

bool HttpTestClient::waitForBytes(qsizetype count, std::chrono::milliseconds limit)
{
    return waitUntil([this, count] { return m_received.size() >= count; }, limit);
}

bool HttpTestClient::waitForClose(std::chrono::milliseconds limit)
{
    return waitUntil([this] { return m_closed; }, limit);
}

void HttpTestClient::onReadyRead()
{
    if (!m_socket->isOpen())
        return;
    const QByteArray bytes = m_socket->readAll();
    if (bytes.isEmpty())
        return;
    m_received += bytes;
    const qsizetype bodyBefore = body().size();
    m_parser.feed(bytes);
    if (!m_msToHeaders && hasHeaders())
        m_msToHeaders = m_clock.elapsed();
    if (!m_msToBody && body().size() > bodyBefore)
        m_msToBody = m_clock.elapsed();
    if (!m_msToComplete && isComplete())
        m_msToComplete = m_clock.elapsed();
}

void HttpTestClient::onClosed()
{
    onReadyRead();
    m_closed = true;
    m_parser.finishAtClose();
}

} // namespace sy::test
