// EpollEventDispatcher's timers: ordered by deadline on the monotonic clock (see the header).
#include "core/EpollEventDispatcher.h"
#include "core/EpollDispatcherClock.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimerEvent>
#include <algorithm>
#include <climits>

namespace sy {

using detail::kNsPerMs;
using detail::kNsPerSecond;
using detail::monotonicNs;

// --- timers ----------------------------------------------------------------------------------

void EpollEventDispatcher::registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object)
{
    if (timerId < 1 || interval < 0 || !object) {
        qWarning("EpollEventDispatcher::registerTimer: invalid arguments");
        return;
    }
    if (object->thread() != thread() || thread() != QThread::currentThread()) {
        qWarning("QObject::startTimer: Timers cannot be started from another thread");
        return;
    }
    if (const auto existing = m_timers.find(timerId); existing != m_timers.end())
        removeTimer(existing);  // Qt never reuses a live id; if it did, the newer timer wins
    TimerMap::iterator it;
    if (m_spareTimers.empty()) {
        it = m_timers.try_emplace(timerId).first;
    } else {
        TimerMap::node_type node = std::move(m_spareTimers.back());
        m_spareTimers.pop_back();
        node.key() = timerId;
        it = m_timers.insert(std::move(node)).position;
    }
    Timer &timer = it->second;
    timer.id = timerId;
    timer.intervalMs = interval;
    timer.type = timerType;
    timer.object = object;
    timer.order = 0;
    timer.pass = m_pass;  // not due in an activation pass running now
    timer.activeRef = nullptr;
    const qint64 now = monotonicNs();
    qint64 deadline = now + interval * kNsPerMs;
    if (timer.type == Qt::CoarseTimer && interval >= 20000)
        timer.type = Qt::VeryCoarseTimer;
    if (timer.type == Qt::VeryCoarseTimer) {
        // Whole seconds from the nearest whole second, as Qt does.
        const qint64 seconds = (interval + 500) / 1000;
        timer.intervalMs = seconds * 1000;
        const qint64 base = now / kNsPerSecond + (now % kNsPerSecond > kNsPerSecond / 2 ? 1 : 0);
        deadline = (base + seconds) * kNsPerSecond;
    }
    schedule(timer, deadline);
}

template <class Node>
void EpollEventDispatcher::keepSpare(std::vector<Node> &spares, Node node)
{
    // Enough for the timers a burst of requests starts; beyond that the node is freed.
    constexpr std::size_t kMaxSpares = 64;
    if (spares.size() < kMaxSpares)
        spares.push_back(std::move(node));
}

void EpollEventDispatcher::schedule(Timer &timer, qint64 deadlineNs)
{
    timer.deadlineNs = deadlineNs;
    timer.order = m_nextOrder++;
    const TimerKey key{timer.deadlineNs, timer.order};
    if (m_spareQueueNodes.empty()) {
        m_queue.emplace(key, &timer);
        return;
    }
    TimerQueue::node_type node = std::move(m_spareQueueNodes.back());
    m_spareQueueNodes.pop_back();
    node.key() = key;
    node.mapped() = &timer;
    m_queue.insert(std::move(node));
}

void EpollEventDispatcher::scheduleNext(Timer &timer, qint64 nowNs)
{
    const qint64 intervalNs = timer.intervalMs * kNsPerMs;
    qint64 next = timer.deadlineNs + intervalNs;
    // Fell behind (or interval 0): once from now, no burst of catch-up events.
    if (next <= nowNs)
        next = timer.type == Qt::VeryCoarseTimer ? (nowNs / kNsPerSecond) * kNsPerSecond + intervalNs : nowNs + intervalNs;
    schedule(timer, next);
}

void EpollEventDispatcher::removeTimer(TimerMap::iterator it)
{
    Timer &timer = it->second;
    if (timer.activeRef)
        *timer.activeRef = nullptr;
    if (auto queued = m_queue.extract(TimerKey{timer.deadlineNs, timer.order}))
        keepSpare(m_spareQueueNodes, std::move(queued));
    keepSpare(m_spareTimers, m_timers.extract(it));
}

bool EpollEventDispatcher::unregisterTimer(int timerId)
{
    const auto it = m_timers.find(timerId);
    if (it == m_timers.end())
        return false;
    if (thread() != QThread::currentThread()) {
        qWarning("QObject::killTimer: Timers cannot be stopped from another thread");
        return false;
    }
    removeTimer(it);
    return true;
}

bool EpollEventDispatcher::unregisterTimers(QObject *object)
{
    if (thread() != QThread::currentThread()) {
        qWarning("QObject::killTimers: Timers cannot be stopped from another thread");
        return false;
    }
    bool removed = false;
    for (auto it = m_timers.begin(); it != m_timers.end();) {
        if (it->second.object == object) {
            auto next = std::next(it);
            removeTimer(it);
            it = next;
            removed = true;
        } else {
            ++it;
        }
    }
    return removed;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollEventDispatcher::registeredTimers(QObject *object) const
{
    QList<TimerInfo> result;
    for (const auto &[id, timer] : m_timers) {
        if (timer.object == object)
            result.append(TimerInfo(id, int(timer.intervalMs), timer.type));
    }
    return result;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    const auto it = m_timers.find(timerId);
    if (it == m_timers.end())
        return -1;
    const qint64 left = it->second.deadlineNs - monotonicNs();
    return left <= 0 ? 0 : int(std::min<qint64>(left / kNsPerMs, INT_MAX));
}

int EpollEventDispatcher::timeoutForWait(bool canWait, bool includeTimers)
{
    if (!canWait)
        return 0;
    if (!includeTimers)
        return -1;
    // A timer whose handler is running (a nested loop inside it) does not bound the wait: it
    // cannot fire until that handler returns.
    for (const auto &[key, timer] : m_queue) {
        if (timer->activeRef)
            continue;
        const qint64 left = key.first - monotonicNs();
        if (left <= 0)
            return 0;
        // Rounded up: waking before the deadline would only spin.
        return int(std::min<qint64>((left + kNsPerMs - 1) / kNsPerMs, INT_MAX));
    }
    return -1;
}

int EpollEventDispatcher::activateTimers()
{
    if (m_queue.empty())
        return 0;
    const quint64 pass = ++m_pass;
    const qint64 now = monotonicNs();
    int activated = 0;
    while (!m_queue.empty()) {
        const auto first = m_queue.begin();
        Timer *timer = first->second;
        // Ordered by deadline: the first one not due ends the pass; so does one already fired
        // (interval 0) or registered in this pass, since everything behind it came later.
        if (timer->deadlineNs > now || timer->pass == pass)
            break;
        keepSpare(m_spareQueueNodes, m_queue.extract(first));
        timer->pass = pass;
        scheduleNext(*timer, now);
        if (timer->intervalMs > 0)
            ++activated;  // as Qt: zero-interval timers alone do not count as work done
        if (timer->activeRef)
            continue;     // its handler is running further up the stack (a nested loop)
        Timer *self = timer;
        timer->activeRef = &self;
        QTimerEvent event(timer->id);
        QCoreApplication::sendEvent(timer->object, &event);
        if (self)  // null when the handler unregistered it
            self->activeRef = nullptr;
    }
    return activated;
}

} // namespace sy
