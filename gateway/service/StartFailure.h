#pragma once
// Why a gateway could not listen, said so that a user can act on it: what failed, the address
// and port, and what to do. Shared by switchyard-gateway and the desktop app, which each say how
// another port is chosen in their own words (`whatToDo`).
//
// Thread: any (the probe opens and closes a socket on the calling thread).
#include <QString>

namespace sy::service {

// `rawError`: what GatewayService::start() said. Address in use, no permission and an address
// that is not this machine's are recognised by probing the same address once more.
QString listenFailureMessage(const QString &host, quint16 port, const QString &rawError, const QString &whatToDo);

} // namespace sy::service
