// PostgresStore against a real PostgreSQL 15 (tests/support/PostgresServer): what goes in comes
// back, two stores on one database share one ledger and one admission, a charge is booked once
// per request id across them, a newer schema and a wrong address are refused with the server's
// reason, and a restarted server is picked up without reopening the store (a charge offered again
// during the outage queued once, and booked before the next admission; the connection a restart
// cut while idle replaced at the first admission). One batch writes every row of the queue in one
// round trip; retention by count keeps up between its periodic passes; while the server is away
// the store is full from its bound of request-log rows on, the queue holds twice that many and
// every ledger entry.
#include "PostgresTestSupport.h"
#include "support/Waits.h"

namespace sy::storage::test {
namespace {

using sy::test::PostgresServer;

class PostgresStoreTest : public PostgresDatabaseTest {
protected:
    // The store on the test's database, with `query` (e.g. "?reservation_lease_s=3600") on its URL.
    std::unique_ptr<PostgresStore> open(const QString &query = {}, const PostgresStoreOptions &options = {})
    {
        auto address = parsePostgresUrl(s_server->url(m_database) + query);
        if (auto *error = std::get_if<QString>(&address)) {
            ADD_FAILURE() << error->toStdString();
            return nullptr;
        }
        auto opened = PostgresStore::open(std::get<PostgresAddress>(address), options);
        if (auto *refusal = std::get_if<QString>(&opened)) {
            ADD_FAILURE() << "open refused: " << refusal->toStdString();
            return nullptr;
        }
        return std::move(std::get<std::unique_ptr<PostgresStore>>(opened));
    }
    QString refusalOf(const QString &url)
    {
        auto address = parsePostgresUrl(url);
        if (auto *error = std::get_if<QString>(&address))
            return *error;
        auto opened = PostgresStore::open(std::get<PostgresAddress>(address));
        if (auto *refusal = std::get_if<QString>(&opened))
            return *refusal;
        return {};
    }
    static StoredReservation reservation(quint64 id, qint64 estimate, std::optional<qint64> opening,
                                         std::optional<qint64> spendLimit = std::nullopt)
    {
        return StoredReservation{id, QStringLiteral("team-key"), estimate, opening, spendLimit};
    }
};

TEST_F(PostgresStoreTest, WhatIsWrittenComesBack)
{
    auto store = open();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->loadConfig(), std::nullopt);
    store->saveConfig(R"({"currency":"EUR","note":"ü ₽"})");
    store->setMeta(QStringLiteral("opening"), QStringLiteral("25"));
    StoredRequest first = request("req_1", baseTime(), QStringLiteral("alice"), QStringLiteral("gpt"), 200, false);
    StoredRequest second = request("req_2", baseTime().addSecs(5), QStringLiteral("bob"), QStringLiteral("claude"), 502, true);
    second.content = R"({"messages":[]})";
    store->appendRequest(first);
    store->appendRequest(second);
    ASSERT_TRUE(store->flush()) << store->stats().lastError.toStdString();

