#include "service/StartFailure.h"

#include <QHostAddress>
#include <QTcpServer>

namespace sy::service {

namespace {

// The socket error a listen on host:port gives now (UnknownSocketError when it succeeds).
QAbstractSocket::SocketError probe(const QString &host, quint16 port)
{
    QHostAddress address;
    if (host == QLatin1String("localhost"))
        address = QHostAddress::LocalHost;
    else if (!address.setAddress(host))
        return QAbstractSocket::HostNotFoundError;
    QTcpServer server;
    return server.listen(address, port) ? QAbstractSocket::UnknownSocketError : server.serverError();
}

} // namespace

QString listenFailureMessage(const QString &host, quint16 port, const QString &rawError, const QString &whatToDo)
{
    QAbstractSocket::SocketError error = port == 0 ? QAbstractSocket::UnknownSocketError : probe(host, port);
    if (error == QAbstractSocket::UnknownSocketError && rawError.contains(QLatin1String("already in use")))
        error = QAbstractSocket::AddressInUseError;   // freed in between: the first answer stands
    else if (error == QAbstractSocket::UnknownSocketError && rawError.contains(QLatin1String("address is not available")))
        error = QAbstractSocket::SocketAddressNotAvailableError;   // port 0 is not probed
    switch (error) {
    case QAbstractSocket::AddressInUseError:
        return QStringLiteral("Port %1 is already in use by another program. %2").arg(port).arg(whatToDo);
    case QAbstractSocket::SocketAccessError:
        return QStringLiteral("Port %1 needs privileges this program does not have (ports below 1024 usually do). "
                              "Use a port above 1023. %2").arg(port).arg(whatToDo);
    case QAbstractSocket::SocketAddressNotAvailableError:
    case QAbstractSocket::HostNotFoundError:
        return QStringLiteral("%1 is not an address of this computer, so the gateway cannot listen on it. "
                              "Start with --listen 127.0.0.1:%2 (private to this computer).").arg(host).arg(port);
    default:
        return QStringLiteral("The gateway cannot listen on %1:%2 (%3). %4").arg(host).arg(port).arg(rawError, whatToDo);
    }
}

} // namespace sy::service
