// Ledger admission (SPEC §8): a request is admitted while balance − reservations in flight > 0,
// and while its key's spend limit − spend − reservations in flight > 0; it then reserves its
// estimate until it settles, so concurrent requests overdraw by at most the last admitted estimate.
#include "LedgerTestSupport.h"

#include <random>
#include <utility>
#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;

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

} // namespace
} // namespace sy::billing
