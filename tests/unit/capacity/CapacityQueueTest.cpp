// CapacityQueue (SPEC §8, capacity queue): concurrency slots per channel, refusal when full, the
// FIFO queue whose waiters get freed slots handed over directly, cancellation, queue time measured
// with the clock, capacity changes at runtime, the choice of the channel expected to free first,
// and re-entrant granted callbacks.
#include "limits/CapacityQueue.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace sy::limits {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using Slot = CapacityQueue::Slot;

const QString kChannel = QStringLiteral("openai-main");
const QString kBackup = QStringLiteral("openai-backup");
const QString kThird = QStringLiteral("azure-east");

class CapacityQueueTest : public ::testing::Test {
protected:
    // Takes a slot that the test expects to be free (value() throws otherwise, failing the test).
    Slot acquire(const QString &channelId)
    {
        std::optional<Slot> slot = queue.tryAcquire(channelId);
        EXPECT_TRUE(slot.has_value()) << qPrintable(channelId);
        return std::move(slot.value());
    }

    // Queues a waiter that records its name and keeps its slot in `granted`.
    CapacityQueue::WaiterId enqueueKeeping(const QString &channelId, const QString &name)
    {
        return queue.enqueue(channelId, [this, name](Slot slot, milliseconds waited) {
            grantOrder.push_back(name);
            waitedTimes.push_back(waited);
            granted.push_back(std::move(slot));
        });
    }

    sy::test::FakeClock clock;
    CapacityQueue queue{clock};
    QStringList grantOrder;
    std::vector<milliseconds> waitedTimes;
    std::vector<Slot> granted;
};

// --- slots --------------------------------------------------------------------------------------

TEST_F(CapacityQueueTest, UnlimitedChannelNeverRefuses)
{
    std::vector<Slot> taken;
    for (int i = 0; i < 100; ++i)
        taken.push_back(acquire(kChannel));  // never configured: unlimited
    queue.setCapacity(kBackup, 0);
    for (int i = 0; i < 100; ++i)
        taken.push_back(acquire(kBackup));
    EXPECT_EQ(queue.inUse(kChannel), 100);
    EXPECT_EQ(queue.inUse(kBackup), 100);
    EXPECT_EQ(queue.capacity(kBackup), 0);
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kChannel, kBackup}), QString());
}

TEST_F(CapacityQueueTest, FullChannelRefusesAndReleasingFreesTheSlot)
{
    queue.setCapacity(kChannel, 2);
    Slot first = acquire(kChannel);
    std::optional<Slot> second = queue.tryAcquire(kChannel);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(queue.inUse(kChannel), 2);
    EXPECT_FALSE(queue.tryAcquire(kChannel).has_value());
    EXPECT_EQ(queue.inUse(kChannel), 2);

    first.release();
    EXPECT_FALSE(first.isHeld());
    EXPECT_EQ(queue.inUse(kChannel), 1);
    std::optional<Slot> third = queue.tryAcquire(kChannel);
    ASSERT_TRUE(third.has_value());
    EXPECT_EQ(third->channelId(), kChannel);

    second.reset();  // destruction releases too
    third.reset();
    EXPECT_EQ(queue.inUse(kChannel), 0);
}

TEST_F(CapacityQueueTest, MovingASlotMovesOwnershipAndAssigningOverOneReleasesIt)
{
    Slot a = acquire(kChannel);
    Slot b = std::move(a);
    EXPECT_FALSE(a.isHeld());
    EXPECT_TRUE(b.isHeld());
    a.release();  // holds nothing: no effect
    EXPECT_EQ(queue.inUse(kChannel), 1);

    b = acquire(kBackup);  // the channel slot b held is released
    EXPECT_EQ(queue.inUse(kChannel), 0);
    EXPECT_EQ(queue.inUse(kBackup), 1);
    EXPECT_EQ(b.channelId(), kBackup);
}

TEST_F(CapacityQueueTest, SlotReleasedAfterItsQueueIsGoneDoesNothing)
{
    auto shortLived = std::make_unique<CapacityQueue>(clock);
    shortLived->setCapacity(kChannel, 1);
    std::optional<Slot> slot = shortLived->tryAcquire(kChannel);
    ASSERT_TRUE(slot.has_value());
    shortLived.reset();
    slot->release();  // must not touch the destroyed queue (sanitizer builds catch it if it does)
    EXPECT_FALSE(slot->isHeld());
}

