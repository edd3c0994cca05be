#pragma once
// A Clock that moves only when a test says so, so tests step exactly onto and across time
// boundaries (buckets, windows, cooldowns) without sleeping. Single-threaded test use.
#include "core/Clock.h"

#include <QDateTime>
#include <chrono>

namespace sy::test {

class FakeClock final : public Clock {
public:
    // Starts at a steady time that is a whole number of hours (so it is aligned to any bucket
    // size that divides an hour) and at a fixed wall time; both move together on advance().
    explicit FakeClock(TimePoint start = TimePoint{} + std::chrono::hours(1000),
                       QDateTime wallStart = QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC))
        : m_now(start), m_start(start), m_wallStart(wallStart)
    {
    }

    TimePoint now() const override { return m_now; }
    QDateTime wallNow() const override
    {
        const auto elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_now - m_start);
        return m_wallStart.addMSecs(elapsedMs.count());
    }

    // Moves both clocks forward by `step` (a negative step is a test error and is ignored,
    // because steady time never goes back).
    template <class Rep, class Period>
    void advance(std::chrono::duration<Rep, Period> step)
    {
        if (step.count() > 0)
            m_now += std::chrono::duration_cast<TimePoint::duration>(step);
    }

private:
    TimePoint m_now;
    TimePoint m_start;
    QDateTime m_wallStart;
};

} // namespace sy::test
