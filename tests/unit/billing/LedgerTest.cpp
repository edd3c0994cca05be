// Ledger (SPEC §8): admission while balance − reservations in flight > 0 (likewise a key's spend
// limit), one reservation per admitted request, charges booked exactly once, releases that cost
// nothing, top-ups, totals that match the entries, and spend since a point in time.
#include "billing/Ledger.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <vector>

namespace sy::billing {
namespace {

using namespace std::chrono_literals;

const QString kKey = QStringLiteral("team-a");
const QString kOtherKey = QStringLiteral("team-b");

bool admitted(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    return std::holds_alternative<ReservationId>(result);
}

ReservationId idOf(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    EXPECT_TRUE(admitted(result));
    return admitted(result) ? std::get<ReservationId>(result) : 0;
}

std::optional<AdmissionRefusal> refusalOf(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    if (admitted(result))
        return std::nullopt;
    return std::get<AdmissionRefusal>(result);
}

LedgerEntry charge(Nanos amount, const QString &channel = QStringLiteral("deepseek-main"),
                   const QString &requestId = QStringLiteral("req-1"))
{
    LedgerEntry entry;
    entry.requestId = requestId;
    entry.modelId = QStringLiteral("deepseek-chat");
    entry.channelId = channel;
    entry.promptTokens = 10;
    entry.completionTokens = 20;
    entry.amount = amount;
    return entry;
}

class LedgerTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
};

// --- admission against the balance --------------------------------------------------------------

TEST_F(LedgerTest, BalanceOfExactlyZeroIsRefused)
{
    Ledger ledger(clock, 0);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 0)), AdmissionRefusal::InsufficientBalance);
    EXPECT_EQ(ledger.reservationsInFlight(), 0);
}

TEST_F(LedgerTest, NegativeBalanceIsRefused)
{
    Ledger ledger(clock, -1);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 0)), AdmissionRefusal::InsufficientBalance);
}

TEST_F(LedgerTest, BalanceOfOneNanoIsAdmittedWhateverTheEstimate)
{
    Ledger ledger(clock, 1);
    const auto result = ledger.tryAdmit(kKey, std::nullopt, fromCurrency(1000.0));
    ASSERT_TRUE(admitted(result));
    EXPECT_NE(idOf(result), ReservationId(0));
    EXPECT_EQ(ledger.reservedInFlight(), fromCurrency(1000.0));
    EXPECT_EQ(ledger.keyReservedInFlight(kKey), fromCurrency(1000.0));
}

TEST_F(LedgerTest, ReservationsInFlightCountUntilTheRequestSettles)
{
    Ledger ledger(clock, 10);
    const ReservationId first = idOf(ledger.tryAdmit(kKey, std::nullopt, 6));
    EXPECT_EQ(ledger.reservedInFlight(), 6);
    // 10 − 6 = 4 > 0: a second request is still admitted, and now 10 − 12 < 0.
    const ReservationId second = idOf(ledger.tryAdmit(kOtherKey, std::nullopt, 6));
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 6)), AdmissionRefusal::InsufficientBalance);

    ASSERT_TRUE(ledger.settle(first, charge(3)));
    EXPECT_EQ(ledger.balance(), 7);
    EXPECT_EQ(ledger.reservedInFlight(), 6);
    // 7 − 6 = 1 > 0.
    const ReservationId third = idOf(ledger.tryAdmit(kKey, std::nullopt, 6));
    EXPECT_NE(third, first);
    EXPECT_NE(third, second);
    EXPECT_EQ(ledger.reservedInFlight(), 12);
}

TEST_F(LedgerTest, SecondRequestIsRefusedWhileTheFirstReservesTheWholeBalance)
{
    Ledger ledger(clock, 10);
    const ReservationId first = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));  // 10 − 10 = 0 left
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 6)), AdmissionRefusal::InsufficientBalance);

    ASSERT_TRUE(ledger.settle(first, charge(3)));
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, std::nullopt, 6)));
}

TEST_F(LedgerTest, OneNanoLeftAfterReservationsIsAdmitted)
{
    Ledger ledger(clock, 10);
    idOf(ledger.tryAdmit(kKey, std::nullopt, 9));  // 10 − 9 = 1 left
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, std::nullopt, 6)));
}

TEST_F(LedgerTest, NegativeEstimateReservesNothing)
{
    Ledger ledger(clock, 10);
    idOf(ledger.tryAdmit(kKey, std::nullopt, -50));
    EXPECT_EQ(ledger.reservedInFlight(), 0);
    EXPECT_EQ(ledger.reservationsInFlight(), 1);
}

// --- admission against a key's spend limit ------------------------------------------------------

