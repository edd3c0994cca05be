// The admin API's runtime routes (docs/admin-api.md): keys with their one-time secret, the
// breaker reset, balance and top-ups, failure-lab outages, the request log with its filters and
// traces, the ledger, and the live event stream. Each is checked by its effect on real requests.
#include "AdminFixture.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;
using integration::kModelA;
using integration::kModelB;

class AdminRuntimeApiTest : public AdminFixture {};

TEST_F(AdminRuntimeApiTest, CreatedKeySecretIsShownOnceAndWorksAtOnce)
{
    startGateway(adminConfig());
    const auto created = admin("POST", "/admin/keys", QJsonObject{{"name", "ide"}, {"rpm", 60}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    const QByteArray secret = created->json().value("secret").toString().toLatin1();
    ASSERT_TRUE(secret.startsWith("sk-sy-")) << created->body().constData();
    EXPECT_FALSE(created->json().contains("secret_sha256"));

    const auto answered = chatAs(secret, chatBody(kModelA));
    ASSERT_EQ(answered->status(), 200) << answered->body().constData();
    EXPECT_EQ(adminList("/admin/requests?key=ide").size(), 1);

    const auto listed = admin("GET", "/admin/keys");
    ASSERT_EQ(listed->status(), 200);
    EXPECT_EQ(jsonArray(listed->body()).size(), 3);
    const QByteArray secretHash = QCryptographicHash::hash(secret, QCryptographicHash::Sha256).toHex();
    for (const QByteArray &body : {listed->body(), admin("GET", "/admin/keys/ide")->body()}) {
        EXPECT_FALSE(body.contains(secret));
        EXPECT_FALSE(body.contains(secretHash));
        EXPECT_FALSE(body.contains("\"secret"));
    }
    EXPECT_EQ(admin("POST", "/admin/keys", QJsonObject{{"name", "ide"}})->status(), 409);
    EXPECT_EQ(admin("POST", "/admin/keys", QJsonObject{{"name", "mine"}, {"secret", "sk-chosen"}})->status(), 400);
}

TEST_F(AdminRuntimeApiTest, DisabledKeyGets401UntilReEnabledAndBreakerResets)
{
    startGateway(adminConfig());
    const auto disabled = admin("PUT", "/admin/keys/restricted", QJsonObject{{"enabled", false}});
    ASSERT_EQ(disabled->status(), 200) << disabled->body().constData();
    const auto refused = chatAs(integration::kRestrictedSecret, chatBody(kModelA));
    EXPECT_EQ(refused->status(), 401) << refused->body().constData();
    EXPECT_EQ(hits("alpha"), 0);
    EXPECT_EQ(chat(chatBody(kModelA))->status(), 200);  // the other key is untouched

    ASSERT_EQ(admin("PATCH", "/admin/keys/restricted", QJsonObject{{"enabled", true}})->status(), 200);
    EXPECT_EQ(chatAs(integration::kRestrictedSecret, chatBody(kModelA))->status(), 200);

    const auto reset = admin("POST", "/admin/keys/restricted/reset-breaker");
    ASSERT_EQ(reset->status(), 200) << reset->body().constData();
    EXPECT_EQ(reset->json().value("breaker").toString(), "closed");
    EXPECT_EQ(adminObject("/admin/keys/restricted").value("breaker").toString(), "closed");
    EXPECT_EQ(admin("GET", "/admin/keys/restricted/reset-breaker")->status(), 405);
}

TEST_F(AdminRuntimeApiTest, TopUpRaisesTheBalanceAndLetsA402dKeyThrough)
{
    config::Config config = adminConfig();
    config.balance = 0;
    startGateway(std::move(config));
    EXPECT_EQ(chat(chatBody(kModelA))->status(), 402);
    EXPECT_EQ(parseNanos(adminObject("/admin/balance").value("balance").toString()), 0);

    EXPECT_EQ(admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", -1}})->status(), 400);
    const auto topUp = admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", 1}, {"note", "system test"}});
    ASSERT_EQ(topUp->status(), 200) << topUp->body().constData();
    EXPECT_EQ(parseNanos(topUp->json().value("balance").toString()), 1'000'000'000);

    const auto answered = chat(chatBody(kModelA));
    ASSERT_EQ(answered->status(), 200) << answered->body().constData();
    const QJsonArray ledger = adminList("/admin/ledger");
    ASSERT_EQ(ledger.size(), 2);
    EXPECT_EQ(ledger.at(0).toObject().value("kind").toString(), "topup");
    EXPECT_EQ(ledger.at(0).toObject().value("note").toString(), "system test");
    const QJsonObject charge = ledger.at(1).toObject();
    EXPECT_EQ(charge.value("kind").toString(), "charge");
    EXPECT_EQ(charge.value("request_id").toString().toLatin1(), answered->header("x-request-id"));
    EXPECT_EQ(parseNanos(adminObject("/admin/balance").value("balance").toString()),
              1'000'000'000 - parseNanos(charge.value("amount").toString()));
}

TEST_F(AdminRuntimeApiTest, OutageOnTheFirstChannelRoutesToTheOtherUntilDeleted)
{
    startGateway(adminConfig());
    const auto badKind = admin("POST", "/admin/outages", QJsonObject{{"channel", "alpha"}, {"kind", "meltdown"}});
    ASSERT_EQ(badKind->status(), 400);
    EXPECT_EQ(badKind->json().value("error").toObject().value("param").toString(), "kind");
    const auto created = admin("POST", "/admin/outages", QJsonObject{{"channel", "alpha"}, {"kind", "error:503"}, {"duration_s", 30}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    const QJsonArray active = adminList("/admin/outages");
    ASSERT_EQ(active.size(), 1);
    EXPECT_EQ(active.first().toObject().value("channel").toString(), "alpha");

    const auto failedOver = chat(chatBody(kModelA));
    ASSERT_EQ(failedOver->status(), 200) << failedOver->body().constData();
    const QJsonArray trace = attempts(*failedOver);
    EXPECT_EQ(attemptProviders(trace).first(), "alpha");
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("503"));
    EXPECT_EQ(attemptProviders(trace).last(), "beta");
    EXPECT_EQ(attemptStatuses(trace).last(), "ok");
    EXPECT_EQ(hits("alpha"), 0);

    const QByteArray id = QByteArray::number(created->json().value("id").toInteger());
    EXPECT_EQ(admin("DELETE", "/admin/outages/" + id)->status(), 200);
    EXPECT_EQ(admin("DELETE", "/admin/outages/" + id)->status(), 404);
    EXPECT_TRUE(adminList("/admin/outages").isEmpty());
    const auto healthy = chat(chatBody(kModelA));
    EXPECT_EQ(healthy->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(hits("alpha"), 1);
}

TEST_F(AdminRuntimeApiTest, RequestLogFiltersAndShowsOneRequestsTrace)
{
    startGateway(adminConfig());
    addRule(R"({"provider":"alpha","failure":"status:503"})");
    const auto failedOver = chat(chatBody(kModelA));
    ASSERT_EQ(failedOver->status(), 200);
    ASSERT_EQ(chat(chatBody(kModelB))->status(), 200);
    ASSERT_EQ(chatAs(integration::kRestrictedSecret, chatBody(kModelB))->status(), 403);
    const auto last = chatAs(integration::kRestrictedSecret, chatBody(kModelA));
    ASSERT_EQ(last->status(), 200);

    EXPECT_EQ(adminList("/admin/requests").size(), 4);
    EXPECT_EQ(adminList("/admin/requests?key=restricted").size(), 2);
    EXPECT_EQ(adminList("/admin/requests?model=acme/chat-b").size(), 2);
    EXPECT_EQ(adminList("/admin/requests?status=403").size(), 1);
    EXPECT_EQ(adminList("/admin/requests?failed=1").size(), 1);
    EXPECT_EQ(adminList("/admin/requests?failed_over=1").size(), 2);
    const QJsonArray newest = adminList("/admin/requests?limit=1");
    ASSERT_EQ(newest.size(), 1);
    EXPECT_EQ(newest.first().toObject().value("id").toString().toLatin1(), last->header("x-request-id"));
    EXPECT_EQ(admin("GET", "/admin/requests?status=abc")->status(), 400);

    const QJsonObject record = adminObject("/admin/requests/" + failedOver->header("x-request-id"));
    EXPECT_EQ(record.value("status").toInt(), 200);
    EXPECT_TRUE(record.value("failed_over").toBool());
    EXPECT_EQ(record.value("route").toObject().value("attempts").toArray(), attempts(*failedOver));
    EXPECT_EQ(admin("GET", "/admin/requests/no-such-request")->status(), 404);
}

TEST_F(AdminRuntimeApiTest, LedgerAfterSequenceListsOnlyLaterEntries)
{
    startGateway(adminConfig());
    QList<QByteArray> ids;
    for (int i = 0; i < 3; ++i) {
        const auto answered = chat(chatBody(kModelA));
        ASSERT_EQ(answered->status(), 200);
        ids << answered->header("x-request-id");
    }
    const QJsonArray all = adminList("/admin/ledger");
    ASSERT_EQ(all.size(), 3);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(all.at(i).toObject().value("request_id").toString().toLatin1(), ids.at(i));
    const QByteArray first = QByteArray::number(all.at(0).toObject().value("sequence").toInteger());
    const QJsonArray later = adminList("/admin/ledger?after=" + first);
    ASSERT_EQ(later.size(), 2);
    EXPECT_EQ(later.first().toObject().value("request_id").toString().toLatin1(), ids.at(1));
}

TEST_F(AdminRuntimeApiTest, EventStreamDeliversARequestMadeAfterSubscribing)
{
    startGateway(adminConfig());
    auto events = send("GET", "/admin/events", {}, {{"Authorization", QByteArray("Bearer ") + kAdminToken}});
    ASSERT_TRUE(events->waitForHeaders());
    ASSERT_EQ(events->status(), 200);
    EXPECT_TRUE(events->header("content-type").startsWith("text/event-stream"));

    const auto answered = chat(chatBody(kModelB));
    ASSERT_EQ(answered->status(), 200);
    ASSERT_TRUE(events->waitForEvents(1, 3s)) << events->body().constData();
    EXPECT_TRUE(events->body().contains("event: request\n"));
    const QJsonObject record = QJsonDocument::fromJson(events->sseData().first()).object();
    EXPECT_EQ(record.value("id").toString().toLatin1(), answered->header("x-request-id"));
    EXPECT_EQ(record.value("requested_model").toString(), kModelB);
    EXPECT_EQ(record.value("status").toInt(), 200);
    events->disconnect();
    test::processEventsFor(50ms);
    EXPECT_EQ(chat(chatBody(kModelB))->status(), 200);  // a gone subscriber does no harm
}

} // namespace
} // namespace sy::system_test
