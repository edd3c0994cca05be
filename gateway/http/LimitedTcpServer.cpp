#include "http/LimitedTcpServer.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/HttpConnection.h"

#include <QTcpSocket>
#include <optional>

namespace sy::http {

namespace {

QByteArray requestPath(const QByteArray &headerBlock)
{
    // The second space-separated field of the request line, without its query.
    const qsizetype lineEnd = headerBlock.indexOf("\r\n");
    const QByteArrayView line = QByteArrayView(headerBlock).first(lineEnd < 0 ? headerBlock.size() : lineEnd);
    const qsizetype start = line.indexOf(' ');
    if (start < 0)
        return {};
    const qsizetype end = line.indexOf(' ', start + 1);
    QByteArrayView target = line.sliced(start + 1, (end < 0 ? line.size() : end) - start - 1);
    if (const qsizetype query = target.indexOf('?'); query >= 0)
        target = target.first(query);
    return target.toByteArray();
}

} // namespace

// End of a header block: the first blank line, CRLF or bare LF as QtHttpServer's parser accepts.
// Returns the offset just past it, or -1.
static qsizetype headerBlockEnd(const QByteArray &buffer, qsizetype from)
{
    for (qsizetype i = buffer.indexOf('\n', from); i >= 0; i = buffer.indexOf('\n', i + 1)) {
        if (i + 1 < buffer.size() && buffer.at(i + 1) == '\n')
            return i + 2;
        if (i + 2 < buffer.size() && buffer.at(i + 1) == '\r' && buffer.at(i + 2) == '\n')
            return i + 3;
    }
    return -1;
}

void RequestFramer::requestComplete()
{
    m_state = State::Headers;
    m_path.clear();
    ++m_completedInFeed;
}

RequestFramer::Verdict RequestFramer::feed(QByteArrayView bytes)
{
    Verdict verdict = Verdict::Ok;
    m_completedInFeed = 0;
    QByteArray rest;  // keeps the bytes after a header block alive while `bytes` views them
    while (!bytes.isEmpty()) {
        switch (m_state) {
        case State::Headers: {
            // Search only the new bytes plus the 2 before them for the blank line.
            const qsizetype from = std::max<qsizetype>(0, m_buffer.size() - 2);
            m_buffer.append(bytes.data(), bytes.size());
            bytes = {};
            const qsizetype end = headerBlockEnd(m_buffer, from);
            if (m_path.isEmpty() && m_buffer.contains('\n'))
                m_path = requestPath(m_buffer);
            if (end < 0) {
                if (m_buffer.size() > m_limits.maxHeaderBytes)
                    return Verdict::HeaderTooLarge;
                return verdict;
            }
            if (end > m_limits.maxHeaderBytes)
                return Verdict::HeaderTooLarge;
            rest = m_buffer.mid(end);
            m_buffer.truncate(end);
            const Verdict v = headersComplete();
            if (v != Verdict::Ok && v != Verdict::ExpectContinue)
                return v;
            if (v == Verdict::ExpectContinue)
                verdict = v;
            // The remainder is body, or the next pipelined request.
            bytes = QByteArrayView(rest);
            break;
        }
        case State::Body: {
            const qint64 take = std::min<qint64>(m_remaining, bytes.size());
            m_remaining -= take;
            bytes = bytes.sliced(take);
            if (m_remaining == 0)
                requestComplete();
            break;
        }
        default: {
            const qsizetype used = feedChunked(bytes, verdict);
            if (verdict == Verdict::BodyTooLarge || verdict == Verdict::BadFraming)
                return verdict;
            bytes = bytes.sliced(used);
            break;
        }
        }
    }
    return verdict;
}

RequestFramer::Verdict RequestFramer::headersComplete()
{
    std::optional<qint64> contentLength;
    int transferEncodings = 0;
    bool chunked = false;
    bool expectContinue = false;
    FramedRequest framed;
    {
        const qsizetype end = m_buffer.indexOf('\n');
        const QByteArrayView requestLine = QByteArrayView(m_buffer).first(end < 0 ? m_buffer.size() : end).trimmed();
        framed.http10 = requestLine.endsWith("HTTP/1.0");
    }
    // Walks the lines in place (views, no copies): this runs for every request.
    const QByteArrayView block(m_buffer);
    qsizetype lineStart = block.indexOf('\n');  // line 0 is the request line
    while (lineStart >= 0) {
        ++lineStart;
        const qsizetype lineEnd = block.indexOf('\n', lineStart);
        const QByteArrayView line = block.sliced(lineStart, (lineEnd < 0 ? block.size() : lineEnd) - lineStart);
        lineStart = lineEnd;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArrayView name = line.first(colon).trimmed();
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (name.compare("content-length", Qt::CaseInsensitive) == 0) {
            bool ok = false;
            const qint64 length = value.toLongLong(&ok);
            // Two different lengths: the front and QtHttpServer could frame the body differently.
            if (!ok || length < 0 || (contentLength && *contentLength != length))
                return Verdict::BadFraming;
            contentLength = length;
        } else if (name.compare("transfer-encoding", Qt::CaseInsensitive) == 0) {
            ++transferEncodings;
            chunked = value.toByteArray().toLower().contains("chunked");
        } else if (name.compare("expect", Qt::CaseInsensitive) == 0) {
            expectContinue = value.compare("100-continue", Qt::CaseInsensitive) == 0;
        } else if (name.compare("connection", Qt::CaseInsensitive) == 0) {
            framed.keepAlive = framed.keepAlive || value.toByteArray().toLower().contains("keep-alive");
        }
    }
    m_buffer.clear();
    // RFC 9112 6.3: both, or several encodings, is how requests are smuggled past a front.
    if (transferEncodings > 1 || (transferEncodings == 1 && contentLength))
        return Verdict::BadFraming;
    if (contentLength.value_or(0) > m_limits.maxBodyBytes)
        return Verdict::BodyTooLarge;
    m_framed.push_back(framed);
    if (chunked) {
        m_state = State::ChunkSize;
        m_bodySeen = 0;
    } else if (contentLength.value_or(0) > 0) {
        m_state = State::Body;
        m_remaining = *contentLength;
    } else {
        requestComplete();
    }
    return expectContinue && m_state != State::Headers ? Verdict::ExpectContinue : Verdict::Ok;
}

std::optional<FramedRequest> RequestFramer::takeFramed()
{
    if (m_framed.empty())
        return std::nullopt;
    FramedRequest framed = m_framed.front();
    m_framed.pop_front();
    return framed;
}

qsizetype RequestFramer::feedChunked(QByteArrayView bytes, Verdict &verdict)
{
    switch (m_state) {
    case State::ChunkSize:
    case State::Trailers:
    case State::ChunkDataEnd: {
        const qsizetype nl = bytes.indexOf('\n');
        if (nl < 0) {
            m_buffer.append(bytes.data(), bytes.size());
            if (m_buffer.size() > 4096)
                verdict = Verdict::BodyTooLarge;  // an endless size/trailer line is abuse too
            return bytes.size();
        }
        m_buffer.append(bytes.data(), nl + 1);
        const QByteArray line = m_buffer.trimmed();
        m_buffer.clear();
        if (m_state == State::ChunkDataEnd) {
            m_state = State::ChunkSize;
        } else if (m_state == State::Trailers) {
            if (line.isEmpty())
                requestComplete();
        } else {
            bool ok = false;
            const qint64 size = line.split(';').first().trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0) {
                verdict = Verdict::BadFraming;
                return nl + 1;
            }
            m_bodySeen += size;
            if (m_bodySeen > m_limits.maxBodyBytes) {
                verdict = Verdict::BodyTooLarge;
                return nl + 1;
            }
            m_remaining = size;
            m_state = size == 0 ? State::Trailers : State::ChunkData;
        }
        return nl + 1;
    }
    case State::ChunkData: {
        const qint64 take = std::min<qint64>(m_remaining, bytes.size());
        m_remaining -= take;
        if (m_remaining == 0)
            m_state = State::ChunkDataEnd;
        return take;
    }
    default:
        return bytes.size();
    }
}

