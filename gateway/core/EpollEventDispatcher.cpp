#include "core/EpollEventDispatcher.h"

#include <QCoreApplication>
#include <QScopeGuard>
#include <QSocketNotifier>
#include <QThread>
#include <QTimerEvent>
#include <QVarLengthArray>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sy {

namespace {

constexpr int kMaxEventsPerWait = 256;  // PendingList holds 3 per event without allocating
constexpr qint64 kNsPerMs = 1000 * 1000;
constexpr qint64 kNsPerSecond = 1000 * kNsPerMs;

qint64 monotonicNs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * kNsPerSecond + now.tv_nsec;
}

// QSocketNotifier::Type is the index into Watch::notifiers.
constexpr quint32 kRequested[3] = {EPOLLIN, EPOLLOUT, EPOLLPRI};
// What activates each type: as Qt's poll() dispatcher, a hang-up or error wakes every notifier
// of the descriptor so its owner finds out on its next read or write.
constexpr quint32 kActivating[3] = {EPOLLIN | EPOLLHUP | EPOLLERR, EPOLLOUT | EPOLLHUP | EPOLLERR,
                                    EPOLLPRI | EPOLLHUP | EPOLLERR};

const char *typeName(int type)
{
    static const char *const names[3] = {"Read", "Write", "Exception"};
    return names[type];
}

} // namespace

EpollEventDispatcher::EpollEventDispatcher(QObject *parent)
    : QAbstractEventDispatcher(parent)
{
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeOnlyEpoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (m_epoll < 0 || m_wakeOnlyEpoll < 0 || m_wakeFd < 0) {
        qWarning("EpollEventDispatcher: cannot create epoll/eventfd descriptors: %s", std::strerror(errno));
        return;
    }
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = m_wakeFd;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &event) != 0
        || ::epoll_ctl(m_wakeOnlyEpoll, EPOLL_CTL_ADD, m_wakeFd, &event) != 0) {
        qWarning("EpollEventDispatcher: cannot watch the eventfd: %s", std::strerror(errno));
        ::close(m_wakeFd);
        m_wakeFd = -1;
    }
}

EpollEventDispatcher::~EpollEventDispatcher()
{
    for (const int fd : {m_epoll, m_wakeOnlyEpoll, m_wakeFd}) {
        if (fd >= 0)
            ::close(fd);
    }
}

namespace {

// The dispatcher whose processEvents() runs on this thread (nested passes restore the outer one).
thread_local EpollEventDispatcher *t_processing = nullptr;

} // namespace

bool EpollEventDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
    EpollEventDispatcher *const outer = std::exchange(t_processing, this);
    const auto restore = qScopeGuard([outer] { t_processing = outer; });
    m_interrupted.store(false, std::memory_order_relaxed);
    emit awake();
    // Posts from here on (this thread) set the flag again; the ones before are sent now.
    m_wokenFromInside = false;
    QCoreApplication::sendPostedEvents();

    const bool includeTimers = !(flags & QEventLoop::X11ExcludeTimers);
    const bool includeNotifiers = !(flags & QEventLoop::ExcludeSocketNotifiers);
    // Events posted from here on call wakeUp(), so the wait below returns at once for them: that
    // is what keeps a post made by a handler from waiting for the next socket event.
    const bool canWait = (flags & QEventLoop::WaitForMoreEvents) && !m_interrupted.load(std::memory_order_relaxed);
    if (canWait)
        emit aboutToBlock();
    if (m_interrupted.load(std::memory_order_relaxed))
        return false;

    int timeoutMs = timeoutForWait(canWait, includeTimers);
    if (includeNotifiers && !m_alwaysReady.empty())
        timeoutMs = 0;
    // An event posted by this thread's own handlers (the eventfd was not written for it): what
    // the eventfd's readiness would do, without the write and the read.
    const bool wokenFromInside = m_wokenFromInside;
    if (wokenFromInside)
        timeoutMs = 0;

    PendingList pending;
    int processed = waitAndCollect(includeNotifiers, timeoutMs, pending) + (wokenFromInside ? 1 : 0);
    if (includeNotifiers)
        processed += activateNotifiers(pending);
    if (includeTimers)
        processed += activateTimers();
    return processed > 0;
}

