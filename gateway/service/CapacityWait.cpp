#include "service/CapacityWait.h"

#include <QPointer>
#include <QTimerEvent>

namespace sy::service {

void CapacityWait::wait(const QStringList &channels, std::chrono::milliseconds limit, Granted onGranted, TimedOut onTimeout)
{
    cancel();
    m_onGranted = std::move(onGranted);
    m_onTimeout = std::move(onTimeout);
    const auto now = m_clock.now();
    if (!m_firstQueuedAt)
        m_firstQueuedAt = now;
    const auto deadline = *m_firstQueuedAt + limit;
    if (now >= deadline || channels.isEmpty()) {
        QMetaObject::invokeMethod(this, [this] { if (m_onTimeout) m_onTimeout(); }, Qt::QueuedConnection);
        return;
    }
    m_waitStartedAt = now;
    QPointer<CapacityWait> self(this);
    for (const QString &channel : channels) {
        m_waiters.push_back(m_queue.enqueue(channel, [self](limits::CapacityQueue::Slot slot, std::chrono::milliseconds) {
            // The grant arrives inside another request's slot release: continue from the event
            // loop, holding the slot meanwhile (if this wait is gone by then, it is released).
            auto held = std::make_shared<limits::CapacityQueue::Slot>(std::move(slot));
            QMetaObject::invokeMethod(self.data(), [self, held] {
                if (self)
                    self->granted(std::move(*held));
            }, Qt::QueuedConnection);
        }));
    }
    m_timer.start(int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()), this);
}

void CapacityWait::granted(limits::CapacityQueue::Slot slot)
{
    if (m_waiters.empty()) {
        slot.release();  // a second grant, or too late: pass the slot on to the channel's next waiter
        return;
    }
    cancel();  // the other channels' places in line
    if (m_onGranted)
        m_onGranted(std::move(slot));
}

void CapacityWait::cancel()
{
    m_timer.stop();
    if (m_waiters.empty())
        return;
    for (const limits::CapacityQueue::WaiterId id : std::exchange(m_waiters, {}))
        m_queue.cancel(id);
    m_queued += std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - m_waitStartedAt);
}

void CapacityWait::timerEvent(QTimerEvent *event)
{
    if (event->timerId() != m_timer.timerId())
        return QObject::timerEvent(event);
    cancel();
    if (m_onTimeout)
        m_onTimeout();
}

} // namespace sy::service
