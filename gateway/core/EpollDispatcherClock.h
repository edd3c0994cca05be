#pragma once
// The monotonic clock of EpollEventDispatcher's timers and turns, in nanoseconds. Internal to
// the dispatcher's two source files.
#include <QtGlobal>
#include <ctime>

namespace sy::detail {

constexpr qint64 kNsPerMs = 1000 * 1000;
constexpr qint64 kNsPerSecond = 1000 * kNsPerMs;

inline qint64 monotonicNs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * kNsPerSecond + now.tv_nsec;
}

} // namespace sy::detail
