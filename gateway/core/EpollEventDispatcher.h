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
// Two lanes. A descriptor marked with setBackground() is watched in a second epoll set, itself
// watched by the first: its notifiers run after everything else that is due in the pass (ready
// foreground notifiers, due timers), and while they run the dispatcher takes a foreground turn
// every kForegroundTurnUs — posted events, ready foreground notifiers and due timers go first —
// so that bulk work on many descriptors (the relays of thousands of held streams) does not hold
// up a short request for the whole of a long pass. Each background notifier due in the pass still
// runs in it: the foreground delays the background, it never starves it.
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
#include <unordered_set>
#include <utility>
#include <vector>

struct epoll_event;

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

    // Puts descriptor `fd` in the background lane (or back in the foreground), whether or not
    // notifiers of it are registered now; the mark stays with the descriptor number until the
    // owner clears it, which it does when it stops using the descriptor.
    void setBackground(int fd, bool background);
    // Descriptors watched in the background set now (tests and diagnostics).
    int backgroundDescriptors() const;
    // Between two background notifiers, the foreground gets a turn once this much time passed.
    static constexpr qint64 kForegroundTurnUs = 200;

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
        bool background = false;   // registered in the background set (decided when added)
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
    // A timer lives in its map node (its address is stable while registered).
    using TimerMap = std::unordered_map<int, Timer>;
    using TimerQueue = std::map<TimerKey, Timer *>;
    // On the stack of each processEvents(): nested loops in a handler get their own batch.
    using PendingList = QVarLengthArray<Pending, 768>;

    void updateWatch(int fd, Watch &watch);
    // The epoll set `watch` is registered in.
    int epollOf(const Watch &watch) const { return watch.background ? m_backgroundEpoll : m_epoll; }
    // Waits up to timeoutMs (-1: no limit) and lists the foreground notifiers due; returns 1 when
    // woken through the eventfd. `backgroundReady` is set when a background descriptor is ready.
    int waitAndCollect(bool includeNotifiers, int timeoutMs, PendingList &pending, bool &backgroundReady);
    // Lists the notifiers of `ready` epoll events; returns 1 when the eventfd was among them.
    int collect(const epoll_event *events, int ready, PendingList &pending, bool &backgroundReady);
    int activateNotifiers(const PendingList &pending);
    bool activate(const Pending &due);
    // Runs the background notifiers ready now, with foreground turns between them.
    int serveBackground(bool includeTimers);
    int foregroundTurn(bool includeTimers);
    int activateTimers();
    int timeoutForWait(bool canWait, bool includeTimers);
    void schedule(Timer &timer, qint64 deadlineNs);
    void scheduleNext(Timer &timer, qint64 nowNs);
    void removeTimer(TimerMap::iterator it);
    // Nodes of removed timers and of fired queue entries, reused by the next ones: a request
    // starts and stops timers a few times, which would otherwise cost three allocations each.
    template <class Node>
    static void keepSpare(std::vector<Node> &spares, Node node);
    bool drainWakeUp();

    int m_epoll = -1;          // the foreground descriptors, the eventfd and m_backgroundEpoll
    int m_backgroundEpoll = -1;  // the background descriptors; -1: everything is foreground
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
    std::unordered_set<int> m_background;  // marked by setBackground()
    quint64 m_nextSerial = 1;

    TimerMap m_timers;
    TimerQueue m_queue;
    std::vector<TimerMap::node_type> m_spareTimers;
    std::vector<TimerQueue::node_type> m_spareQueueNodes;
    quint64 m_nextOrder = 0;
    quint64 m_pass = 0;        // incremented at the start of every timer activation pass
};

// The dispatcher the gateway's threads should run: an EpollEventDispatcher, or nullptr for Qt's
// own when SWITCHYARD_EVENT_DISPATCHER=qt is set (or epoll is unavailable). Caller owns the
// result (pass it to setEventDispatcher). Any thread.
QAbstractEventDispatcher *createGatewayEventDispatcher();

// setBackground() on this thread's dispatcher when it is an EpollEventDispatcher; nothing with
// Qt's own. This thread only.
void setSocketBackground(qintptr fd, bool background);

} // namespace sy
