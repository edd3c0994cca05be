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

LimitedTcpServer::LimitedTcpServer(FramingLimits limits, const ConnectionOptions &connection,
                                   LimitResponder responder, RequestDispatcher dispatcher, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_connection(std::make_unique<ConnectionOptions>(connection))
    , m_responder(std::move(responder))
    , m_dispatcher(std::move(dispatcher))
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
    auto detached = std::make_shared<bool>(false);
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket, connection, framer, rejected, detached] {
        if (!*detached) {
            // QtHttpServer connected its parser to readyRead when the connection was handed
            // over (receiver: the server, our parent since bind()); this slot runs first and
            // takes it off before it has read anything. Its other connections (the socket's
            // deletion once disconnected) stay.
            *detached = true;
            if (QObject *server = parent())
                QObject::disconnect(socket, &QIODevice::readyRead, server, nullptr);
        }
        if (*rejected) {
            socket->readAll();
            return;
        }
        const QByteArray fresh = socket->readAll();
        const RequestFramer::Verdict verdict = framer->feed(fresh);
        // Complete requests go to the front in order; a refusal below follows their answers.
        while (std::optional<FramedRequest> request = framer->takeFramed())
            m_dispatcher(std::move(*request), socket);
        if (verdict == RequestFramer::Verdict::ExpectContinue) {
            socket->write("HTTP/1.1 100 Continue\r\n\r\n");
            return;
        }
        if (verdict == RequestFramer::Verdict::Ok)
            return;
        *rejected = true;
        if (verdict == RequestFramer::Verdict::Malformed) {
            // As QtHttpServer 6.4 does: no answer, the connection is closed (after the earlier answers).
            connection->writeLastAndClose({});
            return;
        }
        const int status = verdict == RequestFramer::Verdict::HeaderTooLarge ? 431
            : verdict == RequestFramer::Verdict::BodyTooLarge                ? 413
                                                                             : 400;
        connection->writeLastAndClose(m_responder(status, framer->currentPath()));
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
