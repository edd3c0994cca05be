#pragma once
// CapacityWait: one request waiting for a slot on the channels of a model (SPEC §8 capacity
// queue). It waits in line at every full channel at once — the first slot freed anywhere is taken
// (a guess of which channel frees first would leave the request waiting while another sits idle)
// — until a deadline counted from the first time the request queued.
//
// Ownership: a member of one exchange. Thread: the gateway thread; the callbacks run from the
// event loop, never inside another request's slot release.
#include "core/Clock.h"
#include "limits/CapacityQueue.h"

#include <QBasicTimer>
#include <QObject>
#include <QStringList>
#include <functional>
#include <vector>

namespace sy::service {

class CapacityWait : public QObject {
public:
    using Granted = std::function<void(limits::CapacityQueue::Slot slot)>;
    using TimedOut = std::function<void()>;

    CapacityWait(limits::CapacityQueue &queue, const Clock &clock) : m_queue(queue), m_clock(clock) {}
    ~CapacityWait() override { cancel(); }

    // Queues at each of `channels`; `limit` is the total time this request may spend queued
    // across all its waits. `onTimeout` runs at once (from the event loop) when none is left.
    void wait(const QStringList &channels, std::chrono::milliseconds limit, Granted onGranted, TimedOut onTimeout);
    // Leaves every line (a slot granted later is passed on to the next waiter).
    void cancel();
    bool waiting() const { return !m_waiters.empty(); }
    // Total time spent queued so far.
    std::chrono::milliseconds queued() const { return m_queued; }

protected:
    void timerEvent(QTimerEvent *event) override;

private:
    void granted(limits::CapacityQueue::Slot slot);

    limits::CapacityQueue &m_queue;
    const Clock &m_clock;
    std::vector<limits::CapacityQueue::WaiterId> m_waiters;
    std::optional<Clock::TimePoint> m_firstQueuedAt;
    Clock::TimePoint m_waitStartedAt{};
    std::chrono::milliseconds m_queued{0};
    QBasicTimer m_timer;
    Granted m_onGranted;
    TimedOut m_onTimeout;
};

} // namespace sy::service
