// The ledger's memory is bounded (Ledger::kRetainedEntries): entries() keeps the newest entries
// only, while every total — balance, a key's spend, spend since a time — stays what a ledger
// holding every entry answers, after bookings, after a restore of many days of history, across
// midnight, and for a `since` older than the entries kept.
#include "LedgerTestSupport.h"

#include <QDateTime>

#include <chrono>
#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;
using namespace std::chrono_literals;

constexpr std::size_t kTail = Ledger::kRetainedEntries;

LedgerEntry restoredCharge(quint64 sequence, const QDateTime &at, Nanos amount, const QString &key = kKey)
{
    LedgerEntry entry = charge(amount, QStringLiteral("deepseek-main"), QStringLiteral("req-%1").arg(sequence));
    entry.sequence = sequence;
    entry.at = at;
    entry.kind = LedgerEntry::Kind::Charge;
    entry.keyName = key;
    return entry;
}

class LedgerRetentionTest : public LedgerTest {
protected:
    // Books one charge of `amount` through admission and settle.
    void book(Ledger &ledger, Nanos amount)
    {
        ASSERT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 1)), charge(amount)));
    }
};

TEST_F(LedgerRetentionTest, BookingPastTheTailKeepsTheNewestEntriesAndExactTotals)
{
    Ledger ledger(clock, std::nullopt);
    constexpr std::size_t kExtra = 250;
    const QDateTime start = clock.wallNow();
    Nanos spent = 0;
    for (std::size_t i = 0; i < kTail + kExtra; ++i) {
        book(ledger, Nanos(i % 7 + 1));
        spent += Nanos(i % 7 + 1);
    }
    ASSERT_TRUE(ledger.topUp(1'000, QStringLiteral("top-up")));

    EXPECT_EQ(ledger.entries().size(), kTail);
    EXPECT_EQ(ledger.entries().front().sequence, kExtra + 2);  // the top-up pushed one more out
    EXPECT_EQ(ledger.entries().back().sequence, kTail + kExtra + 1);
    EXPECT_EQ(ledger.droppedThrough(), kExtra + 1);
    EXPECT_EQ(ledger.lastSequence(), kTail + kExtra + 1);
    EXPECT_EQ(ledger.balance(), 1'000 - spent);
    EXPECT_EQ(ledger.keySpent(kKey), spent);
    EXPECT_EQ(ledger.spentSince(start), spent);
    EXPECT_EQ(ledger.spentSince(QDateTime()), spent);
    // After a dropped sequence: what is held; at or after droppedThrough(): complete.
    EXPECT_EQ(ledger.entriesAfter(0).size(), kTail);
    EXPECT_EQ(ledger.entriesAfter(0, 3).size(), 3u);
    EXPECT_EQ(ledger.entriesAfter(0, 3).front().sequence, kExtra + 2);
    EXPECT_EQ(ledger.entriesAfter(ledger.droppedThrough()).size(), kTail);
}

TEST_F(LedgerRetentionTest, AMillionEntriesHoldOnlyTheTail)
{
    // The memory effect in a number: entries held after 1,000,000 entries (restored in pages, as
    // at start; bookings go through the same apply()), and the spend slots beside them.
    Ledger ledger(clock, std::nullopt);
    const QDateTime start = clock.wallNow();
    LedgerEntry entry = restoredCharge(0, start, 3);
    std::vector<LedgerEntry> page(10'000, entry);
    quint64 sequence = 0;
    for (int p = 0; p < 100; ++p) {
        for (LedgerEntry &e : page) {
            e.sequence = ++sequence;
            e.at = start.addSecs(qint64(sequence / 100));  // ~2.8 h in all
        }
        ledger.restore(page);
    }
    EXPECT_EQ(ledger.entries().size(), kTail);
    EXPECT_EQ(ledger.droppedThrough(), 1'000'000 - kTail);
    EXPECT_EQ(ledger.keySpent(kKey), 3'000'000);
    EXPECT_EQ(ledger.spentSince(start), 3'000'000);
    EXPECT_EQ(ledger.spentSince(start.addSecs(3600)), Nanos(3 * (1'000'000 - 360'000 + 1)));  // sequences 360,000 on
}

TEST_F(LedgerRetentionTest, SpendTodayAfterARestoreOfManyDaysIsExact)
{
    // Ten days of history, 12,000 charges a day (more than the tail holds), restored in pages of
    // 1,000 as Persistence does. Today is the last of them.
    const QDateTime firstDay(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC);
    constexpr int kDays = 10;
    constexpr int kPerDay = 12'000;
    std::vector<LedgerEntry> all;
    Nanos total = 0;
    Nanos today = 0;
    Nanos sinceNoonYesterday = 0;
    quint64 sequence = 0;
    for (int day = 0; day < kDays; ++day) {
        for (int i = 0; i < kPerDay; ++i) {
            const QDateTime at = firstDay.addDays(day).addSecs(qint64(i) * 86'400 / kPerDay);
            const Nanos amount = 1 + (sequence % 5);
            all.push_back(restoredCharge(++sequence, at, amount));
            total += amount;
            if (day == kDays - 1)
                today += amount;
            if (at >= firstDay.addDays(kDays - 2).addSecs(12 * 3600))
                sinceNoonYesterday += amount;
        }
    }
    ASSERT_GT(std::size_t(kPerDay), kTail);  // the tail begins inside today

    Ledger ledger(clock, 1'000'000);
    for (std::size_t from = 0; from < all.size(); from += 1'000)
        ledger.restore({all.begin() + std::ptrdiff_t(from), all.begin() + std::ptrdiff_t(std::min(from + 1'000, all.size()))});

    const QDateTime startOfToday = firstDay.addDays(kDays - 1);
    ASSERT_LT(startOfToday, ledger.entries().front().at) << "the tail must not reach back to the day's start";
    EXPECT_EQ(ledger.entries().size(), kTail);
    EXPECT_EQ(ledger.balance(), 1'000'000 - total);
    EXPECT_EQ(ledger.keySpent(kKey), total);
    EXPECT_EQ(ledger.spentSince(startOfToday), today);
    EXPECT_EQ(ledger.spentSince(firstDay.addDays(kDays - 2).addSecs(12 * 3600)), sinceNoonYesterday);
    // A time zone half an hour off UTC: its midnight is a slot boundary too.
    Nanos sinceIndiaMidnight = 0;
    const QDateTime indiaMidnight = startOfToday.addSecs(-(5 * 3600 + 30 * 60));
    for (const LedgerEntry &e : all)
        if (e.at >= indiaMidnight)
            sinceIndiaMidnight += e.amount;
    EXPECT_EQ(ledger.spentSince(indiaMidnight), sinceIndiaMidnight);
}

TEST_F(LedgerRetentionTest, SpendTodayAcrossMidnightWhileEntriesLeaveTheTail)
{
    Ledger ledger(clock, std::nullopt);
    // FakeClock starts at 2025-01-01 00:00 UTC; book until 20:00, asking as the dashboard does.
    const auto startOfDay = [this] { return QDateTime(clock.wallNow().date(), QTime(0, 0), Qt::UTC); };
    Nanos yesterday = 0;
    for (std::size_t i = 0; i < kTail; ++i) {
        if (i % 1'000 == 0)
            clock.advance(2h);
        book(ledger, 2);
        yesterday += 2;
        if (i % 97 == 0) {
            ASSERT_EQ(ledger.spentSince(startOfDay()), yesterday);
        }
    }
    ASSERT_EQ(clock.wallNow().date(), QDate(2025, 1, 1));
    clock.advance(5h);  // past midnight
    ASSERT_EQ(clock.wallNow().date(), QDate(2025, 1, 2));
    EXPECT_EQ(ledger.spentSince(startOfDay()), 0);
    Nanos today = 0;
    for (std::size_t i = 0; i < kTail + 500; ++i) {  // every entry of yesterday leaves the tail
        book(ledger, 5);
        today += 5;
        if (i % 89 == 0) {
            ASSERT_EQ(ledger.spentSince(startOfDay()), today);
        }
    }
    EXPECT_GT(ledger.droppedThrough(), kTail);
    EXPECT_EQ(ledger.spentSince(startOfDay()), today);
    EXPECT_EQ(ledger.spentSince(startOfDay().addDays(-1)), today + yesterday);
}

TEST_F(LedgerRetentionTest, SpentSinceAskedRarelyCountsEntriesThatLeftBetweenTwoCalls)
{
    // A `since` inside a 15-minute slot is exact only while its sum carries on: entries that
    // leave the tail between two calls are counted as they leave.
    Ledger ledger(clock, std::nullopt);
    clock.advance(7min);
    const QDateTime since = clock.wallNow();  // not on a slot boundary
    book(ledger, 1);
    EXPECT_EQ(ledger.spentSince(since), 1);
    for (std::size_t i = 0; i < 3 * kTail; ++i)
        book(ledger, 1);
    EXPECT_EQ(ledger.spentSince(since), Nanos(3 * kTail + 1));
}

TEST_F(LedgerRetentionTest, SpentSinceOlderThanTheTailCountsTheDroppedCharges)
{
    Ledger ledger(clock, std::nullopt);
    const QDateTime start = clock.wallNow();
    book(ledger, 100);  // at 00:00
    clock.advance(30min);
    for (std::size_t i = 0; i < kTail; ++i)
        book(ledger, 1);  // at 00:30: the first charge leaves the tail
    ASSERT_EQ(ledger.droppedThrough(), 1u);
    EXPECT_EQ(ledger.spentSince(start), Nanos(100 + kTail));
    EXPECT_EQ(ledger.spentSince(start.addSecs(15 * 60)), Nanos(kTail));
    EXPECT_EQ(ledger.spentSince(start.addSecs(-24 * 3600)), Nanos(100 + kTail));
}

TEST_F(LedgerRetentionTest, SharedRestoreFollowsTheDatabasePastTheTail)
{
    // Shared mode replays what the database booked since lastSequence(), page after page, with
    // gaps in the sequence (another gateway's rolled-back numbers).
    Ledger ledger(clock, 10'000'000);
    const QDateTime at = clock.wallNow();
    Nanos total = 0;
    quint64 sequence = 0;
    for (int page = 0; page < 3; ++page) {
        std::vector<LedgerEntry> entries;
        for (std::size_t i = 0; i < kTail / 2 + 7; ++i) {
            sequence += (i % 10 == 0) ? 2 : 1;
            entries.push_back(restoredCharge(sequence, at, 3, i % 2 ? kKey : kOtherKey));
            total += 3;
        }
        ledger.restore(entries);
        ledger.restore(entries);  // seen already: nothing twice
        EXPECT_EQ(ledger.lastSequence(), sequence);
    }
    EXPECT_EQ(ledger.entries().size(), kTail);
    EXPECT_EQ(ledger.balance(), 10'000'000 - total);
    EXPECT_EQ(ledger.keySpent(kKey) + ledger.keySpent(kOtherKey), total);
    EXPECT_EQ(ledger.spentSince(at), total);
    EXPECT_EQ(ledger.entriesAfter(ledger.droppedThrough()).front().sequence, ledger.entries().front().sequence);
}

} // namespace
} // namespace sy::billing