// --- queueing -----------------------------------------------------------------------------------

TEST_F(CapacityQueueTest, WaitersAreGrantedInFifoOrder)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    enqueueKeeping(kChannel, QStringLiteral("a"));
    enqueueKeeping(kChannel, QStringLiteral("b"));
    enqueueKeeping(kChannel, QStringLiteral("c"));
    EXPECT_EQ(queue.queued(kChannel), 3);
    EXPECT_TRUE(grantOrder.isEmpty());

    held.release();
    EXPECT_EQ(grantOrder, QStringList{QStringLiteral("a")});
    granted.at(0).release();
    granted.at(1).release();
    EXPECT_EQ(grantOrder, (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    EXPECT_EQ(queue.queued(kChannel), 0);
    EXPECT_EQ(queue.inUse(kChannel), 1);
}

TEST_F(CapacityQueueTest, ReleasedSlotGoesToTheWaiterSoANewcomerCannotJumpTheQueue)
{
    queue.setCapacity(kChannel, 2);
    Slot first = acquire(kChannel);
    Slot second = acquire(kChannel);
    enqueueKeeping(kChannel, QStringLiteral("waiter"));

    first.release();
    ASSERT_EQ(grantOrder, QStringList{QStringLiteral("waiter")});
    EXPECT_EQ(granted.at(0).channelId(), kChannel);
    EXPECT_EQ(queue.inUse(kChannel), 2);  // handed over, never free
    EXPECT_FALSE(queue.tryAcquire(kChannel).has_value());
}

TEST_F(CapacityQueueTest, NewcomerIsRefusedWhileOthersWaitEvenWhenASlotIsMomentarilyFree)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    bool newcomerGotASlot = true;
    queue.enqueue(kChannel, [&](Slot slot, milliseconds) {
        slot.release();                                           // room again, but "b" waits
        newcomerGotASlot = queue.tryAcquire(kChannel).has_value();
        grantOrder.push_back(QStringLiteral("a"));
    });
    enqueueKeeping(kChannel, QStringLiteral("b"));

    held.release();
    EXPECT_FALSE(newcomerGotASlot);
    EXPECT_EQ(grantOrder, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
}

TEST_F(CapacityQueueTest, EnqueueAtAChannelWithRoomGrantsAtOnce)
{
    queue.setCapacity(kChannel, 1);
    const auto id = enqueueKeeping(kChannel, QStringLiteral("a"));
    EXPECT_EQ(grantOrder, QStringList{QStringLiteral("a")});
    EXPECT_EQ(waitedTimes.at(0), 0ms);
    EXPECT_FALSE(queue.cancel(id));
    EXPECT_EQ(queue.inUse(kChannel), 1);
}

TEST_F(CapacityQueueTest, CancelledWaiterIsNeverCalledAndCancelAfterGrantReturnsFalse)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    const auto a = enqueueKeeping(kChannel, QStringLiteral("a"));
    const auto b = enqueueKeeping(kChannel, QStringLiteral("b"));
    EXPECT_EQ(queue.totalQueued(), 2);

    EXPECT_TRUE(queue.cancel(a));
    EXPECT_EQ(queue.queued(kChannel), 1);
    EXPECT_FALSE(queue.cancel(a));  // already cancelled

    held.release();
    EXPECT_EQ(grantOrder, QStringList{QStringLiteral("b")});
    EXPECT_FALSE(queue.cancel(b));  // already granted
    EXPECT_FALSE(queue.cancel(987654));
    granted.clear();
    EXPECT_EQ(grantOrder, QStringList{QStringLiteral("b")});  // "a" still never called
    EXPECT_EQ(queue.totalQueued(), 0);
    EXPECT_EQ(queue.inUse(kChannel), 0);
}