    EXPECT_EQ(store->loadConfig(), QByteArray(R"({"currency":"EUR","note":"ü ₽"})"));
    EXPECT_EQ(store->meta(QStringLiteral("opening")), QStringLiteral("25"));
    EXPECT_EQ(store->request("req_2"), second);
    StoredRequest listed = second;
    listed.content.clear();  // listings leave the contents out
    EXPECT_EQ(store->queryRequests({}), (std::vector<StoredRequest>{listed, first}));
    StoredRequestFilter failed;
    failed.failedOnly = true;
    EXPECT_EQ(store->queryRequests(failed), (std::vector<StoredRequest>{listed}));
}

TEST_F(PostgresStoreTest, AChargeIsBookedOncePerRequestAcrossGatewaysAndSequencesAreTheDatabases)
{
    auto a = open();
    auto b = open();
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->commitLedger(topUp(7, 10'000)));
    ASSERT_TRUE(a->commitLedger(charge(8, QStringLiteral("req_x"), 1'000)));
    // The same request charged again by another gateway (or offered again): ignored, not failed.
    ASSERT_TRUE(b->commitLedger(charge(3, QStringLiteral("req_x"), 1'000)));
    ASSERT_TRUE(b->commitLedger(charge(4, QStringLiteral("req_y"), 2'000)));

    const std::vector<StoredLedgerEntry> entries = a->ledgerEntries(0);
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].sequence, 1u);
    EXPECT_EQ(entries[0].kind, QLatin1String(kLedgerTopUp));
    EXPECT_EQ(entries[1].requestId, QStringLiteral("req_x"));
    EXPECT_EQ(entries[2].sequence, 3u);
    EXPECT_EQ(entries[2].requestId, QStringLiteral("req_y"));
    EXPECT_EQ(b->stats().ignoredLedgerEntries, 1u);
    EXPECT_EQ(b->ledgerEntries(2).size(), 1u);
    // Pages (Persistence restores and follows the ledger in pages).
    ASSERT_EQ(b->ledgerEntries(0, 2).size(), 2u);
    EXPECT_EQ(b->ledgerEntries(0, 2).back().requestId, QStringLiteral("req_x"));
    ASSERT_EQ(b->ledgerEntries(2, 2).size(), 1u);
    EXPECT_EQ(b->ledgerEntries(2, 2).front().requestId, QStringLiteral("req_y"));
}

TEST_F(PostgresStoreTest, AdmissionCountsEveryGatewaysReservationsAndChargesEndThem)
{
    auto a = open();
    auto b = open();
    ASSERT_TRUE(a && b);
    // Opening balance 10, estimates of 4: admitted while 10 − reserved > 0.
    EXPECT_EQ(a->reserve(reservation(1, 4, 10)), SharedAdmission::Admitted);
    EXPECT_EQ(b->reserve(reservation(1, 4, 10)), SharedAdmission::Admitted);
    EXPECT_EQ(a->reserve(reservation(2, 4, 10)), SharedAdmission::Admitted);
    EXPECT_EQ(b->reserve(reservation(2, 4, 10)), SharedAdmission::InsufficientBalance);

    a->releaseReservation(2);
    bool admitted = false;  // the predicate reserves: evaluated until it first succeeds, never again
    ASSERT_TRUE(sy::test::waitUntil(
        [&] { return admitted = admitted || b->reserve(reservation(3, 4, 10)) == SharedAdmission::Admitted; }));
    StoredLedgerEntry settled = charge(1, QStringLiteral("req_a"), 9);
    settled.reservation = 1;  // a's first: 10 − 9 charged − b's two reservations of 4 ≤ 0
    ASSERT_TRUE(a->commitLedger(settled));
    EXPECT_EQ(a->reserve(reservation(4, 1, 10)), SharedAdmission::InsufficientBalance);
    // Unmetered: only the spend limit counts (9 spent + 4 + 4 reserved by the key).
    EXPECT_EQ(a->reserve(reservation(5, 1, std::nullopt, 18)), SharedAdmission::Admitted);
    EXPECT_EQ(a->reserve(reservation(6, 1, std::nullopt, 18)), SharedAdmission::SpendLimitReached);
}

TEST_F(PostgresStoreTest, ANewerSchemaIsRefusedNamingBothVersions)
{
    ASSERT_TRUE(open());
    ASSERT_TRUE(s_server->psql(m_database, QStringLiteral("UPDATE meta SET value = '99' WHERE key = 'schema_version'")));
    const QString refusal = refusalOf(s_server->url(m_database));
    EXPECT_TRUE(refusal.contains(QLatin1String("schema version 99, newer than this program's 2"))) << refusal.toStdString();
    EXPECT_FALSE(refusal.contains(QLatin1String(PostgresServer::kPassword)));
    EXPECT_EQ(s_server->psql(m_database, QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")), QStringLiteral("99"));
}

TEST_F(PostgresStoreTest, AWrongPasswordOrPortIsRefusedWithTheServersReason)
{
    QString url = s_server->url(m_database);
    url.replace(QLatin1String(PostgresServer::kPassword), QLatin1String("not-the-password"));
    const QString badPassword = refusalOf(url);
    EXPECT_TRUE(badPassword.contains(QLatin1String("password authentication failed"))) << badPassword.toStdString();
    EXPECT_FALSE(badPassword.contains(QLatin1String("not-the-password")));

    const QString closedPort = refusalOf(QStringLiteral("postgres://u:p@127.0.0.1:1/db"));
    EXPECT_TRUE(closedPort.contains(QLatin1String("Connection refused"))) << closedPort.toStdString();
    EXPECT_TRUE(closedPort.contains(QLatin1String("postgres://u@127.0.0.1:1/db"))) << closedPort.toStdString();
}

TEST_F(PostgresStoreTest, ARestartedServerIsPickedUpWithoutReopening)
{
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commitLedger(topUp(1, 100)));
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();
    EXPECT_EQ(store->reserve(reservation(1, 1, 100)), SharedAdmission::Unavailable);
    EXPECT_FALSE(store->commitLedger(charge(2, QStringLiteral("req_down"), 5)));  // stays queued
    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();

    ASSERT_TRUE(sy::test::waitUntil([&] { return store->flush(); }));
    EXPECT_EQ(store->reserve(reservation(2, 1, 100)), SharedAdmission::Admitted);
    EXPECT_EQ(store->ledgerEntries(0).size(), 2u);
}

TEST_F(PostgresStoreTest, AChargeOfferedAgainWhileTheServerIsAwayIsQueuedOnce)
{
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();
    // The ledger offers an entry that was not committed again at every retry.
    for (int attempt = 0; attempt < 3; ++attempt)
        EXPECT_FALSE(store->commitLedger(charge(1, QStringLiteral("req_retried"), 5)));
    EXPECT_EQ(store->stats().pendingWrites, 1u);
    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();

    ASSERT_TRUE(sy::test::waitUntil([&] { return store->flush(); }));
    EXPECT_EQ(store->ledgerEntries(0).size(), 1u);
    EXPECT_EQ(store->stats().ignoredLedgerEntries, 0u);
}

TEST_F(PostgresStoreTest, TheFirstAdmissionAfterAnOutageCountsTheChargesMadeDuringIt)
{
    // No flush by the timer during the test: only the admission itself can book the charge first.
    PostgresStoreOptions slow;
    slow.flushInterval = std::chrono::minutes(10);
    auto store = open({}, slow);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commitLedger(topUp(1, 10)));
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();
    EXPECT_FALSE(store->commitLedger(charge(2, QStringLiteral("req_during_outage"), 10)));  // spends it all
    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();

    // Opening balance 0: the top-up less the charge leaves nothing.
    SharedAdmission verdict = SharedAdmission::Unavailable;
    ASSERT_TRUE(sy::test::waitUntil([&] {
        if (verdict == SharedAdmission::Unavailable)
            verdict = store->reserve(reservation(1, 1, 0));
        return verdict != SharedAdmission::Unavailable;
    }));
    EXPECT_EQ(verdict, SharedAdmission::InsufficientBalance);
    EXPECT_EQ(store->stats().pendingWrites, 0u);
}

TEST_F(PostgresStoreTest, TheFirstAdmissionAfterARestartWhileIdleIsAnsweredOnANewConnection)
{
    // No statement of the store's own between the restart and the admission: no flush, no
    // renewal (a lease of an hour is renewed every 20 minutes).
    PostgresStoreOptions slow;
    slow.flushInterval = std::chrono::minutes(10);
    auto store = open(QStringLiteral("?reservation_lease_s=3600"), slow);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commitLedger(topUp(1, 100)));
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();
    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();

    EXPECT_EQ(store->reserve(reservation(1, 1, 0)), SharedAdmission::Admitted);
}

TEST_F(PostgresStoreTest, OneBatchWritesEveryRowTheLastWriteOfAnIdWinningAndBooksInQueueOrder)
{
    PostgresStoreOptions slow;
    slow.flushInterval = std::chrono::minutes(10);  // one batch: the flush below
    auto store = open({}, slow);
    ASSERT_TRUE(store);
    for (int i = 0; i < 300; ++i)
        store->appendRequest(request("req_" + QByteArray::number(i), baseTime().addMSecs(i)));
    // Quotes, backslashes and non-ASCII text go through as they are.
    StoredRequest replaced = request("req_7", baseTime().addSecs(3600), QStringLiteral("o'brien \\ \"q\""),
                                     QStringLiteral("модель"), 502, true);
    replaced.json = R"({"id":"req_7","note":"it's \\ ₽ \"quoted\""})";
    replaced.content = R"({"messages":[{"content":"'; DROP TABLE ledger; --"}]})";
    store->appendRequest(replaced);
    store->appendLedger(topUp(1, 100, QStringLiteral("a 'quoted' note")));
    store->appendLedger(charge(2, QStringLiteral("req_a"), 10));
    store->appendLedger(charge(3, QStringLiteral("req_a"), 10));  // the same request: ignored
    store->appendLedger(charge(4, QStringLiteral("req_b"), 20));
    store->setMeta(QStringLiteral("note"), QStringLiteral("it's"));
    ASSERT_TRUE(store->flush()) << store->stats().lastError.toStdString();

    const StoreStats stats = store->stats();
    EXPECT_EQ(stats.transactions, 1u);
    EXPECT_EQ(stats.ignoredLedgerEntries, 1u);
    EXPECT_EQ(stats.pendingWrites, 0u);
    EXPECT_EQ(s_server->psql(m_database, QStringLiteral("SELECT count(*) FROM request_log")), QStringLiteral("300"));
    EXPECT_EQ(store->request("req_7"), replaced);
    EXPECT_EQ(store->meta(QStringLiteral("note")), QStringLiteral("it's"));
    const std::vector<StoredLedgerEntry> entries = store->ledgerEntries(0);
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].kind, QLatin1String(kLedgerTopUp));
    EXPECT_EQ(entries[0].note, QStringLiteral("a 'quoted' note"));
    EXPECT_EQ(entries[1].requestId, QStringLiteral("req_a"));
    EXPECT_EQ(entries[2].requestId, QStringLiteral("req_b"));
    EXPECT_EQ(entries[2].sequence, 3u);
}

TEST_F(PostgresStoreTest, RetentionByCountKeepsUpBetweenPeriodicPasses)
{
    PostgresStoreOptions options;
    options.flushInterval = std::chrono::milliseconds(20);
    options.retentionInterval = std::chrono::hours(1);  // the interval alone would wait an hour
    auto store = open({}, options);
    ASSERT_TRUE(store);
    for (int i = 0; i < 1100; ++i)
        store->appendRequest(request("old_" + QByteArray::number(i), baseTime().addMSecs(i)));
    ASSERT_TRUE(store->flush());
    store->setRetention(0, 1000);  // the changed bound applies at the next tick: 100 rows go
    ASSERT_TRUE(sy::test::waitUntil([&] { return store->stats().retentionDeleted == 100; }));

    // A tenth of the cap, at least 1,000 rows, written since that pass: the next tick trims.
    for (int i = 0; i < 1000; ++i)
        store->appendRequest(request("new_" + QByteArray::number(i), baseTime().addSecs(10 + i)));
    ASSERT_TRUE(store->flush());
    EXPECT_TRUE(sy::test::waitUntil([&] { return store->stats().retentionDeleted == 1100; }))
        << store->stats().retentionDeleted << " rows deleted";
    EXPECT_EQ(s_server->psql(m_database, QStringLiteral("SELECT count(*) FROM request_log")), QStringLiteral("1000"));
    EXPECT_EQ(store->queryRequests({.limit = 1}).front().id, QByteArray("new_999"));
}

TEST_F(PostgresStoreTest, WhileTheServerIsAwayTheStoreIsFullFromItsBoundAndDropsOnlyPastTwiceIt)
{
    PostgresStoreOptions options;
    options.maxQueuedRequests = 100;
    auto store = open({}, options);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commitLedger(topUp(1, 1'000)));
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();
    for (int i = 0; i < 250; ++i) {
        if (i == 99) {
            EXPECT_EQ(store->requestLogFull(), std::nullopt) << "full below the soft bound";
        }
        if (i == 100) {
            EXPECT_EQ(store->requestLogFull(), std::optional<quint64>(100)) << "not full at the soft bound";
        }
        store->appendRequest(request("req_" + QByteArray::number(i), baseTime().addMSecs(i)));
        if (i % 50 == 0)
            store->appendLedger(charge(quint64(2 + i / 50), QStringLiteral("req_%1").arg(i), 1));
    }
    StoreStats stats = store->stats();
    EXPECT_EQ(stats.droppedRequests, 50u);
    EXPECT_EQ(stats.pendingRequests, 200u);
    EXPECT_EQ(stats.pendingWrites, 205u);
    EXPECT_EQ(store->requestLogFull(), std::optional<quint64>(200));
    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();

    ASSERT_TRUE(sy::test::waitUntil([&] { return store->flush(); }));
    EXPECT_EQ(store->requestLogFull(), std::nullopt) << "still full once the queue was written";
    const auto logged = store->queryRequests({.limit = StoredRequestFilter::kMaxLimit});
    ASSERT_EQ(logged.size(), 200u);
    EXPECT_EQ(logged.front().id, QByteArray("req_199"));
    EXPECT_EQ(store->ledgerEntries(0).size(), 6u);
    EXPECT_EQ(store->stats().pendingRequests, 0u);
}

} // namespace
} // namespace sy::storage::test
