// Ledger with a journal (billing/LedgerJournal.h): an entry is committed before anything shows it,
// an entry the journal refused stays invisible but still counts against admission, entries are
// published strictly in sequence order, and after a restart new entries continue above the highest
// committed sequence, so a sequence number that was shown is never issued again.
#include "billing/LedgerJournal.h"

#include "LedgerTestSupport.h"

#include <functional>
#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;

// An in-memory journal: keeps what it committed; refuses while `refusing` is set. `onCommit` sees
// the ledger at the moment of the commit.
class MemoryJournal final : public LedgerJournal {
public:
    void submit(Ledger &ledger, const LedgerEntry &entry) override
    {
        if (onCommit)
            onCommit(entry);
        if (!refusing)
            committed.push_back(entry);
        ledger.journalled(entry.sequence, !refusing);
    }

    bool refusing = false;
    std::vector<LedgerEntry> committed;
    std::function<void(const LedgerEntry &)> onCommit;
};

TEST_F(LedgerTest, AChargeIsCommittedBeforeTheLedgerShowsIt)
{
    Ledger ledger(clock, 1'000);
    MemoryJournal journal;
    ledger.setJournal(&journal);
    bool checked = false;
    journal.onCommit = [&](const LedgerEntry &entry) {
        EXPECT_EQ(entry.sequence, 1u);
        EXPECT_EQ(entry.amount, 120);
        EXPECT_EQ(entry.keyName, kKey);
        EXPECT_TRUE(ledger.entries().empty());
        EXPECT_EQ(ledger.balance(), 1'000);
        EXPECT_EQ(ledger.keySpent(kKey), 0);
        checked = true;
    };
    EXPECT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 500)), charge(120)));
    EXPECT_TRUE(checked);
    ASSERT_EQ(journal.committed.size(), 1u);
    ASSERT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.entries().front().sequence, 1u);
    EXPECT_EQ(ledger.balance(), 880);
    EXPECT_EQ(ledger.keySpent(kKey), 120);
}

TEST_F(LedgerTest, TopUpsAreCommittedBeforeTheyAreShownToo)
{
    Ledger ledger(clock, 0);
    MemoryJournal journal;
    ledger.setJournal(&journal);
    journal.onCommit = [&](const LedgerEntry &) { EXPECT_EQ(ledger.balance(), 0); };
    EXPECT_TRUE(ledger.topUp(50, QStringLiteral("top-up")));
    ASSERT_EQ(journal.committed.size(), 1u);
    EXPECT_EQ(journal.committed.front().kind, LedgerEntry::Kind::TopUp);
    EXPECT_EQ(ledger.balance(), 50);
}

TEST_F(LedgerTest, ARefusedChargeStaysHiddenButStillCountsAgainstAdmission)
{
    Ledger ledger(clock, 100);
    MemoryJournal journal;
    journal.refusing = true;
    ledger.setJournal(&journal);
    EXPECT_TRUE(ledger.settle(idOf(ledger.tryAdmit(kKey, Nanos(100), 10)), charge(100)));

    EXPECT_EQ(ledger.unpublishedCount(), 1);
    EXPECT_TRUE(ledger.entries().empty());
    EXPECT_EQ(ledger.balance(), 100);
    EXPECT_EQ(ledger.keySpent(kKey), 0);
    // The money is spent whether or not the disk took it: nothing more is admitted.
    EXPECT_EQ(ledger.reservedInFlight(), 100);
    EXPECT_EQ(refusalOf(ledger.tryAdmit(kOtherKey, std::nullopt, 1)), AdmissionRefusal::InsufficientBalance);

    journal.refusing = false;
    EXPECT_EQ(ledger.publishPending(), 0);
    ASSERT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.entries().front().sequence, 1u);
    EXPECT_EQ(ledger.balance(), 0);
    EXPECT_EQ(ledger.keySpent(kKey), 100);
    EXPECT_EQ(ledger.reservedInFlight(), 0);
    EXPECT_EQ(ledger.keyReservedInFlight(kKey), 0);
}

TEST_F(LedgerTest, EntriesBehindARefusedOneWaitAndArePublishedInSequenceOrder)
{
    Ledger ledger(clock, 1'000);
    MemoryJournal journal;
    ledger.setJournal(&journal);
    std::vector<quint64> offered;
    journal.onCommit = [&](const LedgerEntry &entry) { offered.push_back(entry.sequence); };
    journal.refusing = true;
    ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 10)), charge(10, QStringLiteral("a"), QStringLiteral("req-1")));
    ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 10)), charge(20, QStringLiteral("a"), QStringLiteral("req-2")));
    // The second booking offered the first entry again, never the second ahead of it.
    EXPECT_EQ(offered, (std::vector<quint64>{1, 1}));
    EXPECT_EQ(ledger.unpublishedCount(), 2);
    EXPECT_TRUE(ledger.entriesAfter(0).empty());

    journal.refusing = false;
    EXPECT_EQ(ledger.publishPending(), 0);
    ASSERT_EQ(journal.committed.size(), 2u);
    EXPECT_EQ(journal.committed[0].sequence, 1u);
    EXPECT_EQ(journal.committed[1].sequence, 2u);
    ASSERT_EQ(ledger.entries().size(), 2u);
    EXPECT_EQ(ledger.entries()[0].requestId, QStringLiteral("req-1"));
    EXPECT_EQ(ledger.entries()[1].requestId, QStringLiteral("req-2"));
    EXPECT_EQ(ledger.balance(), 970);
}

TEST_F(LedgerTest, AfterARestartNewEntriesGetSequencesAboveEveryCommittedOne)
{
    MemoryJournal journal;
    {
        Ledger first(clock, 1'000);
        first.setJournal(&journal);
        first.settle(idOf(first.tryAdmit(kKey, std::nullopt, 10)), charge(10, QStringLiteral("a"), QStringLiteral("req-1")));
        first.settle(idOf(first.tryAdmit(kKey, std::nullopt, 10)), charge(10, QStringLiteral("a"), QStringLiteral("req-2")));
        journal.refusing = true;  // the last one never reaches the disk, and was never shown
        first.settle(idOf(first.tryAdmit(kKey, std::nullopt, 10)), charge(10, QStringLiteral("a"), QStringLiteral("req-3")));
        EXPECT_EQ(first.lastSequence(), 2u);
    }
    journal.refusing = false;
    Ledger second(clock, 1'000);
    second.restore(journal.committed);
    second.setJournal(&journal);
    second.settle(idOf(second.tryAdmit(kKey, std::nullopt, 10)), charge(10, QStringLiteral("a"), QStringLiteral("req-4")));
    ASSERT_EQ(second.entries().size(), 3u);
    EXPECT_EQ(second.entries().back().sequence, 3u);
    EXPECT_EQ(second.balance(), 970);
}

TEST_F(LedgerTest, WithoutAJournalEntriesAreShownAtOnce)
{
    Ledger ledger(clock, 100);
    ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 10)), charge(40));
    EXPECT_EQ(ledger.unpublishedCount(), 0);
    EXPECT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.balance(), 60);
}

} // namespace
} // namespace sy::billing
