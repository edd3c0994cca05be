#pragma once
// The Lua scripts RedisKeyLimiter runs (EVALSHA, EVAL on a cold cache). Each is one atomic
// check-and-take on the Redis server, timed by the server's own clock (TIME), so instances with
// different clocks still share one window. Keys and arguments: see RedisScripts.cpp.
#include <QByteArray>

namespace sy::limits::redis_scripts {

// KEYS: key RPM window, (key, primary model) RPM window, key slots.
// ARGV: key RPM, model RPM, max concurrent (0 = off each), member (unique per admission),
//       lease in ms.
// Returns {1, "", now} when admitted (counted in each window that has a limit, and holding a slot
// leased until now + lease when the concurrency limit is on), or {0, reason, retry_after_ms}.
extern const QByteArray kAcquire;

// KEYS: key slots. ARGV: lease in ms, members. Extends each member that is still held to
// now + lease; returns how many were.
extern const QByteArray kRenew;

} // namespace sy::limits::redis_scripts
