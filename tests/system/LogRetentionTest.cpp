// Request log retention through the admin API: settings.log_retention_count and
// log_retention_days are shown and edited by /admin/settings, validated, and an edit changes what
// the database and the in-memory log keep (GET /admin/requests lists both).
#include "StoredAdminFixture.h"

#include <QThread>

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

class LogRetentionTest : public StoredAdminFixture {
protected:
    QString sendChat()
    {
        const auto answered = chat(chatBody(integration::kModelA));
        EXPECT_EQ(answered->status(), 200) << answered->body().constData();
        return QString::fromLatin1(answered->header("x-request-id"));
    }
    int storedCount()
    {
        return int(store->queryRequests({.limit = storage::StoredRequestFilter::kMaxLimit}).size());
    }
};

TEST_F(LogRetentionTest, SettingsShowTheDefaultsAndRejectNegativeBounds)
{
    startStoredGateway(adminConfig());
    const QJsonObject settings = adminObject("/admin/settings");
    EXPECT_EQ(settings.value("log_retention_days").toInt(-1), 30);
    EXPECT_EQ(settings.value("log_retention_count").toInt(-1), 100000);

    const auto refused = admin("PATCH", "/admin/settings", QJsonObject{{"log_retention_count", -1}});
    EXPECT_EQ(refused->status(), 400) << refused->body().constData();
    EXPECT_EQ(refused->json().value("error").toObject().value("param").toString(), "settings.log_retention_count")
        << refused->body().constData();
    const auto fraction = admin("PATCH", "/admin/settings", QJsonObject{{"log_retention_days", 1.5}});
    EXPECT_EQ(fraction->status(), 400) << fraction->body().constData();
    EXPECT_EQ(adminObject("/admin/settings").value("log_retention_count").toInt(), 100000);
}

TEST_F(LogRetentionTest, LoweringTheCountDropsTheOldestEverywhere)
{
    startStoredGateway(adminConfig());
    QStringList ids;
    for (int i = 0; i < 5; ++i) {
        ids.prepend(sendChat());  // newest first, as listed
        // Times are kept to the millisecond: two requests in the same one would tie, and a tie's
        // order is not their arrival order. Each request gets its own millisecond.
        QThread::msleep(2);
    }
    ASSERT_TRUE(test::waitUntil([&] { return storedCount() == 5; }, 5s)) << storedCount();
    EXPECT_EQ(listedIds(), ids);

    const auto edited = admin("PATCH", "/admin/settings", QJsonObject{{"log_retention_count", 2}});
    ASSERT_EQ(edited->status(), 200) << edited->body().constData();
    EXPECT_EQ(edited->json().value("log_retention_count").toInt(), 2);

    EXPECT_TRUE(test::waitUntil([&] { return storedCount() == 2; }, 5s)) << storedCount();
    EXPECT_EQ(listedIds(), ids.mid(0, 2));
    EXPECT_EQ(admin("GET", "/admin/requests/" + ids.last().toLatin1())->status(), 404);
    EXPECT_EQ(admin("GET", "/admin/requests/" + ids.first().toLatin1())->status(), 200);

    // 0 lifts the bound: new requests are kept again beyond two.
    ASSERT_EQ(admin("PATCH", "/admin/settings", QJsonObject{{"log_retention_count", 0}})->status(), 200);
    for (int i = 0; i < 3; ++i)
        sendChat();
    EXPECT_TRUE(test::waitUntil([&] { return storedCount() == 5; }, 5s)) << storedCount();
    EXPECT_EQ(listedIds().size(), 5);
}

TEST_F(LogRetentionTest, LoweringTheAgeDropsOlderRequests)
{
    config::Config config = adminConfig();
    config.settings.logRetentionDays = 0;  // no age bound yet
    startStoredGateway(std::move(config));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // Requests of earlier runs, straight into the database.
    for (int age : {3, 10, 40}) {
        storage::StoredRequest old;
        old.id = "old-" + QByteArray::number(age);
        old.at = now.addDays(-age);
        old.json = "{\"id\":\"" + old.id + "\"}";
        store->appendRequest(old);
    }
    // One in memory too (a long-running gateway): it is persisted like any finished request.
    service::RequestRecord inMemory;
    inMemory.id = "memory-12";
    inMemory.at = now.addDays(-12);
    gateway->requestLog().add(inMemory);
    const QString fresh = sendChat();
    ASSERT_TRUE(test::waitUntil([&] { return storedCount() == 5; }, 5s)) << storedCount();
    EXPECT_EQ(listedIds(), (QStringList{fresh, "memory-12", "old-3", "old-10", "old-40"}));

    ASSERT_EQ(admin("PATCH", "/admin/settings", QJsonObject{{"log_retention_days", 5}})->status(), 200);
    EXPECT_FALSE(gateway->requestLog().find("memory-12")) << "memory kept a request older than the bound";
    EXPECT_TRUE(test::waitUntil([&] { return storedCount() == 2; }, 5s)) << storedCount();
    EXPECT_EQ(listedIds(), (QStringList{fresh, "old-3"}));
}

} // namespace
} // namespace sy::system_test