TEST_F(LedgerTest, SpendLimitCountsTheKeysSpendAndReservations)
{
    Ledger ledger(clock, fromCurrency(100.0));
    const std::optional<Nanos> limit = 10;
    const ReservationId first = idOf(ledger.tryAdmit(kKey, limit, 6));
    const ReservationId second = idOf(ledger.tryAdmit(kKey, limit, 6));  // 10 − 6 = 4 > 0
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, limit, 6)), AdmissionRefusal::SpendLimitReached);
    // Another key's limit is its own.
    EXPECT_TRUE(admitted(ledger.tryAdmit(kOtherKey, limit, 6)));

    ASSERT_TRUE(ledger.settle(first, charge(3)));   // spent 3, reserved 6: 10 − 9 = 1 > 0
    EXPECT_EQ(ledger.keySpent(kKey), 3);
    const ReservationId third = idOf(ledger.tryAdmit(kKey, limit, 6));  // now 10 − 3 − 12 < 0
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, limit, 1)), AdmissionRefusal::SpendLimitReached);

    ASSERT_TRUE(ledger.settle(second, charge(4)));
    ASSERT_TRUE(ledger.settle(third, charge(3)));   // spent 10 == limit
    EXPECT_EQ(ledger.keySpent(kKey), 10);
    EXPECT_EQ(ledger.keyReservedInFlight(kKey), 0);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, limit, 0)), AdmissionRefusal::SpendLimitReached);
    // One nano more of limit admits again; no limit is not checked at all.
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, Nanos(11), 0)));
    EXPECT_TRUE(admitted(ledger.tryAdmit(kKey, std::nullopt, 0)));
}

TEST_F(LedgerTest, InsufficientBalanceIsReportedBeforeTheSpendLimit)
{
    Ledger ledger(clock, 0);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, Nanos(0), 1)), AdmissionRefusal::InsufficientBalance);
}

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

// --- many requests in flight --------------------------------------------------------------------

TEST_F(LedgerTest, TwoHundredAdmissionsInFlightOverdrawAtMostTheLastAdmittedEstimate)
{
    Ledger ledger(clock, 1'000);
    std::mt19937 random(20250101);
    std::uniform_int_distribution<Nanos> estimateOf(1, 300);
    int admittedCount = 0;
    Nanos lastAdmittedEstimate = 0;
    for (int i = 0; i < 200; ++i) {
        const Nanos estimate = estimateOf(random);
        if (admitted(ledger.tryAdmit(i % 2 ? kKey : kOtherKey, std::nullopt, estimate))) {
            ++admittedCount;
            lastAdmittedEstimate = estimate;
        }
        ASSERT_GE(ledger.balance() - ledger.reservedInFlight(), -lastAdmittedEstimate) << "request " << i;
    }
    EXPECT_GT(admittedCount, 1);
    EXPECT_LT(admittedCount, 200);
    EXPECT_LE(ledger.balance() - ledger.reservedInFlight(), 0);
}

TEST_F(LedgerTest, InterleavedAdmissionsAndSettlesKeepTheOverdrawBounded)
{
    Ledger ledger(clock, 2'000);
    std::mt19937 random(7);
    std::uniform_int_distribution<Nanos> estimateOf(1, 300);
    std::uniform_int_distribution<int> action(0, 2);
    std::vector<std::pair<ReservationId, Nanos>> inFlight;
    Nanos lastAdmittedEstimate = 0;
    Nanos charged = 0;
    int refused = 0;
    for (int i = 0; i < 200; ++i) {
        if (inFlight.empty() || action(random) != 0) {
            const Nanos estimate = estimateOf(random);
            const auto result = ledger.tryAdmit(kKey, std::nullopt, estimate);
            if (admitted(result)) {
                inFlight.emplace_back(std::get<ReservationId>(result), estimate);
                lastAdmittedEstimate = estimate;
            } else {
                ++refused;
            }
        } else {
            const auto [id, estimate] = inFlight.front();
            inFlight.erase(inFlight.begin());
            const Nanos actual = estimate / 2;  // actual ≤ estimate
            ASSERT_TRUE(ledger.settle(id, charge(actual)));
            charged += actual;
        }
        ASSERT_GE(ledger.balance() - ledger.reservedInFlight(), -lastAdmittedEstimate) << "step " << i;
    }
    EXPECT_GT(refused, 0);
    for (const auto &[id, estimate] : inFlight) {
        ASSERT_TRUE(ledger.release(id));
    }
    EXPECT_EQ(ledger.reservedInFlight(), 0);
    EXPECT_EQ(ledger.balance(), 2'000 - charged);
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
        if (i % 10 == 0)
            ASSERT_TRUE(ledger.topUp(fromCurrency(0.5), QStringLiteral("top-up")));
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
    const auto book = [&](Nanos amount) { ASSERT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 1)), charge(amount))); };
    book(100);                                   // yesterday, 23:00
    clock.advance(1h);
    const QDateTime startOfDay = clock.wallNow();
    book(20);                                    // exactly at the start of the day
    clock.advance(5h);
    book(3);
    ASSERT_TRUE(ledger.topUp(500, QStringLiteral("top-up")));

    EXPECT_EQ(ledger.spentSince(startOfDay.addMSecs(-1)), 123);
    EXPECT_EQ(ledger.spentSince(startOfDay), 23);
    EXPECT_EQ(ledger.spentSince(startOfDay.addMSecs(1)), 3);
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