LimitedTcpServer::LimitedTcpServer(FramingLimits limits, const ConnectionOptions &connection,
                                   LimitResponder responder, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_connection(std::make_unique<ConnectionOptions>(connection))
    , m_responder(std::move(responder))
{
}

LimitedTcpServer::~LimitedTcpServer() = default;

void LimitedTcpServer::incomingConnection(qintptr socketDescriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    // Small SSE events must leave at once, not wait for Nagle.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    // Owns the framer; a child of the socket, so it lives exactly as long as the connection.
    auto *connection = new HttpConnection(socket, m_limits, *m_connection);
    RequestFramer *framer = &connection->framer();
    auto rejected = std::make_shared<bool>(false);
    // Connected before addPendingConnection(), so this runs before QtHttpServer's own slot and
    // sees exactly the bytes it is about to consume.
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket, connection, framer, rejected] {
        if (*rejected) {
            socket->readAll();
            return;
        }
        const QByteArray fresh = socket->peek(socket->bytesAvailable());
        const RequestFramer::Verdict verdict = framer->feed(fresh);
        if (verdict == RequestFramer::Verdict::ExpectContinue) {
            socket->write("HTTP/1.1 100 Continue\r\n\r\n");
            return;
        }
        if (verdict == RequestFramer::Verdict::Ok)
            return;
        *rejected = true;
        const int status = verdict == RequestFramer::Verdict::HeaderTooLarge ? 431
            : verdict == RequestFramer::Verdict::BodyTooLarge                ? 413
                                                                             : 400;
        const QByteArray response = m_responder(status, framer->currentPath());
        // After every earlier response on the connection (pipelining keeps request order).
        auto refuse = [socket, connection, response] {
            socket->readAll();  // QtHttpServer must never see the refused request
            connection->writeLastAndClose(response);
        };
        if (framer->completedInLastFeed() == 0) {
            socket->readAll();
            refuse();
            return;
        }
        // Earlier complete requests in this batch are answered first by QtHttpServer's slot,
        // which runs after this one; the refusal follows them.
        QMetaObject::invokeMethod(socket, refuse, Qt::QueuedConnection);
    });
    addPendingConnection(socket);  // QTcpServer emits newConnection() after we return
}