TEST_F(CapacityQueueTest, WaitedTimeIsMeasuredWithTheClockFromEnqueueToGrant)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    enqueueKeeping(kChannel, QStringLiteral("a"));
    clock.advance(500ms);
    enqueueKeeping(kChannel, QStringLiteral("b"));
    clock.advance(734ms);

    held.release();
    ASSERT_EQ(waitedTimes.size(), 1u);
    EXPECT_EQ(waitedTimes.at(0), 1234ms);

    clock.advance(2s);
    granted.at(0).release();
    ASSERT_EQ(waitedTimes.size(), 2u);
    EXPECT_EQ(waitedTimes.at(1), 2734ms);
}

// --- capacity at runtime ------------------------------------------------------------------------

TEST_F(CapacityQueueTest, RaisingCapacityGrantsWaitersFromInsideSetCapacity)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    enqueueKeeping(kChannel, QStringLiteral("a"));
    enqueueKeeping(kChannel, QStringLiteral("b"));
    enqueueKeeping(kChannel, QStringLiteral("c"));

    queue.setCapacity(kChannel, 3);
    EXPECT_EQ(grantOrder, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    EXPECT_EQ(queue.inUse(kChannel), 3);
    EXPECT_EQ(queue.queued(kChannel), 1);

    queue.setCapacity(kChannel, 0);  // unlimited
    EXPECT_EQ(grantOrder.size(), 3);
    EXPECT_EQ(queue.inUse(kChannel), 4);
    EXPECT_EQ(queue.queued(kChannel), 0);
}

TEST_F(CapacityQueueTest, LoweringCapacityDoesNotRevokeHeldSlots)
{
    queue.setCapacity(kChannel, 3);
    std::vector<Slot> held;
    for (int i = 0; i < 3; ++i)
        held.push_back(acquire(kChannel));
    queue.setCapacity(kChannel, 1);
    EXPECT_EQ(queue.inUse(kChannel), 3);
    EXPECT_TRUE(held.at(2).isHeld());
    enqueueKeeping(kChannel, QStringLiteral("a"));

    held.at(0).release();
    EXPECT_EQ(queue.inUse(kChannel), 2);
    held.at(1).release();
    EXPECT_EQ(queue.inUse(kChannel), 1);
    EXPECT_TRUE(grantOrder.isEmpty());
    held.at(2).release();
    EXPECT_EQ(grantOrder, QStringList{QStringLiteral("a")});
    EXPECT_EQ(queue.inUse(kChannel), 1);
}

// --- channel expected to free first --------------------------------------------------------------

TEST_F(CapacityQueueTest, ExpectedToFreeFirstConsidersOnlyFullChannels)
{
    queue.setCapacity(kChannel, 1);
    queue.setCapacity(kBackup, 2);
    Slot onMain = acquire(kChannel);
    Slot onBackup = acquire(kBackup);  // backup still has room
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kBackup, kChannel, kThird}), kChannel);
    onMain.release();
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kBackup, kChannel, kThird}), QString());
}

TEST_F(CapacityQueueTest, ExpectedToFreeFirstPrefersFewestWaitersPlusOnePerSlot)
{
    queue.setCapacity(kChannel, 1);
    queue.setCapacity(kBackup, 4);
    std::vector<Slot> held;
    held.push_back(acquire(kChannel));  // held longest
    clock.advance(1s);
    for (int i = 0; i < 4; ++i)
        held.push_back(acquire(kBackup));
    enqueueKeeping(kBackup, QStringLiteral("w"));
    // main: (0 + 1) / 1 = 1; backup: (1 + 1) / 4 = 0.5.
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kChannel, kBackup}), kBackup);

    for (int i = 0; i < 3; ++i)
        enqueueKeeping(kBackup, QStringLiteral("w"));
    // backup: (4 + 1) / 4 = 1.25 > 1.
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kBackup, kChannel}), kChannel);
}

TEST_F(CapacityQueueTest, ExpectedToFreeFirstBreaksTiesByTheSlotHeldLongestThenByListOrder)
{
    queue.setCapacity(kChannel, 1);
    queue.setCapacity(kBackup, 1);
    queue.setCapacity(kThird, 1);
    Slot onBackup = acquire(kBackup);
    clock.advance(3s);
    Slot onMain = acquire(kChannel);
    Slot onThird = acquire(kThird);
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kChannel, kBackup, kThird}), kBackup);

    // A slot handed to a waiter counts from the handover: that request has only just started.
    enqueueKeeping(kBackup, QStringLiteral("w"));
    clock.advance(1s);
    onBackup.release();
    ASSERT_EQ(grantOrder.size(), 1);
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kBackup, kThird, kChannel}), kThird);  // same age: list order
    EXPECT_EQ(queue.channelExpectedToFreeFirst({kBackup, kChannel, kThird}), kChannel);
}

