#pragma once
// LimitedTcpServer: the QTcpServer handed to QtHttpServer's bind(). QtHttpServer accepts the
// connections and owns the sockets' lifetime (deleted once disconnected), but its request parser
// is taken off every accepted socket: it reads the header block one byte per QIODevice::read()
// in a socket transaction, and buffers header blocks and bodies with no limit. Instead every
// socket gets a RequestFramer that reads each batch of bytes in one block and hands every
// complete request, in order, to the RequestDispatcher (HttpFront), enforcing the limits while
// bytes arrive:
//   header block > maxHeaderBytes  -> 431, connection closed
//   Content-Length or chunked body > maxBodyBytes -> 413, connection closed (before buffering)
//   conflicting framing headers, or a line that is no header field -> 400, connection closed
//   a request line QtHttpServer 6.4 refuses too -> connection closed without an answer
// It also answers `Expect: 100-continue` (QtHttpServer 6.4 never does, and curl would stall a second).
//
// Thread: lives on the gateway thread with its HttpFront.
#include "http/RequestFramer.h"

#include <QByteArray>
#include <QTcpServer>
#include <functional>
#include <memory>

namespace sy::http {

struct ConnectionOptions;

// Builds the complete HTTP response sent when a request is refused (431, 413, 400):
// (status, request path) -> bytes.
using LimitResponder = std::function<QByteArray(int status, const QByteArray &path)>;
// Receives every complete request of a connection, in order, on the socket's thread.
using RequestDispatcher = std::function<void(FramedRequest &&request, QTcpSocket *socket)>;

class LimitedTcpServer : public QTcpServer {
    Q_OBJECT
public:
    LimitedTcpServer(FramingLimits limits, const ConnectionOptions &connection, LimitResponder responder,
                     RequestDispatcher dispatcher, QObject *parent = nullptr);
    ~LimitedTcpServer() override;
    // listen() with SO_REUSEPORT (and SO_REUSEADDR) set before bind, so other processes that do
    // the same can listen on the same address and port; the kernel spreads new connections
    // among them. QTcpServer has no such option: the socket is made here and handed over with
    // setSocketDescriptor(). False with errorString() set, like listen().
    bool listenSharingPort(const QHostAddress &address, quint16 port);
    QString errorString() const;
    // New limits for connections accepted from now on (open connections keep theirs).
    void setLimits(FramingLimits limits) { m_limits = limits; }

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    FramingLimits m_limits;
    std::unique_ptr<ConnectionOptions> m_connection;
    LimitResponder m_responder;
    RequestDispatcher m_dispatcher;
    QString m_sharingError;   // why listenSharingPort() failed (QTcpServer's own error is not settable)
};

} // namespace sy::http
