// Message-content logging (settings.log_message_content): off by default, and then no prompt
// text reaches the database file or any admin answer; on (in the configuration or through
// PATCH /admin/settings), the request's messages and the answer's text — a stream's assembled
// from its deltas — are stored and shown by GET /admin/requests/{id}, capped and marked when cut,
// and never with the key or the upstream credential.
#include "StoredAdminFixture.h"

#include "service/RequestLog.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

constexpr char kCanaryPhrase[] = "periwinkle-otter-canary-4821";

// The text the client was shown: a plain answer's message, or a stream's deltas joined.
QString answerText(const GatewayClient &client, bool stream)
{
    if (!stream) {
        const QJsonArray choices = QJsonDocument::fromJson(client.body()).object().value("choices").toArray();
        return choices.at(0).toObject().value("message").toObject().value("content").toString();
    }
    QString text;
    for (const QByteArray &line : client.body().split('\n')) {
        if (!line.startsWith("data: ") || line == "data: [DONE]")
            continue;
        const QJsonArray choices = QJsonDocument::fromJson(line.mid(6)).object().value("choices").toArray();
        text += choices.at(0).toObject().value("delta").toObject().value("content").toString();
    }
    return text;
}

class ContentLoggingTest : public StoredAdminFixture {
protected:
    static QByteArray canaryBody(bool stream, const QString &text = QString::fromLatin1(kCanaryPhrase))
    {
        const QJsonObject messages{{"messages", QJsonArray{QJsonObject{{"role", "system"}, {"content", "Be brief."}},
                                                           QJsonObject{{"role", "user"}, {"content", text}}}}};
        return stream ? streamBody(integration::kModelA, messages) : chatBody(integration::kModelA, messages);
    }
    // Sends a request with the canary prompt; returns its id.
    QByteArray sendCanary(bool stream, std::unique_ptr<GatewayClient> *answered = nullptr)
    {
        auto client = chat(canaryBody(stream));
        EXPECT_EQ(client->status(), 200) << client->body().constData();
        const QByteArray id = client->header("x-request-id");
        if (answered)
            *answered = std::move(client);
        return id;
    }
    void waitStored(const QByteArray &id)
    {
        EXPECT_TRUE(test::waitUntil([&] { return store->request(id).has_value(); }, 5s)) << id.constData();
    }
};

TEST_F(ContentLoggingTest, OffByDefaultNothingIsStoredOrShown)
{
    startStoredGateway(adminConfig());
    EXPECT_FALSE(adminObject("/admin/settings").value("log_message_content").toBool(true));
    const QByteArray plain = sendCanary(false);
    const QByteArray streamed = sendCanary(true);
    waitStored(plain);
    waitStored(streamed);

    for (const QByteArray &id : {plain, streamed}) {
        const auto detail = admin("GET", "/admin/requests/" + id);
        ASSERT_EQ(detail->status(), 200) << detail->body().constData();
        EXPECT_FALSE(detail->body().contains(kCanaryPhrase)) << detail->body().constData();
        EXPECT_FALSE(detail->json().contains("content")) << detail->body().constData();
        EXPECT_TRUE(store->request(id)->content.isEmpty());
    }
    EXPECT_FALSE(admin("GET", "/admin/requests?limit=100")->body().contains(kCanaryPhrase));
    const QByteArray file = databaseBytes();
    ASSERT_FALSE(file.isEmpty());
    EXPECT_FALSE(file.contains(kCanaryPhrase)) << "the prompt reached the database file";
}

TEST_F(ContentLoggingTest, OnStoresAndShowsPlainAndStreamedContent)
{
    config::Config config = adminConfig();
    config.settings.logMessageContent = true;
    startStoredGateway(std::move(config));

    for (bool stream : {false, true}) {
        SCOPED_TRACE(stream ? "stream" : "plain");
        std::unique_ptr<GatewayClient> answered;
        const QByteArray id = sendCanary(stream, &answered);
        const QString shown = answerText(*answered, stream);
        ASSERT_FALSE(shown.isEmpty()) << answered->body().constData();
        waitStored(id);

        const QJsonObject detail = adminObject("/admin/requests/" + id);
        const QJsonObject content = detail.value("content").toObject();
        const QJsonArray messages = QJsonDocument::fromJson(content.value("request").toString().toUtf8()).array();
        ASSERT_EQ(messages.size(), 2) << content.value("request").toString().toStdString();
        EXPECT_EQ(messages.at(1).toObject().value("content").toString(), kCanaryPhrase);
        EXPECT_FALSE(content.value("request_truncated").toBool(true));
        EXPECT_EQ(content.value("response").toString(), shown);
        EXPECT_FALSE(content.value("response_truncated").toBool(true));

        // Persisted: the same from the database (as after a restart), never in listings.
        const auto stored = service::RequestContent::fromJsonBytes(store->request(id)->content);
        ASSERT_TRUE(stored);
        EXPECT_EQ(stored->toJson(), content);
        const QByteArray listing = admin("GET", "/admin/requests?limit=100")->body();
        EXPECT_FALSE(listing.contains(kCanaryPhrase));
        for (const QByteArray &secret : {QByteArray(integration::kSecret), QByteArray("sk-upstream-alpha")})
            EXPECT_FALSE(store->request(id)->content.contains(secret)) << secret.constData();
    }
    EXPECT_TRUE(databaseBytes().contains(kCanaryPhrase));
}