// --- re-entrant callbacks -----------------------------------------------------------------------

TEST_F(CapacityQueueTest, GrantedCallbackThatReleasesAtOnceHandsTheSlotToTheNextWaiter)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    queue.enqueue(kChannel, [&](Slot slot, milliseconds) {
        grantOrder.push_back(QStringLiteral("a"));
        slot.release();
    });
    enqueueKeeping(kChannel, QStringLiteral("b"));

    held.release();
    EXPECT_EQ(grantOrder, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    ASSERT_EQ(granted.size(), 1u);
    EXPECT_TRUE(granted.at(0).isHeld());
    EXPECT_EQ(queue.inUse(kChannel), 1);
    EXPECT_EQ(queue.queued(kChannel), 0);
}

TEST_F(CapacityQueueTest, ManyCallbacksThatReleaseAtOnceRunOneAfterAnotherNotNested)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    int depth = 0;
    int maxDepth = 0;
    int calls = 0;
    for (int i = 0; i < 5000; ++i) {
        queue.enqueue(kChannel, [&](Slot slot, milliseconds) {
            maxDepth = std::max(maxDepth, ++depth);
            ++calls;
            slot.release();  // the slot is dropped here, not at the end of the callback
            --depth;
        });
    }
    held.release();
    EXPECT_EQ(calls, 5000);
    EXPECT_EQ(maxDepth, 1);
    EXPECT_EQ(queue.inUse(kChannel), 0);
    EXPECT_EQ(queue.totalQueued(), 0);
}

TEST_F(CapacityQueueTest, GrantedCallbackThatEnqueuesAgainGoesToTheBackOfTheQueue)
{
    queue.setCapacity(kChannel, 1);
    Slot held = acquire(kChannel);
    queue.enqueue(kChannel, [&](Slot, milliseconds) {  // the slot is dropped when the call returns
        grantOrder.push_back(QStringLiteral("a"));
        enqueueKeeping(kChannel, QStringLiteral("a again"));
    });
    enqueueKeeping(kChannel, QStringLiteral("b"));

    held.release();
    EXPECT_EQ(grantOrder, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    EXPECT_EQ(queue.queued(kChannel), 1);
    granted.at(0).release();
    EXPECT_EQ(grantOrder.last(), QStringLiteral("a again"));
}

// --- soak ---------------------------------------------------------------------------------------

TEST_F(CapacityQueueTest, ThousandAcquireReleaseCyclesLeaveNothingInUseOrQueued)
{
    queue.setCapacity(kChannel, 2);
    int grants = 0;
    for (int cycle = 0; cycle < 1000; ++cycle) {
        std::optional<Slot> first = queue.tryAcquire(kChannel);
        std::optional<Slot> second = queue.tryAcquire(kChannel);
        ASSERT_TRUE(first && second) << "cycle " << cycle;
        ASSERT_FALSE(queue.tryAcquire(kChannel).has_value()) << "cycle " << cycle;
        std::optional<Slot> third;
        queue.enqueue(kChannel, [&](Slot slot, milliseconds) {
            ++grants;
            third = std::move(slot);
        });
        const auto cancelled = queue.enqueue(kChannel, [&](Slot, milliseconds) { ADD_FAILURE() << "cancelled waiter called"; });
        clock.advance(10ms);
        first.reset();
        EXPECT_TRUE(queue.cancel(cancelled));
        second.reset();
        third.reset();
    }
    EXPECT_EQ(grants, 1000);
    EXPECT_EQ(queue.inUse(kChannel), 0);
    EXPECT_EQ(queue.queued(kChannel), 0);
    EXPECT_EQ(queue.totalQueued(), 0);
}

} // namespace
} // namespace sy::limits
