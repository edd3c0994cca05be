// Ledger with a journal that answers later (a group commit on a storage thread): entries are
// submitted as they are booked without waiting for earlier answers, stay hidden until answered,
// are published in sequence order whatever order the answers come in, a refused one is submitted
// again, and afterJournal() holds a caller until the first answer to its entry — committed or not.
#include "billing/LedgerJournal.h"

#include "LedgerTestSupport.h"

#include <vector>

namespace sy::billing {
namespace {

using namespace sy::billing::test;

// Keeps what was submitted; the test answers with answer().
class DeferredJournal final : public LedgerJournal {
public:
    void submit(Ledger &, const LedgerEntry &entry) override { submitted.push_back(entry.sequence); }
    void drain() override
    {
        ++drains;
        if (ledger)
            for (const quint64 sequence : std::exchange(submitted, {}))
                ledger->journalled(sequence, true);
    }

    std::vector<quint64> submitted;
    Ledger *ledger = nullptr;  // answered by drain() when set
    int drains = 0;
};

TEST_F(LedgerTest, EntriesAreSubmittedWithoutWaitingAndShownOnlyOnceAnswered)
{
    Ledger ledger(clock, 1'000);
    DeferredJournal journal;
    ledger.setJournal(&journal);
    ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 10)), charge(100, QStringLiteral("a"), QStringLiteral("req-1")));
    ledger.settle(idOf(ledger.tryAdmit(kKey, std::nullopt, 10)), charge(200, QStringLiteral("a"), QStringLiteral("req-2")));
    EXPECT_EQ(journal.submitted, (std::vector<quint64>{1, 2}));  // the second did not wait for the first
    EXPECT_TRUE(ledger.entries().empty());
    EXPECT_EQ(ledger.balance(), 1'000);
    EXPECT_EQ(ledger.reservedInFlight(), 300);  // unanswered charges count against admission

    ledger.journalled(1, true);
    ASSERT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.balance(), 900);
    EXPECT_EQ(ledger.reservedInFlight(), 200);
    ledger.journalled(2, true);
    EXPECT_EQ(ledger.entries().size(), 2u);
    EXPECT_EQ(ledger.balance(), 700);
    EXPECT_EQ(ledger.unpublishedCount(), 0);
}

TEST_F(LedgerTest, ALaterAnswerWaitsForTheEarlierEntry)
{
    Ledger ledger(clock, 1'000);
    DeferredJournal journal;
    ledger.setJournal(&journal);
    ledger.topUp(10, QStringLiteral("first"));
    ledger.topUp(20, QStringLiteral("second"));
    ledger.journalled(2, true);
    EXPECT_TRUE(ledger.entriesAfter(0).empty());  // 2 is committed, but 1 is not yet: nothing skips
    EXPECT_EQ(ledger.balance(), 1'000);
    ledger.journalled(1, true);
    ASSERT_EQ(ledger.entries().size(), 2u);
    EXPECT_EQ(ledger.entries()[0].note, QStringLiteral("first"));
    EXPECT_EQ(ledger.entries()[1].note, QStringLiteral("second"));
    EXPECT_EQ(ledger.balance(), 1'030);
}

TEST_F(LedgerTest, ARefusedEntryIsSubmittedAgainAndAnswersForOthersAreIgnored)
{
    Ledger ledger(clock, 1'000);
    DeferredJournal journal;
    ledger.setJournal(&journal);
    ledger.topUp(10, QStringLiteral("t"));
    ledger.journalled(1, false);
    EXPECT_EQ(ledger.unpublishedCount(), 1);
    ledger.journalled(1, true);  // not submitted again yet: not an answer to anything
    ledger.journalled(7, true);  // no such entry
    EXPECT_TRUE(ledger.entries().empty());

    journal.submitted.clear();
    EXPECT_EQ(ledger.publishPending(), 1);
    EXPECT_EQ(journal.submitted, (std::vector<quint64>{1}));
    EXPECT_EQ(ledger.publishPending(), 1);  // in flight: not submitted twice
    EXPECT_EQ(journal.submitted, (std::vector<quint64>{1}));
    ledger.journalled(1, true);
    EXPECT_EQ(ledger.unpublishedCount(), 0);
    EXPECT_EQ(ledger.balance(), 1'010);
}

TEST_F(LedgerTest, AfterJournalWaitsForTheFirstAnswerCommittedOrNot)
{
    Ledger ledger(clock, 1'000);
    DeferredJournal journal;
    ledger.setJournal(&journal);
    ledger.topUp(10, QStringLiteral("t"));
    ledger.topUp(20, QStringLiteral("u"));
    std::vector<int> ran;
    ledger.afterJournal(1, [&] { ran.push_back(1); });
    ledger.afterJournal(2, [&] {
        ran.push_back(2);
        EXPECT_EQ(ledger.entries().size(), 2u);  // an accepted entry is shown before its waiter runs
    });
    EXPECT_TRUE(ran.empty());
    ledger.journalled(1, false);  // refused: the caller is let go all the same
    EXPECT_EQ(ran, (std::vector<int>{1}));
    ledger.publishPending();
    ledger.journalled(1, true);
    EXPECT_EQ(ran, (std::vector<int>{1}));
    ledger.journalled(2, true);
    EXPECT_EQ(ran, (std::vector<int>{1, 2}));

    ledger.afterJournal(2, [&] { ran.push_back(3); });   // published already: at once
    ledger.afterJournal(99, [&] { ran.push_back(4); });  // nothing waits under that sequence
    EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 4}));
}

TEST_F(LedgerTest, AwaitJournalDrainsOnlyWhileAnEntryIsInFlight)
{
    Ledger ledger(clock, 1'000);
    DeferredJournal journal;
    journal.ledger = &ledger;
    ledger.setJournal(&journal);
    ledger.awaitJournal();
    EXPECT_EQ(journal.drains, 0);
    ledger.topUp(10, QStringLiteral("t"));
    EXPECT_EQ(ledger.balance(), 1'000);
    ledger.awaitJournal();
    EXPECT_EQ(journal.drains, 1);
    EXPECT_EQ(ledger.balance(), 1'010);
}

} // namespace
} // namespace sy::billing