TEST_F(ContentLoggingTest, TurnedOnThroughTheAdminApiAppliesToLaterRequests)
{
    startStoredGateway(adminConfig());
    const QByteArray before = sendCanary(false);
    const auto on = admin("PATCH", "/admin/settings", QJsonObject{{"log_message_content", true}});
    ASSERT_EQ(on->status(), 200) << on->body().constData();
    EXPECT_TRUE(on->json().value("log_message_content").toBool());
    const QByteArray after = sendCanary(true);
    waitStored(before);
    waitStored(after);

    EXPECT_FALSE(adminObject("/admin/requests/" + before).contains("content"));
    EXPECT_TRUE(adminObject("/admin/requests/" + after).value("content").toObject().value("request")
                    .toString().contains(kCanaryPhrase));

    ASSERT_EQ(admin("PATCH", "/admin/settings", QJsonObject{{"log_message_content", false}})->status(), 200);
    const QByteArray offAgain = sendCanary(false);
    waitStored(offAgain);
    EXPECT_FALSE(adminObject("/admin/requests/" + offAgain).contains("content"));
    EXPECT_EQ(admin("PATCH", "/admin/settings", QJsonObject{{"log_message_content", "yes"}})->status(), 400);
}

TEST_F(ContentLoggingTest, LongPromptsAreCutAtACharacterAndMarked)
{
    config::Config config = adminConfig();
    config.settings.logMessageContent = true;
    startStoredGateway(std::move(config));
    // 70 000 two-byte characters: 140 000 bytes of UTF-8.
    const auto answered = chat(canaryBody(false, QString(70'000, QChar(0x00E9))));
    ASSERT_EQ(answered->status(), 200) << answered->body().left(300).constData();
    const QByteArray id = answered->header("x-request-id");
    waitStored(id);

    const QJsonObject content = adminObject("/admin/requests/" + id).value("content").toObject();
    EXPECT_TRUE(content.value("request_truncated").toBool());
    const QByteArray request = content.value("request").toString().toUtf8();
    EXPECT_LE(request.size(), service::kMaxContentBytes);
    EXPECT_GE(request.size(), service::kMaxContentBytes - 3);
    EXPECT_FALSE(request.contains("\xEF\xBF\xBD")) << "a character was split";
    EXPECT_FALSE(content.value("response_truncated").toBool(true));
}

// Memory keeps contents for the newest requests only; the detail of an older one reads them from
// the database.
TEST_F(ContentLoggingTest, OlderContentIsServedFromTheDatabase)
{
    startStoredGateway(adminConfig());
    service::RequestLog &log = gateway->requestLog();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (int i = 0; i < 205; ++i) {
        service::RequestRecord record;
        record.id = "mem-" + QByteArray::number(i);
        record.at = now.addMSecs(i);
        record.status = 200;
        service::RequestContent content;
        content.request = "[\"" + record.id + "\"]";
        content.response = "answer " + record.id;
        record.content = std::make_shared<const service::RequestContent>(content);
        log.add(record);
    }
    const std::optional<service::RequestRecord> oldest = log.find("mem-0");
    ASSERT_TRUE(oldest);
    EXPECT_FALSE(oldest->content);
    EXPECT_TRUE(oldest->contentInStoreOnly);
    ASSERT_TRUE(log.find("mem-204")->content);

    waitStored("mem-0");
    EXPECT_EQ(adminObject("/admin/requests/mem-0").value("content").toObject().value("response").toString(),
              "answer mem-0");
    EXPECT_EQ(adminObject("/admin/requests/mem-204").value("content").toObject().value("response").toString(),
              "answer mem-204");
}

} // namespace
} // namespace sy::system_test
