// Persistence through the real program: configuration edits, the ledger and the request log
// survive a clean stop (SIGTERM) and a start with the same --config and --database; the stored
// configuration wins over the file after the first start.
#include "AdminFixture.h"
#include "ProcessFixture.h"
#include "support/Waits.h"

#include <QSet>

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

class PersistenceTest : public ProcessFixture {};

TEST_F(PersistenceTest, EditsLedgerAndRequestLogSurviveARestart)
{
    writeConfig(10);
    startGateway();
    EXPECT_FALSE(gateway.standardOutput().contains("configuration from the database"));
    EXPECT_EQ(databaseMode(), 0600);

    QStringList requestIds;
    for (bool stream : {false, true, false}) {
        const auto answered = chat(chatBody(stream));
        ASSERT_EQ(answered->status(), 200) << answered->body().constData();
        requestIds << QString::fromLatin1(answered->header("x-request-id"));
    }
    const auto created = admin("POST", "/admin/keys", QJsonObject{{"name", "ci"}, {"rpm", 100}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    const QByteArray ciSecret = created->json().value("secret").toString().toLatin1();
    const auto edited = admin("PATCH", "/admin/channels/alpha", QJsonObject{{"max_concurrent", 9}});
    ASSERT_EQ(edited->status(), 200) << edited->body().constData();
    const auto byCi = chat(chatBody(), ciSecret);
    ASSERT_EQ(byCi->status(), 200) << byCi->body().constData();
    requestIds << QString::fromLatin1(byCi->header("x-request-id"));
    ASSERT_EQ(admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", 2}, {"note", "before restart"}})->status(), 200);

    const qint64 balanceBefore = parseNanos(adminObject("/admin/balance").value("balance").toString());
    const QJsonArray ledgerBefore = adminList("/admin/ledger");
    ASSERT_EQ(ledgerBefore.size(), 5);
    // The store commits every 200 ms; a second is plenty before the clean stop.
    test::processEventsFor(1s);
    ASSERT_TRUE(gateway.terminate());
    EXPECT_EQ(gateway.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(gateway.exitCode(), 0) << gateway.output().constData();

    startGateway();
    EXPECT_TRUE(gateway.standardOutput().contains("configuration from the database")) << gateway.output().constData();

    // The edits: the stored configuration wins over the unchanged file.
    EXPECT_EQ(adminObject("/admin/channels/alpha").value("max_concurrent").toInt(), 9);
    EXPECT_EQ(adminObject("/admin/keys/ci").value("rpm").toInt(), 100);

    // The money: opening balance + top-ups − charges, each charge exactly once.
    const QJsonArray ledgerAfter = adminList("/admin/ledger");
    EXPECT_EQ(ledgerAfter, ledgerBefore);
    qint64 expected = 10'000'000'000;
    QStringList chargedIds;
    for (const QJsonValue &value : ledgerAfter) {
        const QJsonObject entry = value.toObject();
        const qint64 amount = parseNanos(entry.value("amount").toString());
        if (entry.value("kind").toString() == QLatin1String("charge")) {
            expected -= amount;
            chargedIds << entry.value("request_id").toString();
        } else {
            expected += amount;
        }
    }
    EXPECT_EQ(chargedIds, requestIds);
    EXPECT_EQ(parseNanos(adminObject("/admin/balance").value("balance").toString()), expected);
    EXPECT_EQ(parseNanos(adminObject("/admin/balance").value("balance").toString()), balanceBefore);

    // The request log still lists the earlier requests.
    QSet<QString> listed;
    for (const QJsonValue &record : adminList("/admin/requests?limit=100"))
        listed.insert(record.toObject().value("id").toString());
    for (const QString &id : requestIds)
        EXPECT_TRUE(listed.contains(id)) << "request " << qPrintable(id) << " is missing from GET /admin/requests after the restart";
    const auto detail = admin("GET", "/admin/requests/" + requestIds.first().toLatin1());
    EXPECT_EQ(detail->status(), 200) << detail->body().constData();

    // The new key's secret (stored only as a hash) still opens the gateway, and new charges
    // continue the ledger.
    const auto again = chat(chatBody(), ciSecret);
    ASSERT_EQ(again->status(), 200) << again->body().constData();
    const QJsonArray newest = adminList("/admin/ledger?after=" + QByteArray::number(ledgerAfter.last().toObject().value("sequence").toInteger()));
    ASSERT_EQ(newest.size(), 1);
    EXPECT_EQ(newest.first().toObject().value("request_id").toString().toLatin1(), again->header("x-request-id"));
}

} // namespace
} // namespace sy::system_test