int EpollEventDispatcher::waitAndCollect(bool includeNotifiers, int timeoutMs, PendingList &pending)
{
    epoll_event events[kMaxEventsPerWait];
    const int ready = ::epoll_wait(includeNotifiers ? m_epoll : m_wakeOnlyEpoll, events, kMaxEventsPerWait, timeoutMs);
    if (ready < 0) {
        // EINTR: a signal arrived; the caller's loop comes back here.
        if (errno != EINTR)
            qWarning("EpollEventDispatcher: epoll_wait: %s", std::strerror(errno));
        return 0;
    }
    int woken = 0;
    for (int i = 0; i < ready; ++i) {
        const int fd = events[i].data.fd;
        if (fd == m_wakeFd) {
            woken = drainWakeUp();
            continue;
        }
        const auto it = m_watches.find(fd);
        if (it == m_watches.end())
            continue;
        for (int type = 0; type < 3; ++type) {
            if (it->second.notifiers[type] && (events[i].events & kActivating[type]))
                pending.append({fd, type, it->second.serials[type]});
        }
    }
    if (includeNotifiers) {
        // poll() reports a regular file readable and writable, always.
        for (const int fd : m_alwaysReady) {
            const Watch &watch = m_watches.at(fd);
            for (int type = 0; type < 2; ++type) {
                if (watch.notifiers[type])
                    pending.append({fd, type, watch.serials[type]});
            }
        }
    }
    return woken;
}

int EpollEventDispatcher::activateNotifiers(const PendingList &pending)
{
    int activated = 0;
    QEvent event(QEvent::SockAct);
    for (const Pending &due : pending) {
        // Looked up again each time: an earlier handler may have disabled, deleted or replaced it.
        const auto it = m_watches.find(due.fd);
        if (it == m_watches.end() || it->second.serials[due.type] != due.serial)
            continue;
        QCoreApplication::sendEvent(it->second.notifiers[due.type], &event);
        ++activated;
    }
    return activated;
}

bool EpollEventDispatcher::drainWakeUp()
{
    eventfd_t count = 0;
    [[maybe_unused]] const int rc = ::eventfd_read(m_wakeFd, &count);
    // After the read: a wakeUp() from now on writes again, so none is lost.
    m_wakeUpPending.store(false, std::memory_order_release);
    return true;
}

void EpollEventDispatcher::wakeUp()
{
    if (t_processing == this) {
        // This thread, inside processEvents(): it looks at the flag before it waits.
        m_wokenFromInside = true;
        return;
    }
    bool expected = false;
    if (m_wakeUpPending.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        m_eventfdWrites.fetch_add(1, std::memory_order_relaxed);
        [[maybe_unused]] const int rc = ::eventfd_write(m_wakeFd, 1);
    }
}

void EpollEventDispatcher::interrupt()
{
    m_interrupted.store(true, std::memory_order_relaxed);
    wakeUp();
}

// --- socket notifiers ------------------------------------------------------------------------

void EpollEventDispatcher::registerSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = int(notifier->socket());
    const int type = int(notifier->type());
    if (fd < 0 || notifier->thread() != thread() || thread() != QThread::currentThread()) {
        qWarning("QSocketNotifier: socket notifiers cannot be enabled from another thread");
        return;
    }
    Watch &watch = m_watches[fd];
    if (watch.notifiers[type] && watch.notifiers[type] != notifier)
        qWarning("QSocketNotifier: Multiple socket notifiers for same socket %d and type %s", fd, typeName(type));
    watch.notifiers[type] = notifier;
    watch.serials[type] = m_nextSerial++;
    updateWatch(fd, watch);
}

void EpollEventDispatcher::unregisterSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = int(notifier->socket());
    const int type = int(notifier->type());
    if (notifier->thread() != thread() || thread() != QThread::currentThread()) {
        qWarning("QSocketNotifier: socket notifier (fd %d) cannot be disabled from another thread", fd);
        return;
    }
    const auto it = m_watches.find(fd);
    if (it == m_watches.end() || it->second.notifiers[type] != notifier)
        return;
    it->second.notifiers[type] = nullptr;
    it->second.serials[type] = 0;
    updateWatch(fd, it->second);
}

