// The ledger's memory is bounded (billing::Ledger::kRetainedEntries) and the admin API answers as
// if it were not: GET /admin/ledger reads the database for the entries memory no longer holds
// (without a database it starts at the oldest entry held), and the usage history counts every
// charge, with a database and without one.
#include "LedgerPages.h"
#include "StoredAdminFixture.h"

#include "billing/Ledger.h"
#include "support/Waits.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kTail = billing::Ledger::kRetainedEntries;
constexpr int kPage = 1'000;  // GET /admin/ledger's default and largest page

storage::StoredLedgerEntry storedEntry(quint64 sequence, const QDateTime &at)
{
    storage::StoredLedgerEntry entry;
    entry.sequence = sequence;
    entry.at = at;
    if (sequence % 500 == 0) {
        entry.kind = QString::fromLatin1(storage::kLedgerTopUp);
        entry.amountNanos = 5'000'000'000;
        entry.note = QStringLiteral("top-up %1").arg(sequence);
        return entry;
    }
    entry.kind = QString::fromLatin1(storage::kLedgerCharge);
    entry.requestId = QStringLiteral("req-%1").arg(sequence);
    entry.keyName = sequence % 3 ? QStringLiteral("ide") : QStringLiteral("agent");
    entry.modelId = QStringLiteral("chat-a");
    entry.channelId = QStringLiteral("alpha");
    entry.promptTokens = 10;
    entry.completionTokens = qint64(sequence % 7);
    entry.amountNanos = 1'000 + qint64(sequence);
    return entry;
}

class LedgerMemoryTest : public StoredAdminFixture {
protected:
    // Every entry GET /admin/ledger lists from after=0, page after page, as a reader pages.
    QJsonArray everyPage(int limit)
    {
        return everyLedgerPage([this](const QByteArray &path) { return adminList(path); }, limit);
    }

    // An earlier run's ledger of `count` entries (a top-up every 500th), `days` days long up to
    // now, written to the database and replayed as at a start.
    std::vector<storage::StoredLedgerEntry> storeEarlierRun(std::size_t count, int days)
    {
        std::vector<storage::StoredLedgerEntry> entries;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const qint64 spanMs = qint64(days) * 86'400'000 - 60'000;
        for (std::size_t i = 1; i <= count; ++i) {
            entries.push_back(storedEntry(i, now.addMSecs(-spanMs + spanMs * qint64(i) / qint64(count))));
            store->appendLedger(entries.back());
        }
        EXPECT_TRUE(store->flush());
        persistence->restoreLedger();
        return entries;
    }

    // Books one charge through admission and settle, as a finished request does.
    void bookCharge(const QString &key, const QString &requestId, billing::Nanos amount)
    {
        billing::Ledger &ledger = gateway->state().ledger;
        const auto admitted = ledger.tryAdmit(key, std::nullopt, 1);
        ASSERT_TRUE(std::holds_alternative<billing::ReservationId>(admitted));
        billing::LedgerEntry charge;
        charge.requestId = requestId;
        charge.modelId = QStringLiteral("chat-a");
        charge.channelId = QStringLiteral("alpha");
        charge.promptTokens = 4;
        charge.completionTokens = 2;
        charge.amount = amount;
        ASSERT_TRUE(ledger.settle(std::get<billing::ReservationId>(admitted), charge));
    }

    // The usage history's rows of today, by key, as name → row.
    QHash<QString, QJsonObject> usageToday()
    {
        const auto client = admin("GET", "/admin/usage/history?days=1&by=key");
        EXPECT_EQ(client->status(), 200) << client->body().constData();
        QHash<QString, QJsonObject> rows;
        const QJsonArray days = QJsonDocument::fromJson(client->body()).object().value("days").toArray();
        for (const QJsonValue &row : days.last().toObject().value("rows").toArray())
            rows.insert(row.toObject().value("name").toString(), row.toObject());
        return rows;
    }
};

TEST_F(LedgerMemoryTest, LedgerFromTheStartListsEveryStoredEntryInOrder)
{
    startStoredGateway(adminConfig());
    ASSERT_TRUE(store);
    constexpr std::size_t kExtra = 1'234;
    const std::vector<storage::StoredLedgerEntry> stored = storeEarlierRun(kTail + kExtra, 3);
    const billing::Ledger &ledger = gateway->state().ledger;
    ASSERT_EQ(ledger.entries().size(), kTail);
    ASSERT_EQ(ledger.droppedThrough(), kExtra);

    const QJsonArray firstPage = adminList("/admin/ledger?after=0");
    ASSERT_EQ(firstPage.size(), kPage);  // bounded, from the database
    EXPECT_EQ(firstPage.first().toObject().value("sequence").toInteger(), 1);

    const QJsonArray listed = everyPage(kPage);
    ASSERT_EQ(std::size_t(listed.size()), stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) {
        const QJsonObject entry = listed.at(qsizetype(i)).toObject();
        ASSERT_EQ(quint64(entry.value("sequence").toInteger()), stored[i].sequence) << i;
        EXPECT_EQ(parseNanos(entry.value("amount").toString()), stored[i].amountNanos) << i;
        EXPECT_EQ(entry.value("request_id").toString(), stored[i].requestId) << i;
        EXPECT_EQ(entry.value("note").toString(), stored[i].note) << i;
    }
    // Pages of another size, across the line between the database and memory: the same list.
    EXPECT_EQ(everyPage(777), listed);
    EXPECT_EQ(adminList("/admin/ledger?after=" + QByteArray::number(kExtra - 2) + "&limit=5"),
              (QJsonArray{listed.at(kExtra - 2), listed.at(kExtra - 1), listed.at(kExtra), listed.at(kExtra + 1),
                          listed.at(kExtra + 2)}));
}

