#pragma once
// CounterRate: a per-second rate from a cumulative counter sampled at irregular times, over a
// trailing window (a few seconds smooths the 4 Hz frames without hiding a change for long).
//
// Thread: any, one at a time (a plain value).
#include <QtGlobal>
#include <deque>

namespace sy::app {

class CounterRate {
public:
    explicit CounterRate(qint64 windowMs = 5'000) : m_windowMs(windowMs) {}

    // `atMs`: when the counter had `value` (milliseconds, any epoch, not decreasing).
    void add(qint64 atMs, quint64 value)
    {
        if (!m_samples.empty() && value < m_samples.back().value)
            m_samples.clear();   // the counter restarted (a new gateway): start over
        m_samples.push_back({atMs, value});
        while (m_samples.size() > 2 && atMs - m_samples[1].atMs >= m_windowMs)
            m_samples.pop_front();
    }

    // Events per second over the window; 0 until two samples exist.
    double perSecond() const
    {
        if (m_samples.size() < 2)
            return 0;
        const qint64 spanMs = m_samples.back().atMs - m_samples.front().atMs;
        if (spanMs <= 0)
            return 0;
        return double(m_samples.back().value - m_samples.front().value) * 1000.0 / double(spanMs);
    }

private:
    struct Sample {
        qint64 atMs;
        quint64 value;
    };
    qint64 m_windowMs;
    std::deque<Sample> m_samples;
};

} // namespace sy::app
