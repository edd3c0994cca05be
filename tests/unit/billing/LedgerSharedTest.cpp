// Ledger in shared mode (billing/SharedMoney.h): the shared book decides admission (its verdicts
// become the ledger's, an unreachable one a refusal of its own), a reservation that ends without
// a charge is released there, a charge carries the reservation it ends to the journal, and booked
// entries become visible only when they come back from the database (restore()).
#include "billing/LedgerJournal.h"
#include "billing/SharedMoney.h"

#include "LedgerTestSupport.h"

#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;

// The shared book's answers, scripted; records what it was asked.
class ScriptedBook final : public SharedMoney {
public:
    Verdict reserve(quint64 id, const QString &keyName, std::optional<Nanos> keySpendLimit, Nanos estimate,
                    std::optional<Nanos> openingBalance) override
    {
        asked.push_back({id, keyName, keySpendLimit, estimate, openingBalance});
        return verdict;
    }
    void release(quint64 id) override { released.push_back(id); }

    struct Asked {
        quint64 id;
        QString keyName;
        std::optional<Nanos> keySpendLimit;
        Nanos estimate;
        std::optional<Nanos> openingBalance;
    };
    Verdict verdict = Verdict::Admitted;
    std::vector<Asked> asked;
    std::vector<quint64> released;
};

class KeepingJournal final : public LedgerJournal {
public:
    void submit(Ledger &ledger, const LedgerEntry &entry) override
    {
        committed.push_back(entry);
        ledger.journalled(entry.sequence, true);
    }
    std::vector<LedgerEntry> committed;
};

TEST_F(LedgerTest, TheSharedBookDecidesAdmissionWhateverTheLocalBalance)
{
    Ledger ledger(clock, 0);  // nothing locally: the database's totals count, not these
    ScriptedBook book;
    ledger.setShared(&book);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, 500, 40));
    ASSERT_EQ(book.asked.size(), 1u);
    EXPECT_EQ(book.asked[0].id, id);
    EXPECT_EQ(book.asked[0].keySpendLimit, std::optional<Nanos>(500));
    EXPECT_EQ(book.asked[0].estimate, 40);
    EXPECT_EQ(book.asked[0].openingBalance, std::optional<Nanos>(0));
    EXPECT_EQ(ledger.reservationsInFlight(), 1);

    book.verdict = SharedMoney::Verdict::SpendLimitReached;
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, 500, 40)), AdmissionRefusal::SpendLimitReached);
    book.verdict = SharedMoney::Verdict::Unavailable;
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kKey, std::nullopt, 40)), AdmissionRefusal::MoneyUnavailable);
    EXPECT_EQ(ledger.reservationsInFlight(), 1);
}

TEST_F(LedgerTest, AnUnmeteredWorkspaceAsksTheSharedBookWithoutAnOpeningBalance)
{
    Ledger ledger(clock, std::nullopt);
    ScriptedBook book;
    ledger.setShared(&book);
    idOf(ledger.tryAdmit(kKey, std::nullopt, 7));
    ASSERT_EQ(book.asked.size(), 1u);
    EXPECT_EQ(book.asked[0].openingBalance, std::nullopt);
}

TEST_F(LedgerTest, ReleasesAndFreeSettlesEndTheSharedReservation)
{
    Ledger ledger(clock, 1'000);
    ScriptedBook book;
    ledger.setShared(&book);
    const ReservationId released = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));
    const ReservationId free = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));
    EXPECT_TRUE(ledger.release(released));
    EXPECT_FALSE(ledger.release(released));  // once
    EXPECT_TRUE(ledger.settle(free, charge(0)));
    EXPECT_EQ(book.released, (std::vector<quint64>{released, free}));
}

TEST_F(LedgerTest, ASharedChargeCarriesItsReservationAndShowsOnlyWhenTheDatabaseNumberedIt)
{
    Ledger ledger(clock, 1'000);
    ScriptedBook book;
    KeepingJournal journal;
    ledger.setShared(&book);
    ledger.setJournal(&journal);
    const ReservationId id = idOf(ledger.tryAdmit(kKey, std::nullopt, 10));
    ASSERT_TRUE(ledger.settle(id, charge(30)));
    ASSERT_EQ(journal.committed.size(), 1u);
    EXPECT_EQ(journal.committed[0].reservation, id);
    EXPECT_TRUE(book.released.empty());  // the charge ends it, in the same transaction
    EXPECT_EQ(ledger.balance(), 1'000);
    EXPECT_TRUE(ledger.entries().empty());

    LedgerEntry fromDatabase = journal.committed[0];
    fromDatabase.sequence = 41;  // numbered by the database, among other gateways' entries
    LedgerEntry other = charge(5, QStringLiteral("c"), QStringLiteral("req-other"));
    other.sequence = 42;
    ledger.restore({fromDatabase, other});
    EXPECT_EQ(ledger.balance(), 965);
    EXPECT_EQ(ledger.keySpent(kKey), 30);
    ledger.restore({other});  // seen already
    EXPECT_EQ(ledger.balance(), 965);
}

} // namespace
} // namespace sy::billing