TEST_F(LedgerMemoryTest, AnEntryThatLeftMemoryIsListedFromTheDatabaseAsItWasFromMemory)
{
    startStoredGateway(adminConfig());
    ASSERT_TRUE(store);
    billing::Ledger &ledger = gateway->state().ledger;
    bookCharge(QStringLiteral("ide"), QStringLiteral("req-live"), 123'456);
    ASSERT_TRUE(ledger.topUp(1'000'000'000, QStringLiteral("live top-up")));
    ledger.awaitJournal();
    const QJsonArray fromMemory = adminList("/admin/ledger?after=0");
    ASSERT_EQ(fromMemory.size(), 2);

    for (std::size_t i = 0; i < kTail; ++i) {
        ASSERT_TRUE(ledger.topUp(1, QStringLiteral("filler")));
        if (i % 500 == 0)
            ledger.awaitJournal();  // as many in flight as a busy gateway has, not all of them
    }
    ASSERT_TRUE(sy::test::waitUntil([&] { return ledger.unpublishedCount() == 0; }, 60s));
    ASSERT_EQ(ledger.droppedThrough(), 2u);
    EXPECT_EQ(adminList("/admin/ledger?after=0&limit=2"), fromMemory);
}

TEST_F(LedgerMemoryTest, WithoutADatabaseTheLedgerStartsAtTheOldestEntryHeld)
{
    startGateway(adminConfig());
    billing::Ledger &ledger = gateway->state().ledger;
    for (std::size_t i = 0; i < kTail + 10; ++i)
        ASSERT_TRUE(ledger.topUp(1, QStringLiteral("top-up")));
    ASSERT_EQ(ledger.droppedThrough(), 10u);

    const QJsonArray first = adminList("/admin/ledger?after=0");
    ASSERT_EQ(first.size(), kPage);
    EXPECT_EQ(first.first().toObject().value("sequence").toInteger(), 11);
    EXPECT_EQ(adminList("/admin/ledger?after=3&limit=1").first().toObject().value("sequence").toInteger(), 11);
    EXPECT_EQ(adminList("/admin/ledger?after=" + QByteArray::number(kTail + 9)).size(), 1);
    EXPECT_EQ(adminList("/admin/ledger?limit=0").size(), 1);  // clamped to 1 … 1,000, as /admin/requests
}

TEST_F(LedgerMemoryTest, UsageHistoryWithADatabaseCountsEveryChargeOnce)
{
    startStoredGateway(adminConfig());
    ASSERT_TRUE(store);
    // One day of history, longer than memory: memory and the database both hold the newest.
    const std::vector<storage::StoredLedgerEntry> stored = storeEarlierRun(kTail + 2'000, 1);
    ASSERT_GT(gateway->state().ledger.droppedThrough(), 0u);
    QHash<QString, qint64> requests;
    QHash<QString, qint64> completion;
    QHash<QString, qint64> cost;
    const QDate today = QDateTime::currentDateTimeUtc().date();
    for (const storage::StoredLedgerEntry &e : stored) {
        if (e.kind != QLatin1String(storage::kLedgerCharge) || e.at.date() != today)
            continue;
        ++requests[e.keyName];
        completion[e.keyName] += e.completionTokens;
        cost[e.keyName] += e.amountNanos;
    }
    ASSERT_FALSE(requests.isEmpty());
    const QHash<QString, QJsonObject> rows = usageToday();
    ASSERT_EQ(rows.size(), requests.size());
    for (auto it = requests.cbegin(); it != requests.cend(); ++it) {
        const QJsonObject row = rows.value(it.key());
        EXPECT_EQ(row.value("requests").toInteger(), it.value()) << it.key().toStdString();
        EXPECT_EQ(row.value("completion_tokens").toInteger(), completion.value(it.key()));
        EXPECT_DOUBLE_EQ(row.value("cost").toDouble(), double(cost.value(it.key())) / 1e9);
    }
}

TEST_F(LedgerMemoryTest, UsageHistoryWithoutADatabaseCountsTheChargesThatLeftMemory)
{
    startGateway(adminConfig());
    constexpr std::size_t kCharges = kTail + 1'500;
    for (std::size_t i = 0; i < kCharges; ++i)
        bookCharge(i % 2 ? QStringLiteral("ide") : QStringLiteral("agent"), QStringLiteral("req-%1").arg(i), 1'000);
    ASSERT_EQ(gateway->state().ledger.droppedThrough(), 1'500u);

    const QHash<QString, QJsonObject> rows = usageToday();
    ASSERT_EQ(rows.size(), 2);
    for (const QString &key : {QStringLiteral("ide"), QStringLiteral("agent")}) {
        EXPECT_EQ(rows.value(key).value("requests").toInteger(), qint64(kCharges / 2)) << key.toStdString();
        EXPECT_EQ(rows.value(key).value("prompt_tokens").toInteger(), qint64(4 * kCharges / 2));
        EXPECT_DOUBLE_EQ(rows.value(key).value("cost").toDouble(), double(1'000 * (kCharges / 2)) / 1e9);
    }
}

} // namespace
} // namespace sy::system_test
