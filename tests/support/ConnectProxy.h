#pragma once
// ConnectProxy: a tiny HTTP CONNECT proxy on 127.0.0.1 (port 0) that counts the tunnels it
// opened, for tests that check a client really goes through a proxy. Only CONNECT to loopback
// targets is relayed; anything else is answered 405 (or 403). Thread: the test's thread (event
// loop driven).
#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>

namespace sy::test {

class ConnectProxy : public QObject {
public:
    ConnectProxy();
    ~ConnectProxy() override;

    quint16 port() const { return m_server.serverPort(); }
    QByteArray url() const { return "http://127.0.0.1:" + QByteArray::number(port()); }
    int tunnels() const { return m_tunnels; }
    // "host:port" of each CONNECT, in order.
    const QList<QByteArray> &targets() const { return m_targets; }

private:
    void onNewConnection();
    void onClientData(QTcpSocket *client);

    QTcpServer m_server;
    int m_tunnels = 0;
    QList<QByteArray> m_targets;
};

} // namespace sy::test
