#include "GatewayClient.h"

#include "support/Waits.h"

#include <QJsonDocument>

namespace sy::integration {

GatewayClient::GatewayClient(quint16 port) : m_port(port)
{
    QObject::connect(&m_socket, &QTcpSocket::readyRead, [this] { onReadyRead(); });
    QObject::connect(&m_socket, &QTcpSocket::disconnected, [this] { m_closed = true; });
    // A reset may arrive as an error without `disconnected`.
    QObject::connect(&m_socket, &QTcpSocket::errorOccurred, [this] { m_closed = true; });
}

void GatewayClient::send(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                         const RequestHeaders &headers)
{
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\n";
    bool hostGiven = false;
    for (const auto &[name, value] : headers) {
        hostGiven = hostGiven || name.compare("host", Qt::CaseInsensitive) == 0;
        request += name + ": " + value + "\r\n";
    }
    if (!hostGiven)
        request += "Host: 127.0.0.1:" + QByteArray::number(m_port) + "\r\n";
    request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
             + "\r\n\r\n" + body;
    sendRaw(request);
}

void GatewayClient::sendRaw(const QByteArray &bytes)
{
    m_clock.start();
    m_socket.connectToHost(QHostAddress::LocalHost, m_port);
    m_socket.write(bytes);
}

bool GatewayClient::waitForHeaders(std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this] { return hasHeaders() || m_closed; }, limit) && hasHeaders();
}

bool GatewayClient::waitForEvents(qsizetype count, std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this, count] { return sseData().size() >= count || m_complete || m_closed; }, limit)
        && sseData().size() >= count;
}

bool GatewayClient::waitForEnd(std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this] { return m_complete || m_closed; }, limit);
}

QByteArray GatewayClient::header(const QByteArray &name) const
{
    for (const auto &[key, value] : m_headers) {
        if (key == name.toLower())
            return value;
    }
    return {};
}

bool GatewayClient::hasHeader(const QByteArray &name) const
{
    return headerNames().contains(name.toLower());
}

QList<QByteArray> GatewayClient::headerNames() const
{
    QList<QByteArray> names;
    for (const auto &header : m_headers)
        names.append(header.first);
    return names;
}

QJsonObject GatewayClient::json() const
{
    return QJsonDocument::fromJson(m_body).object();
}

QList<QByteArray> GatewayClient::sseData() const
{
    QList<QByteArray> payloads;
    for (const QByteArray &line : m_body.split('\n')) {
        if (line.startsWith("data: "))
            payloads.append(line.mid(6));
    }
    return payloads;
}

void GatewayClient::onReadyRead()
{
    m_raw.append(m_socket.readAll());
    parse();
}

void GatewayClient::parse()
{
    if (m_headerEnd < 0) {
        const qsizetype end = m_raw.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        m_headerEnd = end + 4;
        const QList<QByteArray> lines = m_raw.left(end).split('\n');
        m_status = lines.value(0).split(' ').value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                m_headers.append({line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
        }
        m_chunked = header("transfer-encoding").toLower() == "chunked";
        if (!m_chunked)
            m_contentLength = header("content-length").toLongLong();
        m_parsed = m_headerEnd;
    }
    if (!m_chunked) {
        m_body = m_raw.mid(m_headerEnd);
        m_complete = m_contentLength >= 0 && m_body.size() >= m_contentLength;
        return;
    }
    while (!m_complete) {
        const qsizetype lineEnd = m_raw.indexOf("\r\n", m_parsed);
        if (lineEnd < 0)
            break;
        bool ok = false;
        const qsizetype size = m_raw.mid(m_parsed, lineEnd - m_parsed).toLongLong(&ok, 16);
        if (!ok || m_raw.size() < lineEnd + 2 + size + 2)
            break;
        if (size == 0)
            m_complete = true;
        else
            m_body.append(m_raw.mid(lineEnd + 2, size));
        m_parsed = lineEnd + 2 + size + 2;
    }
}

} // namespace sy::integration
