// EpollEventDispatcher: timers, posted events, wakeUp() and interrupt(). The test main installs
// the dispatcher on the main thread; each test drives it through Qt's public API (QTimer,
// QObject::startTimer, QEventLoop) or calls processEvents() on it directly for one pass.
#include "EpollDispatcherTestSupport.h"

#include <QEventLoop>
#include <QThread>
#include <QTimer>
#include <QTimerEvent>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace sy::test {
namespace {

// Counts its timer events per id; an optional hook runs inside the handler.
class TimerProbe : public QObject {
public:
    std::map<int, int> fired;
    std::vector<int> order;
    std::function<void(int)> onFire;

protected:
    void timerEvent(QTimerEvent *event) override
    {
        ++fired[event->timerId()];
        order.push_back(event->timerId());
        if (onFire)
            onFire(event->timerId());
    }
};

TEST_F(EpollDispatcherTest, MainThreadRunsTheEpollDispatcher)
{
    EXPECT_NE(dispatcher(), nullptr);
}

TEST_F(EpollDispatcherTest, TimersFireInDeadlineOrder)
{
    std::vector<int> order;
    QTimer::singleShot(30, Qt::PreciseTimer, [&] { order.push_back(30); });
    QTimer::singleShot(10, Qt::PreciseTimer, [&] { order.push_back(10); });
    QTimer::singleShot(20, Qt::PreciseTimer, [&] { order.push_back(20); });
    ASSERT_TRUE(waitUntil([&] { return order.size() == 3; }));
    EXPECT_EQ(order, (std::vector<int>{10, 20, 30}));
}

TEST_F(EpollDispatcherTest, SingleShotTimerFiresOnce)
{
    int fired = 0;
    QTimer::singleShot(5, [&] { ++fired; });
    ASSERT_TRUE(waitUntil([&] { return fired > 0; }));
    processEventsFor(50ms);
    EXPECT_EQ(fired, 1);
}

TEST_F(EpollDispatcherTest, RepeatingTimerFiresUntilStopped)
{
    QTimer timer;
    int fired = 0;
    QObject::connect(&timer, &QTimer::timeout, [&] { ++fired; });
    timer.start(2);
    ASSERT_TRUE(waitUntil([&] { return fired >= 3; }));
    timer.stop();
    const int atStop = fired;
    processEventsFor(30ms);
    EXPECT_EQ(fired, atStop);
}

TEST_F(EpollDispatcherTest, ZeroIntervalTimerFiresOncePerLoopPass)
{
    TimerProbe probe;
    const int id = probe.startTimer(0);
    for (int pass = 0; pass < 5; ++pass)
        dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[id], 5);
}

TEST_F(EpollDispatcherTest, ZeroIntervalTimerDoesNotBlockOtherTimers)
{
    TimerProbe probe;
    probe.startTimer(0);
    bool later = false;
    QTimer::singleShot(5, [&] { later = true; });
    EXPECT_TRUE(waitUntil([&] { return later; }));
}

