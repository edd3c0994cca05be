// EpollEventDispatcher's background lane: descriptors marked with setBackground() run after the
// foreground ones of their pass, and the foreground (notifiers, posted events, timers) gets a
// turn between background notifiers once kForegroundTurnUs has passed.
#include "EpollDispatcherTestSupport.h"

#include <QSocketNotifier>
#include <QTimer>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sy::test {
namespace {

// Records the order in which the notifiers ran; each drains its pipe so it runs once.
struct Journal {
    std::vector<std::string> order;
};

std::unique_ptr<QSocketNotifier> logging(Pipe &pipe, std::string name, Journal &journal,
                                         std::function<void()> also = {})
{
    auto notifier = std::make_unique<QSocketNotifier>(pipe.readEnd, QSocketNotifier::Read);
    const int fd = pipe.readEnd;
    QObject::connect(notifier.get(), &QSocketNotifier::activated, [fd, name, &journal, also] {
        drain(fd);
        journal.order.push_back(name);
        if (also)
            also();
    });
    return notifier;
}

// Keeps the thread busy for longer than a foreground turn's interval.
void busyFor(std::chrono::microseconds duration)
{
    const auto until = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < until) {
    }
}

constexpr auto kLongerThanATurn = std::chrono::microseconds(3 * EpollEventDispatcher::kForegroundTurnUs);

class EpollLaneTest : public EpollDispatcherTest {
protected:
    void TearDown() override
    {
        for (const int fd : marked)
            dispatcher()->setBackground(fd, false);
    }
    void markBackground(int fd)
    {
        dispatcher()->setBackground(fd, true);
        marked.push_back(fd);
    }
    // `count` background pipes whose notifiers log "bulk", call `first` in the first of them to
    // run, and each keep the thread busy for longer than a turn's interval; then all made ready.
    void startBulk(int count, Journal &journal, std::function<void()> first)
    {
        for (int i = 0; i < count; ++i) {
            bulk.push_back(std::make_unique<Pipe>());
            markBackground(bulk.back()->readEnd);
            bulkNotifiers.push_back(logging(*bulk.back(), "bulk", journal, [&journal, first] {
                if (journal.order.size() == 1)
                    first();
                busyFor(kLongerThanATurn);
            }));
        }
        for (const auto &pipe : bulk)
            writeByte(pipe->writeEnd);
    }
    std::vector<int> marked;
    std::vector<std::unique_ptr<Pipe>> bulk;
    std::vector<std::unique_ptr<QSocketNotifier>> bulkNotifiers;
};

TEST_F(EpollLaneTest, BackgroundNotifierRunsAfterTheForegroundOnesOfItsPass)
{
    Pipe bulk, request;
    Journal journal;
    markBackground(bulk.readEnd);
    auto bulkNotifier = logging(bulk, "bulk", journal);
    auto requestNotifier = logging(request, "request", journal);
    writeByte(bulk.writeEnd);  // ready first
    writeByte(request.writeEnd);
    ASSERT_TRUE(waitUntil([&] { return journal.order.size() == 2; }));
    EXPECT_EQ(journal.order, (std::vector<std::string>{"request", "bulk"}));
    EXPECT_EQ(dispatcher()->backgroundDescriptors(), 1);
}

TEST_F(EpollLaneTest, MarkingARegisteredDescriptorMovesItAndClearingMovesItBack)
{
    Pipe bulk, request;
    Journal journal;
    auto bulkNotifier = logging(bulk, "bulk", journal);
    auto requestNotifier = logging(request, "request", journal);
    markBackground(bulk.readEnd);
    EXPECT_EQ(dispatcher()->backgroundDescriptors(), 1);
    writeByte(bulk.writeEnd);
    writeByte(request.writeEnd);
    ASSERT_TRUE(waitUntil([&] { return journal.order.size() == 2; }));
    EXPECT_EQ(journal.order, (std::vector<std::string>{"request", "bulk"}));

    dispatcher()->setBackground(bulk.readEnd, false);
    EXPECT_EQ(dispatcher()->backgroundDescriptors(), 0);
    journal.order.clear();
    writeByte(bulk.writeEnd);
    writeByte(request.writeEnd);
    ASSERT_TRUE(waitUntil([&] { return journal.order.size() == 2; }));
    EXPECT_EQ(journal.order, (std::vector<std::string>{"bulk", "request"})) << "the order they became ready in";
}

TEST_F(EpollLaneTest, ForegroundReadyDuringABackgroundBatchGoesBeforeTheRestOfIt)
{
    Pipe request;
    Journal journal;
    auto requestNotifier = logging(request, "request", journal);
    // A request arrives while the first relay runs.
    startBulk(4, journal, [&request] { writeByte(request.writeEnd); });
    ASSERT_TRUE(waitUntil([&] { return journal.order.size() == 5; }));
    EXPECT_EQ(journal.order, (std::vector<std::string>{"bulk", "request", "bulk", "bulk", "bulk"}));
}

TEST_F(EpollLaneTest, PostedEventsAndDueTimersGoBeforeTheRestOfABackgroundBatch)
{
    Journal journal;
    QObject context;
    QTimer timer;  // a registered timer: QTimer::singleShot(0) would post an event instead
    timer.setSingleShot(true);
    timer.setInterval(0);
    QObject::connect(&timer, &QTimer::timeout, [&journal] { journal.order.push_back("timer"); });
    startBulk(3, journal, [&journal, &context, &timer] {
        QMetaObject::invokeMethod(&context, [&journal] { journal.order.push_back("posted"); }, Qt::QueuedConnection);
        timer.start();
    });
    ASSERT_TRUE(waitUntil([&] { return journal.order.size() == 5; }));
    EXPECT_EQ(journal.order, (std::vector<std::string>{"bulk", "posted", "timer", "bulk", "bulk"}));
}

TEST_F(EpollLaneTest, AlwaysReadyForegroundDoesNotStarveTheBackground)
{
    Pipe busy, bulk;
    int busyRuns = 0;
    int bulkRuns = 0;
    markBackground(bulk.readEnd);
    QSocketNotifier busyNotifier(busy.readEnd, QSocketNotifier::Read);  // never drained
    QObject::connect(&busyNotifier, &QSocketNotifier::activated, [&] {
        ++busyRuns;
        busyFor(kLongerThanATurn);
    });
    QSocketNotifier bulkNotifier(bulk.readEnd, QSocketNotifier::Read);  // never drained either
    QObject::connect(&bulkNotifier, &QSocketNotifier::activated, [&] {
        ++bulkRuns;
        busyFor(kLongerThanATurn);
    });
    writeByte(busy.writeEnd);
    writeByte(bulk.writeEnd);
    for (int pass = 0; pass < 5; ++pass)
        QCoreApplication::processEvents();
    EXPECT_EQ(bulkRuns, 5) << "once in every pass";
    EXPECT_GE(busyRuns, 10) << "at the pass's start and in the turn after each background notifier";
}

} // namespace
} // namespace sy::test
