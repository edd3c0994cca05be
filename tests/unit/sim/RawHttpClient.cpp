#include "RawHttpClient.h"

#include "support/Waits.h"

namespace sy::sim::test {

RawHttpClient::RawHttpClient(quint16 port) : m_port(port)
{
    QObject::connect(&m_socket, &QTcpSocket::readyRead, [this] { onReadyRead(); });
    QObject::connect(&m_socket, &QTcpSocket::disconnected, [this] { m_closed = true; });
    // A reset may arrive as an error without `disconnected`.
    QObject::connect(&m_socket, &QTcpSocket::errorOccurred, [this] { m_closed = true; });
}

void RawHttpClient::send(const QByteArray &method, const QByteArray &path, const QByteArray &body)
{
    m_clock.start();
    m_socket.connectToHost(QHostAddress::LocalHost, m_port);
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_port)
                       + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                       + "\r\n\r\n" + body;
    m_socket.write(request);
}

bool RawHttpClient::waitForHeaders(std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this] { return hasHeaders() || m_closed; }, limit) && hasHeaders();
}

bool RawHttpClient::waitForBody(qsizetype bytes, std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this, bytes] { return m_body.size() >= bytes || m_closed || m_complete; }, limit)
        && m_body.size() >= bytes;
}

bool RawHttpClient::waitForEnd(std::chrono::milliseconds limit)
{
    return sy::test::waitUntil([this] { return m_complete || m_closed; }, limit);
}

QByteArray RawHttpClient::header(const QByteArray &lowerCaseName) const
{
    for (const auto &[name, value] : m_headers) {
        if (name == lowerCaseName)
            return value;
    }
    return {};
}

QList<QByteArray> RawHttpClient::sseData() const
{
    QList<QByteArray> payloads;
    for (const QByteArray &event : m_body.split('\n')) {
        if (event.startsWith("data: "))
            payloads.append(event.mid(6));
    }
    return payloads;
}

void RawHttpClient::onReadyRead()
{
    m_raw.append(m_socket.readAll());
    parse();
}

void RawHttpClient::parse()
{
    if (m_headerEnd < 0) {
        const qsizetype end = m_raw.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        m_headerEnd = end + 4;
        m_msToHeaders = m_clock.elapsed();
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
    const qsizetype bodyBefore = m_body.size();
    if (!m_chunked) {
        m_body = m_raw.mid(m_headerEnd);
        m_complete = m_contentLength >= 0 && m_body.size() >= m_contentLength;
    } else {
        while (!m_complete) {
            const qsizetype lineEnd = m_raw.indexOf("\r\n", m_parsed);
            if (lineEnd < 0)
                break;
            bool ok = false;
            const qsizetype size = m_raw.mid(m_parsed, lineEnd - m_parsed).toLongLong(&ok, 16);
            if (!ok || m_raw.size() < lineEnd + 2 + size + 2)
                break;
            if (size == 0) {
                m_complete = true;
            } else {
                m_body.append(m_raw.mid(lineEnd + 2, size));
            }
            m_parsed = lineEnd + 2 + size + 2;
        }
    }
    if (!m_msToBody && m_body.size() > bodyBefore)
        m_msToBody = m_clock.elapsed();
    if (!m_msToComplete && m_complete)
        m_msToComplete = m_clock.elapsed();
}

} // namespace sy::sim::test