TEST_F(EpollDispatcherTest, RemainingTimeCountsDownAndIsMinusOneOnceGone)
{
    TimerProbe probe;
    const int id = probe.startTimer(10'000, Qt::PreciseTimer);
    const int left = dispatcher()->remainingTime(id);
    EXPECT_GT(left, 0);
    EXPECT_LE(left, 10'000);
    probe.killTimer(id);
    EXPECT_EQ(dispatcher()->remainingTime(id), -1);
}

TEST_F(EpollDispatcherTest, VeryCoarseTimerRoundsToWholeSeconds)
{
    TimerProbe probe;
    const int id = probe.startTimer(1'400, Qt::VeryCoarseTimer);
    const QList<QAbstractEventDispatcher::TimerInfo> timers = dispatcher()->registeredTimers(&probe);
    ASSERT_EQ(timers.size(), 1);
    EXPECT_EQ(timers[0].timerId, id);
    EXPECT_EQ(timers[0].interval, 1'000);
    EXPECT_EQ(timers[0].timerType, Qt::VeryCoarseTimer);
    EXPECT_LE(dispatcher()->remainingTime(id), 1'500);
}

TEST_F(EpollDispatcherTest, RegisteredTimersListsAnObjectsTimersAndUnregisterTimersRemovesThem)
{
    TimerProbe probe;
    TimerProbe other;
    const int a = probe.startTimer(1'000, Qt::PreciseTimer);
    const int b = probe.startTimer(2'000, Qt::CoarseTimer);
    const int c = other.startTimer(3'000);
    QList<QAbstractEventDispatcher::TimerInfo> timers = dispatcher()->registeredTimers(&probe);
    ASSERT_EQ(timers.size(), 2);
    std::sort(timers.begin(), timers.end(), [](const auto &x, const auto &y) { return x.timerId < y.timerId; });
    EXPECT_EQ(timers[0].timerId, std::min(a, b));
    EXPECT_TRUE(dispatcher()->unregisterTimers(&probe));
    EXPECT_TRUE(dispatcher()->registeredTimers(&probe).isEmpty());
    EXPECT_EQ(dispatcher()->remainingTime(a), -1);
    EXPECT_EQ(dispatcher()->registeredTimers(&other).size(), 1);
    EXPECT_NE(dispatcher()->remainingTime(c), -1);
    EXPECT_FALSE(dispatcher()->unregisterTimers(&probe));
}

TEST_F(EpollDispatcherTest, TimerKilledInsideItsOwnHandlerFiresOnce)
{
    TimerProbe probe;
    probe.onFire = [&](int id) { probe.killTimer(id); };
    const int id = probe.startTimer(0);
    for (int pass = 0; pass < 3; ++pass)
        dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[id], 1);
    EXPECT_EQ(dispatcher()->remainingTime(id), -1);
}

TEST_F(EpollDispatcherTest, TimerKilledAndReplacedInsideItsOwnHandlerLeavesOnlyTheNewOne)
{
    // The new timer may take the killed one's storage, and Qt may give it the same id, while the
    // killed one's handler is still running.
    TimerProbe probe;
    const int first = probe.startTimer(0);
    int replacement = 0;
    probe.onFire = [&](int id) {
        probe.killTimer(id);
        if (replacement == 0)
            replacement = probe.startTimer(0);
    };
    dispatcher()->processEvents(QEventLoop::AllEvents);
    ASSERT_NE(replacement, 0);
    EXPECT_EQ(probe.order, (std::vector<int>{first}));
    for (int pass = 0; pass < 3; ++pass)
        dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.order, (std::vector<int>{first, replacement}));
    EXPECT_EQ(dispatcher()->remainingTime(replacement), -1);
    EXPECT_TRUE(dispatcher()->registeredTimers(&probe).isEmpty());
}

TEST_F(EpollDispatcherTest, TimersStartedAndKilledOverAndOverFireExactlyTheLiveOnes)
{
    // More timers per round than the dispatcher keeps spare storage for, over several rounds:
    // storage of killed and fired timers is reused by later ones.
    TimerProbe probe;
    for (int round = 0; round < 5; ++round) {
        std::vector<int> ids;
        for (int i = 0; i < 100; ++i)
            ids.push_back(probe.startTimer(0));
        for (std::size_t i = 1; i < ids.size(); i += 2)
            probe.killTimer(ids[i]);
        probe.fired.clear();
        dispatcher()->processEvents(QEventLoop::AllEvents);
        for (std::size_t i = 0; i < ids.size(); ++i)
            EXPECT_EQ(probe.fired.count(ids[i]), i % 2 == 0 ? 1u : 0u) << "round " << round << " timer " << i;
        for (std::size_t i = 0; i < ids.size(); i += 2)
            probe.killTimer(ids[i]);
        EXPECT_TRUE(dispatcher()->registeredTimers(&probe).isEmpty());
    }
}

TEST_F(EpollDispatcherTest, TimerKilledInsideAnotherHandlerOfTheSamePassDoesNotFire)
{
    TimerProbe probe;
    const int first = probe.startTimer(0);
    const int second = probe.startTimer(0);
    probe.onFire = [&](int id) {
        if (id == first)
            probe.killTimer(second);
    };
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[first], 1);
    EXPECT_EQ(probe.fired.count(second), 0u);
}

TEST_F(EpollDispatcherTest, TimerObjectDeletedInsideAnotherHandlerDoesNotFire)
{
    TimerProbe probe;
    auto *victim = new TimerProbe;
    bool victimFired = false;
    victim->onFire = [&](int) { victimFired = true; };
    probe.startTimer(0);
    victim->startTimer(0);
    probe.onFire = [&](int) {
        delete victim;
        victim = nullptr;
    };
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(victim, nullptr);
    EXPECT_FALSE(victimFired);
}

TEST_F(EpollDispatcherTest, TimerStartedDuringActivationFiresFromTheNextPass)
{
    TimerProbe probe;
    int started = 0;
    const int first = probe.startTimer(0);
    probe.onFire = [&](int id) {
        if (id == first && started == 0)
            started = probe.startTimer(0);
    };
    dispatcher()->processEvents(QEventLoop::AllEvents);
    ASSERT_NE(started, 0);
    EXPECT_EQ(probe.fired.count(started), 0u);
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[started], 1);
}

TEST_F(EpollDispatcherTest, NestedEventLoopInsideAHandlerDoesNotFireThatTimerAgain)
{
    TimerProbe probe;
    int innerFired = 0;
    int firedDuringNestedLoop = -1;
    const int id = probe.startTimer(1);
    probe.onFire = [&](int) {
        if (firedDuringNestedLoop != -1)
            return;
        QEventLoop loop;
        QTimer inner;
        QObject::connect(&inner, &QTimer::timeout, [&] {
            if (++innerFired == 5)
                loop.quit();
        });
        inner.start(2);
        loop.exec();
        firedDuringNestedLoop = probe.fired[id];
    };
    ASSERT_TRUE(waitUntil([&] { return probe.fired[id] >= 2; }));
    EXPECT_EQ(innerFired, 5);
    EXPECT_EQ(firedDuringNestedLoop, 1);
}

TEST_F(EpollDispatcherTest, RepeatingTimerThatFellBehindFiresOnceNotInABurst)
{
    TimerProbe probe;
    const int id = probe.startTimer(400, Qt::PreciseTimer);
    QThread::msleep(1'300);  // the thread is busy for three intervals
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[id], 1);
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[id], 1) << "rescheduled from now, not from the missed deadlines";
    EXPECT_GT(dispatcher()->remainingTime(id), 0);
}

TEST_F(EpollDispatcherTest, ExcludedTimersDoNotFire)
{
    TimerProbe probe;
    const int id = probe.startTimer(0);
    dispatcher()->processEvents(QEventLoop::X11ExcludeTimers);
    EXPECT_EQ(probe.fired.count(id), 0u);
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(probe.fired[id], 1);
}

// --- wake-ups --------------------------------------------------------------------------------

TEST_F(EpollDispatcherTest, EventPostedFromAnotherThreadEndsTheWait)
{
    QEventLoop loop;
    bool timedOut = false;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, [&] { timedOut = true; loop.quit(); });
    guard.start(10'000);
    std::atomic<bool> blocked{false};
    const auto connection = QObject::connect(dispatcher(), &QAbstractEventDispatcher::aboutToBlock,
                                             [&] { blocked.store(true); });
    bool delivered = false;
    std::thread poster([&] {
        while (!blocked.load())
            std::this_thread::yield();
        QMetaObject::invokeMethod(&loop, [&] { delivered = true; loop.quit(); }, Qt::QueuedConnection);
    });
    loop.exec();
    poster.join();
    QObject::disconnect(connection);
    EXPECT_TRUE(delivered);
    EXPECT_FALSE(timedOut) << "the posted event waited for the guard timer";
}

TEST_F(EpollDispatcherTest, APostFromAHandlerOnItsOwnThreadIsDeliveredWithoutAnEventfdWrite)
{
    // What every request does (a queued call, a deleteLater from inside a handler): no write to
    // the eventfd and no read of it, and the event is still delivered without waiting.
    QEventLoop loop;
    bool timedOut = false;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, [&] { timedOut = true; loop.quit(); });
    guard.start(10'000);
    TimerProbe probe;
    int delivered = 0;
    quint64 writesBefore = 0;
    probe.onFire = [&](int id) {
        probe.killTimer(id);
        writesBefore = dispatcher()->eventfdWrites();
        QMetaObject::invokeMethod(&probe, [&] {
            if (++delivered == 2)
                loop.quit();
            else
                QMetaObject::invokeMethod(&probe, [&] { ++delivered; loop.quit(); }, Qt::QueuedConnection);
        }, Qt::QueuedConnection);
    };
    probe.startTimer(1);
    loop.exec();
    EXPECT_EQ(delivered, 2);
    EXPECT_FALSE(timedOut) << "the posted event waited for the guard timer";
    EXPECT_EQ(dispatcher()->eventfdWrites(), writesBefore);
}

TEST_F(EpollDispatcherTest, ManyPostsFromSeveralThreadsAreAllDelivered)
{
    QObject receiver;
    int delivered = 0;
    constexpr int kThreads = 4;
    constexpr int kPostsEach = 2'000;
    std::vector<std::thread> posters;
    for (int t = 0; t < kThreads; ++t) {
        posters.emplace_back([&] {
            for (int i = 0; i < kPostsEach; ++i)
                QMetaObject::invokeMethod(&receiver, [&] { ++delivered; }, Qt::QueuedConnection);
        });
    }
    for (auto &poster : posters)
        poster.join();
    EXPECT_TRUE(waitUntil([&] { return delivered == kThreads * kPostsEach; }));
}

TEST_F(EpollDispatcherTest, InterruptFromAnotherThreadEndsAWaitingProcessEvents)
{
    bool timedOut = false;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, [&] { timedOut = true; });
    guard.start(10'000);
    std::atomic<bool> blocked{false};
    const auto connection = QObject::connect(dispatcher(), &QAbstractEventDispatcher::aboutToBlock,
                                             [&] { blocked.store(true); });
    EpollEventDispatcher *mainDispatcher = dispatcher();
    std::thread interrupter([&] {
        while (!blocked.load())
            std::this_thread::yield();
        mainDispatcher->interrupt();
    });
    dispatcher()->processEvents(QEventLoop::WaitForMoreEvents);
    interrupter.join();
    QObject::disconnect(connection);
    EXPECT_FALSE(timedOut) << "interrupt() did not end the wait";
}

TEST_F(EpollDispatcherTest, ManyWakeUpsAreDrainedByOnePass)
{
    EpollEventDispatcher *mainDispatcher = dispatcher();
    std::thread waker([&] {
        for (int i = 0; i < 10'000; ++i)
            mainDispatcher->wakeUp();
    });
    waker.join();
    EXPECT_TRUE(dispatcher()->processEvents(QEventLoop::AllEvents)) << "the wake-up counts as an event";
    EXPECT_FALSE(dispatcher()->processEvents(QEventLoop::AllEvents)) << "nothing left after the drain";
}

TEST_F(EpollDispatcherTest, EventLoopQuitFromAQueuedCallEndsExec)
{
    QEventLoop loop;
    QTimer::singleShot(0, &loop, [&] { loop.quit(); });
    bool timedOut = false;
    QTimer::singleShot(10'000, &loop, [&] { timedOut = true; loop.quit(); });
    EXPECT_EQ(loop.exec(), 0);
    EXPECT_FALSE(timedOut);
}

TEST_F(EpollDispatcherTest, WorkerThreadRunsItsOwnDispatcher)
{
    QThread worker;
    worker.setEventDispatcher(new EpollEventDispatcher);
    worker.start();
    QObject context;
    context.moveToThread(&worker);
    std::atomic<bool> onWorker{false};
    std::atomic<bool> timerFired{false};
    QMetaObject::invokeMethod(&context, [&] {
        onWorker = qobject_cast<EpollEventDispatcher *>(QThread::currentThread()->eventDispatcher()) != nullptr;
        QTimer::singleShot(5, &context, [&] { timerFired = true; });
    }, Qt::QueuedConnection);
    EXPECT_TRUE(waitUntil([&] { return timerFired.load(); }));
    EXPECT_TRUE(onWorker.load());
    worker.quit();
    EXPECT_TRUE(worker.wait(10'000));
}

} // namespace
} // namespace sy::test
