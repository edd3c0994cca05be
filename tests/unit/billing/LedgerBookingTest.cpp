// Ledger booking (SPEC §8): charges booked exactly once (settle), releases that cost nothing,
// stamped entries, top-ups, totals that match the entries, spend since a point in time, and
// entries after a sequence number for persistence.
#include "LedgerTestSupport.h"

#include <QDateTime>

#include <chrono>
#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;
using namespace std::chrono_literals;

// --- settle and release -------------------------------------------------------------------------

TEST_F(LedgerTest, SettleBooksTheChargeExactlyOnce)
{
    Ledger ledger(clock, 1'000);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 500));
    EXPECT_TRUE(ledger.settle(id, charge(120)));
    EXPECT_EQ(ledger.balance(), 880);

    EXPECT_FALSE(ledger.settle(id, charge(120)));
    EXPECT_FALSE(ledger.release(id));
    EXPECT_EQ(ledger.balance(), 880);
    EXPECT_EQ(ledger.keySpent(kKey), 120);
    EXPECT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.reservedInFlight(), 0);
}

TEST_F(LedgerTest, ReleaseFreesTheReservationWithoutACharge)
{
    Ledger ledger(clock, 10);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, Nanos(10), 10));
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 1)), AdmissionRefusal::InsufficientBalance);

    EXPECT_TRUE(ledger.release(id));
    EXPECT_EQ(ledger.balance(), 10);
    EXPECT_EQ(ledger.reservedInFlight(), 0);
    EXPECT_EQ(ledger.keyReservedInFlight(kKey), 0);
    EXPECT_TRUE(ledger.entries().empty());
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, Nanos(10), 10)));
    // A released reservation cannot be settled afterwards.
    EXPECT_FALSE(ledger.release(id));
    EXPECT_FALSE(ledger.settle(id, charge(5)));
    EXPECT_EQ(ledger.balance(), 10);
}

TEST_F(LedgerTest, UnknownReservationIsIgnored)
{
    Ledger ledger(clock, 10);
    EXPECT_FALSE(ledger.settle(0, charge(5)));
    EXPECT_FALSE(ledger.settle(42, charge(5)));
    EXPECT_FALSE(ledger.release(42));
    EXPECT_EQ(ledger.balance(), 10);
    EXPECT_TRUE(ledger.entries().empty());
}

TEST_F(LedgerTest, FreeRequestSettlesWithoutAnEntry)
{
    Ledger ledger(clock, 10);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));
    EXPECT_TRUE(ledger.settle(id, charge(0)));
    EXPECT_TRUE(ledger.entries().empty());
    EXPECT_EQ(ledger.reservedInFlight(), 0);
    EXPECT_FALSE(ledger.settle(id, charge(7)));  // still exactly once
    EXPECT_EQ(ledger.balance(), 10);
}

TEST_F(LedgerTest, ChargeAboveTheEstimateMayTakeTheBalanceBelowZero)
{
    Ledger ledger(clock, 10);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 5));
    EXPECT_TRUE(ledger.settle(id, charge(25)));
    EXPECT_EQ(ledger.balance(), -15);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 0)), AdmissionRefusal::InsufficientBalance);
}

TEST_F(LedgerTest, FailedOverRequestIsChargedOnceAtTheAnsweringChannel)
{
    Ledger ledger(clock, 1'000);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 300));
    // Attempts on two channels failed (no charge); the third answered and is settled.
    EXPECT_TRUE(ledger.settle(id, charge(140, QStringLiteral("deepseek-backup"))));
    // A late report for an abandoned attempt of the same request finds nothing to settle.
    EXPECT_FALSE(ledger.settle(id, charge(90, QStringLiteral("deepseek-main"))));

    ASSERT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.entries().front().channelId, QStringLiteral("deepseek-backup"));
    EXPECT_EQ(ledger.entries().front().amount, 140);
    EXPECT_EQ(ledger.balance(), 860);
}

