#pragma once
// EpollEventDispatcher: a Qt event dispatcher for Linux whose cost per wake-up grows with the
// descriptors that are ready, not with the descriptors that are watched. Qt 6.4's own UNIX
// dispatcher rebuilds a pollfd array of every socket notifier and hands it to poll() on every
// wake-up, which with thousands of open streams (two descriptors each in the gateway) is the whole
// core. Here every descriptor is registered with epoll once (level-triggered, so readiness means
// what poll() says), the thread is woken through an eventfd, and timers are kept ordered by
// deadline on the monotonic clock.
//
// Behaves like QEventDispatcherUNIX where the gateway can tell: posted events are sent first,
// aboutToBlock()/awake() are emitted around the wait, a notifier removed by an earlier handler of
// the same batch is not activated, a timer is not fired again from inside its own handler, a
// repeating timer that fell behind fires once and is rescheduled from now. Deliberate
// simplification: Qt::CoarseTimer is treated as precise (Qt only uses its 5 % slack to align
// wake-ups); at 20 s and more it becomes whole-second, like Qt::VeryCoarseTimer.
//
// Thread: create on any thread, then hand it to QCoreApplication::setEventDispatcher (before the
// application exists) or QThread::setEventDispatcher (before start()); Qt takes ownership and
// moves it to that thread. wakeUp() and interrupt() may be called from any thread; everything
// else is called by Qt on the dispatcher's thread only.
#include <QAbstractEventDispatcher>
#include <QVarLengthArray>
#include <atomic>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sy {

class EpollEventDispatcher final : public QAbstractEventDispatcher {
    Q_OBJECT
public:
    explicit EpollEventDispatcher(QObject *parent = nullptr);
    ~EpollEventDispatcher() override;

    // False when the kernel refused the epoll or eventfd descriptor (the dispatcher must not be
    // installed then: it cannot wait).
    bool isValid() const { return m_epoll >= 0 && m_wakeFd >= 0; }

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;

    void registerSocketNotifier(QSocketNotifier *notifier) override;
    void unregisterSocketNotifier(QSocketNotifier *notifier) override;

    // Intervals in milliseconds, as Qt gives them.
    void registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject *object) override;
    QList<TimerInfo> registeredTimers(QObject *object) const override;
    // Milliseconds until the timer is due (0 when overdue), -1 for an unknown id.
    int remainingTime(int timerId) override;

    // Any thread. Only the first call after the loop drained the eventfd writes to it; a call
    // on the dispatcher's own thread from inside processEvents() (a handler posting an event:
    // the gateway does so for every request) writes nothing, the wait of that pass or of the
    // next one does not block instead.
    void wakeUp() override;
    // Wake-ups written to the eventfd so far (any thread; for tests and diagnostics).
    quint64 eventfdWrites() const { return m_eventfdWrites.load(std::memory_order_relaxed); }
    // Any thread: the current or next processEvents() returns without waiting.
    void interrupt() override;

private:
    // One watched descriptor: up to one notifier per type (Read, Write, Exception), one epoll
    // registration with the union of their events. `serial` tells a notifier registered during a
    // batch apart from the one it replaced at the same address.
    struct Watch {
        QSocketNotifier *notifiers[3] = {nullptr, nullptr, nullptr};
        quint64 serials[3] = {0, 0, 0};
        quint32 events = 0;        // what epoll was asked for; 0 = not registered
        bool alwaysReady = false;  // epoll refused the descriptor (a regular file): ready like poll()
    };
    // One notifier due in the current batch, looked up again when its turn comes.
    struct Pending {
        int fd;
        int type;
        quint64 serial;
    };
    struct Timer {
        int id;
        qint64 intervalMs;      // for VeryCoarseTimer: whole seconds, in milliseconds
        Qt::TimerType type;
        QObject *object;
        qint64 deadlineNs;      // monotonic
        quint64 order;          // ties between equal deadlines: first scheduled fires first
        quint64 pass;           // the activation pass that last fired (or registered) it
        Timer **activeRef;      // set while its handler runs; cleared if unregistered meanwhile
    };
    using TimerKey = std::pair<qint64, quint64>;  // (deadlineNs, order)
    using TimerMap = std::unordered_map<int, std::unique_ptr<Timer>>;
    // On the stack of each processEvents(): nested loops in a handler get their own batch.
    using PendingList = QVarLengthArray<Pending, 768>;

    void updateWatch(int fd, Watch &watch);
    // Waits up to timeoutMs (-1: no limit) and lists the notifiers due; returns 1 when woken
    // through the eventfd.
    int waitAndCollect(bool includeNotifiers, int timeoutMs, PendingList &pending);
    int activateNotifiers(const PendingList &pending);
    int activateTimers();
    int timeoutForWait(bool canWait, bool includeTimers);
    void schedule(Timer &timer, qint64 deadlineNs);
    void scheduleNext(Timer &timer, qint64 nowNs);
    void removeTimer(TimerMap::iterator it);
    bool drainWakeUp();

    int m_epoll = -1;          // every watched descriptor and the eventfd
    int m_wakeOnlyEpoll = -1;  // the eventfd alone: waits that exclude socket notifiers
    int m_wakeFd = -1;
    std::atomic<bool> m_wakeUpPending{false};
    std::atomic<quint64> m_eventfdWrites{0};
    // A wakeUp() from inside processEvents() on this thread: the next wait does not block.
    // Read and written on the dispatcher's thread only.
    bool m_wokenFromInside = false;
    std::atomic<bool> m_interrupted{false};

    std::unordered_map<int, Watch> m_watches;
    std::vector<int> m_alwaysReady;  // descriptors epoll refused
    quint64 m_nextSerial = 1;

    TimerMap m_timers;
    std::map<TimerKey, Timer *> m_queue;
    quint64 m_nextOrder = 0;
    quint64 m_pass = 0;        // incremented at the start of every timer activation pass
};

// The dispatcher the gateway's threads should run: an EpollEventDispatcher, or nullptr for Qt's
// own when SWITCHYARD_EVENT_DISPATCHER=qt is set (or epoll is unavailable). Caller owns the
// result (pass it to setEventDispatcher). Any thread.
QAbstractEventDispatcher *createGatewayEventDispatcher();

} // namespace sy
