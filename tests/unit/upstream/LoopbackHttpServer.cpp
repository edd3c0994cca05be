#include "LoopbackHttpServer.h"

#include <QSslServer>
#include <QTimer>
#include <sys/socket.h>

namespace sy::upstream::test {

Step Step::write(QByteArray bytes, std::chrono::milliseconds delay)
{
    return {Kind::Write, delay, std::move(bytes)};
}

Step Step::close(std::chrono::milliseconds delay)
{
    return {Kind::Close, delay, {}};
}

Step Step::reset(std::chrono::milliseconds delay)
{
    return {Kind::Reset, delay, {}};
}

LoopbackHttpServer::LoopbackHttpServer(const QSslConfiguration *tls)
    : tls_(tls != nullptr)
{
    if (tls) {
        auto server = std::make_unique<QSslServer>();
        server->setSslConfiguration(*tls);
        server_ = std::move(server);
    } else {
        server_ = std::make_unique<QTcpServer>();
    }
    script_ = [](const ReceivedRequest &) { return QList<Step>{Step::write(response(200, "ok"))}; };
    // QSslServer offers a connection only once its handshake is done.
    connect(server_.get(), &QTcpServer::pendingConnectionAvailable, this,
            &LoopbackHttpServer::onNewConnection);
    server_->listen(QHostAddress::LocalHost, 0);
}

LoopbackHttpServer::~LoopbackHttpServer()
{
    // The sockets are the server's children and say "disconnected" as they die: not to us.
    for (const Connection &connection : std::as_const(sockets_)) {
        if (connection.socket)
            connection.socket->disconnect(this);
    }
    server_.reset();
}

QByteArray LoopbackHttpServer::url(QByteArrayView path) const
{
    return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + QByteArray::number(port())
        + path.toByteArray();
}

void LoopbackHttpServer::onNewConnection()
{
    while (QTcpSocket *socket = server_->nextPendingConnection()) {
        const int index = int(sockets_.size());
        sockets_.append({socket, {}, false});
        peakOpen_ = std::max(peakOpen_, ++open_);
        connect(socket, &QTcpSocket::readyRead, this, [this, index] { onReadyRead(index); });
        connect(socket, &QTcpSocket::disconnected, this, [this, index] {
            --open_;
            if (!sockets_[index].closedByUs)
                ++closedByPeer_;
            if (QTcpSocket *gone = sockets_[index].socket)
                gone->deleteLater();
        });
        if (socket->bytesAvailable() > 0)
            onReadyRead(index);
    }
}

void LoopbackHttpServer::onReadyRead(int index)
{
    QTcpSocket *socket = sockets_[index].socket;
    if (!socket)
        return;
    const QByteArray bytes = socket->readAll();
    bytesReceived_ += bytes.size();
    sockets_[index].buffer += bytes;
    ReceivedRequest request;
    while (takeRequest(sockets_[index], index, request)) {
        requests_.append(request);
        runSteps(index, script_(request));
    }
}

bool LoopbackHttpServer::takeRequest(Connection &connection, int index, ReceivedRequest &out)
{
    QByteArray &buffer = connection.buffer;
    const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
    if (headEnd < 0)
        return false;
    const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
    ReceivedRequest request;
    request.connection = index;
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    request.method = requestLine.value(0);
    request.target = requestLine.value(1);
    qsizetype contentLength = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        QByteArray name = line.left(colon).trimmed().toLower();
        QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length")
            contentLength = value.toLongLong();
        request.headers.append({std::move(name), std::move(value)});
    }
    const qsizetype total = headEnd + 4 + contentLength;
    if (buffer.size() < total)
        return false;
    request.body = buffer.mid(headEnd + 4, contentLength);
    buffer.remove(0, total);
    out = std::move(request);
    return true;
}

void LoopbackHttpServer::runSteps(int index, QList<Step> steps)
{
    QTcpSocket *socket = sockets_[index].socket;
    if (steps.isEmpty() || !socket)
        return;
    const Step step = steps.takeFirst();
    auto execute = [this, index, step, rest = std::move(steps)]() mutable {
        QTcpSocket *target = sockets_[index].socket;
        if (!target || target->state() != QAbstractSocket::ConnectedState)
            return;
        switch (step.kind) {
        case Step::Kind::Write:
            target->write(step.bytes);
            break;
        case Step::Kind::Close:
            sockets_[index].closedByUs = true;
            target->disconnectFromHost();
            return;
        case Step::Kind::Reset: {
            // A zero linger time makes close() send RST instead of FIN.
            const linger hard{1, 0};
            ::setsockopt(int(target->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hard,
                         sizeof hard);
            sockets_[index].closedByUs = true;
            target->abort();
            return;
        }
        }
        runSteps(index, std::move(rest));
    };
    if (step.delay.count() == 0)
        execute();
    else
        QTimer::singleShot(step.delay, socket, std::move(execute));
}

bool LoopbackHttpServer::write(int connection, const QByteArray &bytes)
{
    QTcpSocket *socket = sockets_.value(connection).socket;
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return false;
    return socket->write(bytes) == bytes.size();
}

QByteArray LoopbackHttpServer::response(int status, const QByteArray &body,
                                        const http::HeaderList &headers)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + http::reasonPhrase(status)
        + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    return out + "\r\n" + body;
}

QByteArray LoopbackHttpServer::chunkedHead(int status, const http::HeaderList &headers)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + http::reasonPhrase(status)
        + "\r\nTransfer-Encoding: chunked\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    return out + "\r\n";
}

QByteArray LoopbackHttpServer::chunk(const QByteArray &bytes)
{
    return QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n";
}

} // namespace sy::upstream::test