TEST_F(LedgerTest, SettleStampsSequenceTimeKindAndTheAdmittedKey)
{
    Ledger ledger(clock, 1'000);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));
    clock.advance(90s);
    LedgerEntry entry = charge(7);
    entry.keyName = kOtherKey;           // the ledger books against the key it admitted
    entry.kind = LedgerEntry::Kind::TopUp;
    entry.sequence = 99;
    ASSERT_TRUE(ledger.settle(id, entry));

    const LedgerEntry &booked = ledger.entries().front();
    EXPECT_EQ(booked.sequence, 1u);
    EXPECT_EQ(booked.kind, LedgerEntry::Kind::Charge);
    EXPECT_EQ(booked.keyName, kKey);
    EXPECT_EQ(booked.at, clock.wallNow());
    EXPECT_EQ(booked.requestId, QStringLiteral("req-1"));
    EXPECT_EQ(booked.promptTokens, 10);
    EXPECT_EQ(booked.completionTokens, 20);
    EXPECT_EQ(ledger.keySpent(kKey), 7);
    EXPECT_EQ(ledger.keySpent(kOtherKey), 0);
}

// --- totals, top-ups, spend since ---------------------------------------------------------------

TEST_F(LedgerTest, EntriesAddUpToTheBalanceAndKeySpend)
{
    Ledger ledger(clock, fromCurrency(25.0));
    Nanos charges = 0;
    Nanos keyACharges = 0;
    for (int i = 1; i <= 50; ++i) {
        const QString key = i % 3 ? kKey : kOtherKey;
        const ReservationId id = idOf(ledger.tryAdmit(key, std::nullopt, 1'000));
        const Nanos amount = Nanos(i) * 1'234'567;
        ASSERT_TRUE(ledger.settle(id, charge(amount)));
        charges += amount;
        if (key == kKey)
            keyACharges += amount;
        if (i % 10 == 0) {
            ASSERT_TRUE(ledger.topUp(fromCurrency(0.5), QStringLiteral("top-up")));
        }
    }

    Nanos entryCharges = 0;
    Nanos entryTopUps = 0;
    quint64 expectedSequence = 1;
    for (const LedgerEntry &entry : ledger.entries()) {
        EXPECT_EQ(entry.sequence, expectedSequence++);
        (entry.kind == LedgerEntry::Kind::Charge ? entryCharges : entryTopUps) += entry.amount;
    }
    EXPECT_EQ(ledger.entries().size(), 55u);
    EXPECT_EQ(entryCharges, charges);
    EXPECT_EQ(entryTopUps, fromCurrency(2.5));
    EXPECT_EQ(ledger.balance(), fromCurrency(25.0) + entryTopUps - entryCharges);
    EXPECT_EQ(ledger.keySpent(kKey), keyACharges);
    EXPECT_EQ(ledger.keySpent(kKey) + ledger.keySpent(kOtherKey), charges);
    EXPECT_EQ(ledger.lastSequence(), 55u);
}

TEST_F(LedgerTest, TopUpRaisesTheBalanceAndReopensAdmission)
{
    Ledger ledger(clock, 0);
    EXPECT_FALSE(admitted(ledger.tryAdmit(kKey, std::nullopt, 5)));
    EXPECT_FALSE(ledger.topUp(0, QStringLiteral("nothing")));
    EXPECT_FALSE(ledger.topUp(-5, QStringLiteral("not a top-up")));
    EXPECT_TRUE(ledger.entries().empty());

    EXPECT_TRUE(ledger.topUp(1, QStringLiteral("card")));
    EXPECT_EQ(ledger.balance(), 1);
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, std::nullopt, 5)));

    ASSERT_EQ(ledger.entries().size(), 1u);
    const LedgerEntry &entry = ledger.entries().front();
    EXPECT_EQ(entry.kind, LedgerEntry::Kind::TopUp);
    EXPECT_EQ(entry.amount, 1);
    EXPECT_EQ(entry.note, QStringLiteral("card"));
    EXPECT_EQ(ledger.spentSince(QDateTime()), 0);  // a top-up is not spend
}

TEST_F(LedgerTest, SpentSinceCountsChargesBookedAtOrAfterTheTime)
{
    Ledger ledger(clock, 1'000);
    const auto book = [&](Nanos amount) {
        ASSERT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 1)), charge(amount)));
    };
    const QDateTime hourBefore = clock.wallNow();
    book(100);                                   // an hour before the day starts
    clock.advance(1h);
    const QDateTime startOfDay = clock.wallNow();
    book(20);                                    // exactly at the start of the day
    clock.advance(5h);
    book(3);
    ASSERT_TRUE(ledger.topUp(500, QStringLiteral("top-up")));

    EXPECT_EQ(ledger.spentSince(hourBefore), 123);
    EXPECT_EQ(ledger.spentSince(hourBefore.addMSecs(1)), 23);
    EXPECT_EQ(ledger.spentSince(startOfDay.addMSecs(-1)), 23);
    EXPECT_EQ(ledger.spentSince(startOfDay), 23);
    EXPECT_EQ(ledger.spentSince(startOfDay.addMSecs(1)), 3);
    EXPECT_EQ(ledger.spentSince(clock.wallNow().addMSecs(1)), 0);
}

TEST_F(LedgerTest, SpentSinceAskedAgainCountsEveryLaterBookingOnce)
{
    // The dashboard and /metrics ask with the same day start between bookings: each answer must
    // be what a scan of every entry gives, whatever was asked in between.
    Ledger ledger(clock, 1'000);
    const auto book = [&](Nanos amount) {
        ASSERT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 1)), charge(amount)));
    };
    const QDateTime startOfDay = clock.wallNow();
    EXPECT_EQ(ledger.spentSince(startOfDay), 0);
    book(5);
    EXPECT_EQ(ledger.spentSince(startOfDay), 5);
    EXPECT_EQ(ledger.spentSince(startOfDay), 5);
    clock.advance(1h);
    const QDateTime later = clock.wallNow();
    book(7);
    EXPECT_EQ(ledger.spentSince(later), 7);        // another time: counted from the first entry
    EXPECT_EQ(ledger.spentSince(startOfDay), 12);  // and back
    book(11);
    ASSERT_TRUE(ledger.topUp(100, QStringLiteral("top-up")));
    EXPECT_EQ(ledger.spentSince(startOfDay), 23);
    EXPECT_EQ(ledger.spentSince(later), 18);
    clock.advance(1h);
    book(13);
    EXPECT_EQ(ledger.spentSince(later), 31);
    EXPECT_EQ(ledger.spentSince(QDateTime()), 36);
    EXPECT_EQ(ledger.spentSince(startOfDay), 36);
    EXPECT_EQ(ledger.spentSince(clock.wallNow().addMSecs(1)), 0);
}

TEST_F(LedgerTest, EntriesAfterReturnsOnlyLaterSequences)
{
    Ledger ledger(clock, 1'000);
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(ledger.topUp(10 + i, QStringLiteral("top-up")));

    EXPECT_EQ(ledger.entriesAfter(0).size(), 4u);
    const std::vector<LedgerEntry> later = ledger.entriesAfter(2);
    ASSERT_EQ(later.size(), 2u);
    EXPECT_EQ(later[0].sequence, 3u);
    EXPECT_EQ(later[1].sequence, 4u);
    EXPECT_EQ(later[1].amount, 13);
    EXPECT_TRUE(ledger.entriesAfter(4).empty());
    EXPECT_TRUE(ledger.entriesAfter(100).empty());
}

} // namespace
} // namespace sy::billing
