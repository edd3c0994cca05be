#include "core/EpollEventDispatcher.h"
#include "core/EpollDispatcherClock.h"

#include <QCoreApplication>
#include <QScopeGuard>
#include <QSocketNotifier>
#include <QThread>
#include <QVarLengthArray>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sy {

namespace {

constexpr int kMaxEventsPerWait = 256;  // PendingList holds 3 per event without allocating
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
    m_backgroundEpoll = ::epoll_create1(EPOLL_CLOEXEC);
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
    event.data.fd = m_backgroundEpoll;
    if (m_backgroundEpoll >= 0 && ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_backgroundEpoll, &event) != 0) {
        qWarning("EpollEventDispatcher: no background lane: %s", std::strerror(errno));
        ::close(m_backgroundEpoll);
        m_backgroundEpoll = -1;
    }
}

EpollEventDispatcher::~EpollEventDispatcher()
{
    for (const int fd : {m_epoll, m_backgroundEpoll, m_wakeOnlyEpoll, m_wakeFd}) {
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
    bool backgroundReady = false;
    int processed = waitAndCollect(includeNotifiers, timeoutMs, pending, backgroundReady) + (wokenFromInside ? 1 : 0);
    if (includeNotifiers)
        processed += activateNotifiers(pending);
    if (includeTimers)
        processed += activateTimers();
    if (backgroundReady)
        processed += serveBackground(includeTimers);
    return processed > 0;
}

int EpollEventDispatcher::waitAndCollect(bool includeNotifiers, int timeoutMs, PendingList &pending,
                                         bool &backgroundReady)
{
    epoll_event events[kMaxEventsPerWait];
    const int ready = ::epoll_wait(includeNotifiers ? m_epoll : m_wakeOnlyEpoll, events, kMaxEventsPerWait, timeoutMs);
    if (ready < 0) {
        // EINTR: a signal arrived; the caller's loop comes back here.
        if (errno != EINTR)
            qWarning("EpollEventDispatcher: epoll_wait: %s", std::strerror(errno));
        return 0;
    }
    const int woken = collect(events, ready, pending, backgroundReady);
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

int EpollEventDispatcher::collect(const epoll_event *events, int ready, PendingList &pending, bool &backgroundReady)
{
    int woken = 0;
    for (int i = 0; i < ready; ++i) {
        const int fd = events[i].data.fd;
        if (fd == m_wakeFd) {
            woken = drainWakeUp();
            continue;
        }
        if (fd == m_backgroundEpoll) {
            backgroundReady = true;
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
    return woken;
}

bool EpollEventDispatcher::activate(const Pending &due)
{
    // Looked up again each time: an earlier handler may have disabled, deleted or replaced it.
    const auto it = m_watches.find(due.fd);
    if (it == m_watches.end() || it->second.serials[due.type] != due.serial)
        return false;
    QEvent event(QEvent::SockAct);
    QCoreApplication::sendEvent(it->second.notifiers[due.type], &event);
    return true;
}

int EpollEventDispatcher::activateNotifiers(const PendingList &pending)
{
    int activated = 0;
    for (const Pending &due : pending)
        activated += activate(due) ? 1 : 0;
    return activated;
}

int EpollEventDispatcher::serveBackground(bool includeTimers)
{
    epoll_event events[kMaxEventsPerWait];
    const int ready = ::epoll_wait(m_backgroundEpoll, events, kMaxEventsPerWait, 0);
    if (ready <= 0)
        return 0;
    PendingList pending;
    bool nested = false;  // the background set holds no epoll descriptor
    collect(events, ready, pending, nested);
    constexpr qint64 turnNs = kForegroundTurnUs * 1000;
    qint64 turnAt = detail::monotonicNs() + turnNs;
    int activated = 0;
    for (const Pending &due : pending) {
        if (m_interrupted.load(std::memory_order_relaxed))
            break;  // the rest stays ready (level-triggered) for the next pass
        activated += activate(due) ? 1 : 0;
        if (detail::monotonicNs() >= turnAt) {
            activated += foregroundTurn(includeTimers);
            turnAt = detail::monotonicNs() + turnNs;
        }
    }
    return activated;
}

int EpollEventDispatcher::foregroundTurn(bool includeTimers)
{
    // What the start of a pass does, then a wait that does not block.
    m_wokenFromInside = false;
    QCoreApplication::sendPostedEvents();
    PendingList pending;
    bool backgroundReady = false;  // being served by the caller
    int activated = waitAndCollect(true, 0, pending, backgroundReady);
    activated += activateNotifiers(pending);
    if (includeTimers)
        activated += activateTimers();
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

void EpollEventDispatcher::setBackground(int fd, bool background)
{
    if (m_backgroundEpoll < 0 || fd < 0)
        return;
    if (background)
        m_background.insert(fd);
    else
        m_background.erase(fd);
    const auto it = m_watches.find(fd);
    if (it == m_watches.end() || it->second.alwaysReady || it->second.background == background)
        return;
    Watch &watch = it->second;
    if (watch.events != 0)
        ::epoll_ctl(epollOf(watch), EPOLL_CTL_DEL, fd, nullptr);
    watch.events = 0;  // added again to the other set
    updateWatch(fd, watch);
}

int EpollEventDispatcher::backgroundDescriptors() const
{
    return int(std::count_if(m_watches.begin(), m_watches.end(),
                             [](const auto &entry) { return entry.second.background && entry.second.events != 0; }));
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
            ::epoll_ctl(epollOf(watch), EPOLL_CTL_DEL, fd, nullptr);
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
    if (op == EPOLL_CTL_ADD)
        watch.background = m_background.count(fd) > 0;
    const int set = epollOf(watch);
    int rc = ::epoll_ctl(set, op, fd, &event);
    // The descriptor was closed and its number reused while a notifier was still registered
    // (epoll forgets closed descriptors by itself), or the other way round.
    if (rc != 0 && op == EPOLL_CTL_MOD && errno == ENOENT)
        rc = ::epoll_ctl(set, EPOLL_CTL_ADD, fd, &event);
    else if (rc != 0 && op == EPOLL_CTL_ADD && errno == EEXIST)
        rc = ::epoll_ctl(set, EPOLL_CTL_MOD, fd, &event);
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

void setSocketBackground(qintptr fd, bool background)
{
    if (auto *dispatcher = qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance()))
        dispatcher->setBackground(int(fd), background);
}

} // namespace sy
