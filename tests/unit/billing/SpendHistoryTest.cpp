// SpendHistory: charges summed by 15-minute slot, exact for a slot-aligned `since`, and bounded
// by age (two days before the newest slot) however many charges it records.
#include "billing/SpendHistory.h"

#include <gtest/gtest.h>

namespace sy::billing {
namespace {

const QDateTime kMidnight(QDate(2025, 3, 10), QTime(0, 0), Qt::UTC);

TEST(SpendHistoryTest, SumsTheSlotsAtOrAfterASlotBoundary)
{
    SpendHistory history;
    history.record(kMidnight.addSecs(-1), 1);          // the last slot of the day before
    history.record(kMidnight, 10);
    history.record(kMidnight.addSecs(14 * 60 + 59), 20);
    history.record(kMidnight.addSecs(15 * 60), 300);
    history.record(kMidnight.addSecs(15 * 60), 0);     // nothing
    history.record(QDateTime(), 5'000);                // no time: nothing

    EXPECT_EQ(history.spentSince(kMidnight), 330);
    EXPECT_EQ(history.spentSince(kMidnight.addSecs(15 * 60)), 300);
    EXPECT_EQ(history.spentSince(kMidnight.addSecs(-15 * 60)), 331);
    EXPECT_EQ(history.spentSince(QDateTime()), 331);
    EXPECT_EQ(history.spentSince(kMidnight.addDays(1)), 0);
    EXPECT_EQ(history.slotCount(), 3u);
}

TEST(SpendHistoryTest, KeepsTwoDaysBeforeTheNewestSlot)
{
    SpendHistory history;
    // A week of one charge a minute: memory holds the slots of two days, not the week.
    for (int minute = 0; minute < 7 * 24 * 60; ++minute)
        history.record(kMidnight.addSecs(qint64(minute) * 60), 1);
    const QDateTime newestSlot = kMidnight.addDays(7).addSecs(-15 * 60);
    EXPECT_EQ(history.horizon(), newestSlot.addDays(-2));
    EXPECT_EQ(history.slotCount(), std::size_t(2 * 24 * 4 + 1));
    EXPECT_EQ(history.spentSince(kMidnight.addDays(6)), 24 * 60);  // the last day, exact
    EXPECT_EQ(history.spentSince(kMidnight.addDays(5)), 2 * 24 * 60);
    // A clock set back by more than the kept time records nothing below the horizon.
    history.record(kMidnight, 1'000);
    EXPECT_EQ(history.spentSince(QDateTime()), (2 * 24 * 4 + 1) * 15);
    // ... and a smaller step back still counts.
    history.record(kMidnight.addDays(6), 1'000);
    EXPECT_EQ(history.spentSince(kMidnight.addDays(6)), 24 * 60 + 1'000);
}

} // namespace
} // namespace sy::billing
