#pragma once
// What the tests' throw-away servers (PostgresServer, RedisServer, NginxServer) share: a free
// loopback port and finding a server program that is not on every user's PATH. Thread: any.
#include <QString>

namespace sy::test {

// A TCP port nobody listens on at the moment of asking on 127.0.0.1, or 0. It can be taken
// before the server binds it: callers retry with another.
quint16 freeLoopbackPort();

// `name` on the PATH, else in /usr/sbin or /usr/bin (not on a normal user's PATH); empty when
// not installed.
QString findServerProgram(const QString &name);

} // namespace sy::test