bool LimitedTcpServer::listenSharingPort(const QHostAddress &address, quint16 port)
{
    m_sharingError.clear();
    const bool v6 = address.protocol() == QAbstractSocket::IPv6Protocol;
    sockaddr_storage storage{};
    socklen_t length = 0;
    if (v6) {
        auto *in6 = reinterpret_cast<sockaddr_in6 *>(&storage);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        const Q_IPV6ADDR bytes = address.toIPv6Address();
        std::memcpy(&in6->sin6_addr, bytes.c, sizeof bytes.c);
        length = sizeof *in6;
    } else {
        auto *in4 = reinterpret_cast<sockaddr_in *>(&storage);
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        in4->sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof *in4;
    }
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        m_sharingError = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    const int on = 1;
    const char *step = "setsockopt";
    bool ok = ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0
        && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) == 0;
    if (ok) {
        step = "bind";
        ok = ::bind(fd, reinterpret_cast<const sockaddr *>(&storage), length) == 0;
    }
    if (ok) {
        step = "listen";
        ok = ::listen(fd, SOMAXCONN) == 0;
    }
    if (!ok) {
        // Worded like QTcpServer's errors, so StartFailure recognises "address in use".
        const int code = errno;
        m_sharingError = code == EADDRINUSE ? QStringLiteral("The bound address is already in use")
            : code == EACCES                ? QStringLiteral("The address is protected")
            : code == EADDRNOTAVAIL         ? QStringLiteral("The address is not available")
                                            : QStringLiteral("%1: %2").arg(QLatin1String(step), QString::fromLocal8Bit(std::strerror(code)));
        ::close(fd);
        return false;
    }
    if (!setSocketDescriptor(fd)) {
        m_sharingError = QTcpServer::errorString();
        ::close(fd);
        return false;
    }
    return true;
}

QString LimitedTcpServer::errorString() const
{
    return m_sharingError.isEmpty() ? QTcpServer::errorString() : m_sharingError;
}

} // namespace sy::http