void EpollEventDispatcher::updateWatch(int fd, Watch &watch)
{
    quint32 wanted = 0;
    for (int type = 0; type < 3; ++type) {
        if (watch.notifiers[type])
            wanted |= kRequested[type];
    }
    if (wanted == 0) {
        // A descriptor closed before its notifier went is already gone from epoll: ignore errors.
        if (watch.events != 0)
            ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
        if (watch.alwaysReady)
            m_alwaysReady.erase(std::find(m_alwaysReady.begin(), m_alwaysReady.end(), fd));
        m_watches.erase(fd);
        return;
    }
    if (watch.alwaysReady || wanted == watch.events)
        return;
    epoll_event event{};
    event.events = wanted;
    event.data.fd = fd;
    const int op = watch.events != 0 ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    int rc = ::epoll_ctl(m_epoll, op, fd, &event);
    // The descriptor was closed and its number reused while a notifier was still registered
    // (epoll forgets closed descriptors by itself), or the other way round.
    if (rc != 0 && op == EPOLL_CTL_MOD && errno == ENOENT)
        rc = ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event);
    else if (rc != 0 && op == EPOLL_CTL_ADD && errno == EEXIST)
        rc = ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event);
    if (rc == 0) {
        watch.events = wanted;
    } else if (errno == EPERM) {
        watch.events = 0;
        watch.alwaysReady = true;
        m_alwaysReady.push_back(fd);
    } else {
        qWarning("EpollEventDispatcher: cannot watch descriptor %d: %s", fd, std::strerror(errno));
    }
}

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
    auto timer = std::make_unique<Timer>();
    timer->id = timerId;
    timer->intervalMs = interval;
    timer->type = timerType;
    timer->object = object;
    timer->order = 0;
    timer->pass = m_pass;  // not due in an activation pass running now
    timer->activeRef = nullptr;
    const qint64 now = monotonicNs();
    qint64 deadline = now + interval * kNsPerMs;
    if (timer->type == Qt::CoarseTimer && interval >= 20000)
        timer->type = Qt::VeryCoarseTimer;
    if (timer->type == Qt::VeryCoarseTimer) {
        // Whole seconds from the nearest whole second, as Qt does.
        const qint64 seconds = (interval + 500) / 1000;
        timer->intervalMs = seconds * 1000;
        const qint64 base = now / kNsPerSecond + (now % kNsPerSecond > kNsPerSecond / 2 ? 1 : 0);
        deadline = (base + seconds) * kNsPerSecond;
    }
    Timer &stored = *timer;
    m_timers[timerId] = std::move(timer);
    schedule(stored, deadline);
}

void EpollEventDispatcher::schedule(Timer &timer, qint64 deadlineNs)
{
    timer.deadlineNs = deadlineNs;
    timer.order = m_nextOrder++;
    m_queue.emplace(TimerKey{timer.deadlineNs, timer.order}, &timer);
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
    Timer *timer = it->second.get();
    if (timer->activeRef)
        *timer->activeRef = nullptr;
    m_queue.erase(TimerKey{timer->deadlineNs, timer->order});
    m_timers.erase(it);
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
        if (it->second->object == object) {
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
        if (timer->object == object)
            result.append(TimerInfo(id, int(timer->intervalMs), timer->type));
    }
    return result;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    const auto it = m_timers.find(timerId);
    if (it == m_timers.end())
        return -1;
    const qint64 left = it->second->deadlineNs - monotonicNs();
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
        m_queue.erase(first);
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

// --- choice ----------------------------------------------------------------------------------

QAbstractEventDispatcher *createGatewayEventDispatcher()
{
    const QByteArray choice = qgetenv("SWITCHYARD_EVENT_DISPATCHER").trimmed().toLower();
    if (choice == "qt")
        return nullptr;
    if (!choice.isEmpty() && choice != "epoll")
        qWarning("SWITCHYARD_EVENT_DISPATCHER=%s: unknown (epoll or qt); using epoll", choice.constData());
    auto dispatcher = std::make_unique<EpollEventDispatcher>();
    if (!dispatcher->isValid())
        return nullptr;
    return dispatcher.release();
}

} // namespace sy
