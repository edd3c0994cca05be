#include "support/ConnectProxy.h"

#include <QHostAddress>

namespace sy::test {

ConnectProxy::ConnectProxy()
{
    m_server.listen(QHostAddress::LocalHost, 0);
    connect(&m_server, &QTcpServer::newConnection, this, &ConnectProxy::onNewConnection);
}

ConnectProxy::~ConnectProxy() = default;

void ConnectProxy::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        client->setParent(this);
        connect(client, &QTcpSocket::readyRead, this, [this, client] { onClientData(client); });
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
    }
}

void ConnectProxy::onClientData(QTcpSocket *client)
{
    // Until the head is complete the data is the CONNECT request; after that the client socket
    // is relayed by the lambdas set up below and this slot is disconnected.
    QByteArray head = client->property("head").toByteArray() + client->readAll();
    const qsizetype end = head.indexOf("\r\n\r\n");
    if (end < 0) {
        client->setProperty("head", head);
        return;
    }
    disconnect(client, &QTcpSocket::readyRead, this, nullptr);
    const QByteArray requestLine = head.left(head.indexOf("\r\n"));
    const QList<QByteArray> parts = requestLine.split(' ');
    if (parts.size() < 3 || parts[0] != "CONNECT") {
        client->write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        client->disconnectFromHost();
        return;
    }
    const QByteArray target = parts[1];
    const qsizetype colon = target.lastIndexOf(':');
    const QByteArray host = target.left(colon);
    const quint16 port = quint16(target.mid(colon + 1).toUInt());
    if (host != "127.0.0.1" && host != "localhost") {
        client->write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        client->disconnectFromHost();
        return;
    }
    ++m_tunnels;
    m_targets.append(target);
    const QByteArray early = head.mid(end + 4);

    auto *upstream = new QTcpSocket(this);
    QPointer<QTcpSocket> guardedClient(client);
    connect(upstream, &QTcpSocket::connected, this, [guardedClient, upstream, early] {
        if (!guardedClient)
            return upstream->disconnectFromHost();
        guardedClient->write("HTTP/1.1 200 Connection established\r\n\r\n");
        if (!early.isEmpty())
            upstream->write(early);
        connect(guardedClient, &QTcpSocket::readyRead, upstream, [guardedClient, upstream] {
            upstream->write(guardedClient->readAll());
        });
        connect(upstream, &QTcpSocket::readyRead, guardedClient, [guardedClient, upstream] {
            guardedClient->write(upstream->readAll());
        });
        // Data that came with the CONNECT head's packet but after it.
        if (guardedClient->bytesAvailable() > 0)
            upstream->write(guardedClient->readAll());
    });
    connect(upstream, &QTcpSocket::disconnected, this, [guardedClient, upstream] {
        if (guardedClient)
            guardedClient->disconnectFromHost();
        upstream->deleteLater();
    });
    connect(upstream, &QTcpSocket::errorOccurred, this, [guardedClient, upstream](QAbstractSocket::SocketError) {
        if (guardedClient && upstream->state() != QAbstractSocket::ConnectedState) {
            guardedClient->write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            guardedClient->disconnectFromHost();
        }
    });
    connect(client, &QTcpSocket::disconnected, upstream, [upstream] { upstream->disconnectFromHost(); });
    upstream->connectToHost(QHostAddress(QString::fromLatin1(host == "localhost" ? "127.0.0.1" : host)), port);
}

} // namespace sy::test
