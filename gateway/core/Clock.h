#pragma once
// Time source for every policy and timer decision. Policies never read the system clock directly,
// so tests drive time with FakeClock (tests/support) on both sides of each boundary.
#include <chrono>
#include <QDateTime>

namespace sy {

class Clock {
public:
    using TimePoint = std::chrono::steady_clock::time_point;
    virtual ~Clock() = default;
    // Monotonic time for intervals and deadlines. Any thread.
    virtual TimePoint now() const = 0;
    // Wall-clock time for display, logs and sunset dates. Any thread.
    virtual QDateTime wallNow() const = 0;
};

// The real clock. Stateless, so one shared instance serves every thread.
class SystemClock final : public Clock {
public:
    TimePoint now() const override { return std::chrono::steady_clock::now(); }
    QDateTime wallNow() const override { return QDateTime::currentDateTimeUtc(); }
    static const SystemClock &instance();
};

} // namespace sy
