// The ledger's commits do not stall the gateway. With the ledger log (the default), a charge is
// durable as soon as it is booked: while another writer holds the database's lock, the charged
// answer arrives whole, the ledger shows the charge at once, and the database gets it once the
// lock goes. Without the log (as when it cannot be written), a charged answer waits for its
// charge's database commit — and only that answer: the gateway answers everything else meanwhile.
// Either way a client that saw a complete answer was charged for it.
#include "DatabaseLock.h"
#include "StoredAdminFixture.h"
#include "support/Waits.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

class LedgerCommitWaitTest : public StoredAdminFixture {
protected:
    config::Config configWithBalance() const
    {
        config::Config config = adminConfig();
        config.balance = 10;
        return config;
    }
    void startLocked(bool ledgerLog = false)
    {
        storage::SqliteStoreOptions options;
        options.flushInterval = 20ms;
        options.retentionInterval = 1h;
        // Long enough that the store's commit is still waiting for the lock when it is released.
        options.busyTimeout = 30s;
        options.ledgerLog = ledgerLog;
        startStoredGateway(configWithBalance(), options);
        ASSERT_TRUE(store->flush());
        other = std::make_unique<DatabaseLock>(databasePath());
        ASSERT_TRUE(other->lock());
    }

    std::unique_ptr<DatabaseLock> other;
};

TEST_F(LedgerCommitWaitTest, AChargedAnswerWaitsForItsCommitAndNothingElseDoes)
{
    startLocked();
    const billing::Ledger &ledger = gateway->state().ledger;
    const auto charged = send("POST", "/v1/chat/completions", chatBody(integration::kModelA));
    ASSERT_TRUE(test::waitUntil([&] { return ledger.lastBooked() == 1; }, 10s)) << "the answer's charge was never booked";

    // The gateway thread is free: an admin read and a second request are answered meanwhile.
    const QJsonObject balance = adminObject("/admin/balance");
    EXPECT_EQ(parseNanos(balance.value("balance").toString()), 10'000'000'000) << "not shown before it is committed";
    EXPECT_GT(parseNanos(balance.value("reserved_in_flight").toString()), 0) << "but counted against admission";
    const auto health = call("GET", "/health");
    EXPECT_EQ(health->status(), 200);
    EXPECT_FALSE(charged->isComplete()) << "the answer left before its charge was committed";
    EXPECT_TRUE(ledger.entries().empty());

    ASSERT_TRUE(other->release());
    ASSERT_TRUE(charged->waitForEnd(20s));
    EXPECT_EQ(charged->status(), 200) << charged->body().constData();
    ASSERT_EQ(ledger.entries().size(), 1u);
    EXPECT_EQ(ledger.entries().front().requestId.toLatin1(), charged->header("x-request-id"));
    const QJsonArray shown = adminList("/admin/ledger");
    ASSERT_EQ(shown.size(), 1);
    EXPECT_EQ(shown.first().toObject().value("request_id").toString().toLatin1(), charged->header("x-request-id"));
}

TEST_F(LedgerCommitWaitTest, AStreamsEndWaitsForItsCommit)
{
    startLocked();
    const billing::Ledger &ledger = gateway->state().ledger;
    const auto streamed = send("POST", "/v1/chat/completions", streamBody(integration::kModelA));
    ASSERT_TRUE(test::waitUntil([&] { return ledger.lastBooked() == 1; }, 10s)) << "the stream's charge was never booked";
    EXPECT_EQ(call("GET", "/health")->status(), 200);
    EXPECT_FALSE(streamed->isComplete()) << "the stream ended before its charge was committed";
    EXPECT_FALSE(streamed->body().contains("[DONE]"));

    ASSERT_TRUE(other->release());
    ASSERT_TRUE(streamed->waitForEnd(20s));
    EXPECT_EQ(streamed->status(), 200);
    EXPECT_TRUE(streamed->body().contains("data: [DONE]")) << streamed->body().constData();
    EXPECT_EQ(ledger.entries().size(), 1u);
}

TEST_F(LedgerCommitWaitTest, WithTheLedgerLogAChargedAnswerAndItsChargeDoNotWaitForTheDatabase)
{
    startLocked(/*ledgerLog=*/true);
    const billing::Ledger &ledger = gateway->state().ledger;
    const auto charged = send("POST", "/v1/chat/completions", chatBody(integration::kModelA));
    ASSERT_TRUE(charged->waitForEnd(20s)) << "the answer waited for the locked database";
    EXPECT_EQ(charged->status(), 200) << charged->body().constData();
    ASSERT_EQ(ledger.entries().size(), 1u) << "shown at once: durable in the ledger log";
    const QByteArray requestId = charged->header("x-request-id");
    EXPECT_EQ(ledger.entries().front().requestId.toLatin1(), requestId);
    const qint64 balance = parseNanos(adminObject("/admin/balance").value("balance").toString());
    EXPECT_LT(balance, 10'000'000'000) << "the balance shows the charge";
    EXPECT_EQ(store->ledgerLogSizes()->unconfirmed, 1) << "the database does not have it yet";

    const auto streamed = send("POST", "/v1/chat/completions", streamBody(integration::kModelA));
    ASSERT_TRUE(streamed->waitForEnd(20s));
    EXPECT_TRUE(streamed->body().contains("data: [DONE]")) << streamed->body().constData();
    EXPECT_EQ(ledger.entries().size(), 2u);

    ASSERT_TRUE(other->release());
    ASSERT_TRUE(test::waitUntil([&] { return store->ledgerLogSizes()->unconfirmed == 0; }, 20s))
        << "the charges never reached the database";
    const std::vector<storage::StoredLedgerEntry> stored = store->ledgerEntries(0);
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored.front().requestId.toLatin1(), requestId);
}

TEST_F(LedgerCommitWaitTest, ATopUpAnswersWithTheCommittedBalance)
{
    startStoredGateway(configWithBalance());
    const auto topUp = admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", 2}, {"note", "t"}});
    ASSERT_EQ(topUp->status(), 200) << topUp->body().constData();
    EXPECT_EQ(parseNanos(topUp->json().value("balance").toString()), 12'000'000'000);
    EXPECT_EQ(gateway->state().ledger.entries().size(), 1u);
}

} // namespace
} // namespace sy::system_test
