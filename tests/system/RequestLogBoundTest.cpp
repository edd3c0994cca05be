// Every answered request is logged (SPEC §10; docs/gateway.md "What a crash can lose"): while the
// database cannot take the request log (here a second connection holds the write lock on the
// file), the gateway serves until the store's bound of request-log rows wait, then refuses new
// requests with 503 database_unavailable and retry-after in the client's own format, counted under
// switchyard_gateway_refusals_total{reason="request_log_full"}. Once the lock is gone and the
// queue written, it serves again, and every request it answered — refusals included — is in the
// stored log.
#include "DatabaseLock.h"
#include "StoredAdminFixture.h"
#include "support/Waits.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

constexpr int kBound = 5;  // maxQueuedRequests: the soft bound; rows are dropped only past twice it

class RequestLogBoundTest : public StoredAdminFixture {
protected:
    void startHeldBack()
    {
        storage::SqliteStoreOptions options;
        options.flushInterval = 20ms;
        options.retentionInterval = 1h;
        options.busyTimeout = 20ms;  // a commit blocked by the lock fails quickly and is retried
        options.maxQueuedRequests = kBound;
        startStoredGateway(adminConfig(), options);
    }
    // Remembers the request id of an answer, for the check that each one was stored.
    void answered(const GatewayClient &client)
    {
        const QByteArray id = client.header("x-request-id");
        EXPECT_FALSE(id.isEmpty()) << client.body().constData();
        ids << id;
    }
    std::unique_ptr<GatewayClient> messages()
    {
        const QJsonObject body{{"model", integration::kModelA},
                               {"max_tokens", 64},
                               {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hello"}}}}};
        return call("POST", "/v1/messages", QJsonDocument(body).toJson(QJsonDocument::Compact),
                    {{"x-api-key", integration::kSecret}, {"anthropic-version", "2023-06-01"}});
    }
    double refusalsCounted(const QByteArray &reason)
    {
        const auto client = call("GET", "/metrics");
        EXPECT_EQ(client->status(), 200);
        const QByteArray prefix = "switchyard_gateway_refusals_total{";
        for (const QByteArray &line : client->body().split('\n')) {
            if (line.startsWith(prefix) && line.contains("reason=\"" + reason + "\"} "))
                return line.mid(line.lastIndexOf(' ') + 1).toDouble();
        }
        return -1;
    }

    QList<QByteArray> ids;
};

TEST_F(RequestLogBoundTest, AtTheBoundNewRequestsGet503UntilTheLogIsWrittenAndEveryAnsweredOneIsStored)
{
    startHeldBack();
    ASSERT_TRUE(store);
    DatabaseLock lock(databasePath());
    ASSERT_TRUE(lock.lock());

    // Served while fewer than kBound rows wait; each answer's row joins the queue.
    for (int i = 1; i <= kBound; ++i) {
        const auto served = chat(chatBody(integration::kModelA));
        ASSERT_EQ(served->status(), 200) << "request " << i << ": " << served->body().constData();
        answered(*served);
        ASSERT_TRUE(test::waitUntil([&] { return store->stats().pendingRequests >= std::size_t(i); }, 2s));
    }
    ASSERT_EQ(store->requestLogFull(), std::optional<quint64>(kBound));

    const auto openAi = chat(chatBody(integration::kModelA));
    EXPECT_EQ(openAi->status(), 503) << openAi->body().constData();
    EXPECT_EQ(openAi->header("retry-after"), "1");
    const QJsonObject openAiError = openAi->json().value("error").toObject();
    EXPECT_EQ(openAiError.value("code").toString(), "database_unavailable") << openAi->body().constData();
    EXPECT_TRUE(openAiError.value("message").toString().contains("request-log rows wait to be written"))
        << openAi->body().constData();
    answered(*openAi);

    const auto anthropic = messages();
    EXPECT_EQ(anthropic->status(), 503) << anthropic->body().constData();
    EXPECT_EQ(anthropic->header("retry-after"), "1");
    EXPECT_EQ(anthropic->json().value("type").toString(), "error") << anthropic->body().constData();
    EXPECT_EQ(anthropic->json().value("error").toObject().value("type").toString(), "overloaded_error")
        << anthropic->body().constData();
    answered(*anthropic);

    EXPECT_EQ(hitsForModel(QStringLiteral("chat-a-up")), kBound) << "a refused request reached the upstream";
    EXPECT_EQ(refusalsCounted("request_log_full"), 2);

    // The database takes the queue again: served at once, nothing was dropped. (Waiting for the
    // whole queue: while it drains, the store may commit it in more than one batch, and the two
    // requests below must not meet the bound again half way.)
    lock.release();
    ASSERT_TRUE(test::waitUntil([&] { return store->stats().pendingRequests == std::size_t(0); }, 5s));
    EXPECT_FALSE(store->requestLogFull());
    const auto again = chat(chatBody(integration::kModelA));
    EXPECT_EQ(again->status(), 200) << again->body().constData();
    answered(*again);
    const auto againAnthropic = messages();
    EXPECT_EQ(againAnthropic->status(), 200) << againAnthropic->body().constData();
    answered(*againAnthropic);

    ASSERT_TRUE(test::waitUntil([&] { return store->stats().pendingRequests == std::size_t(0) && store->flush(); }, 5s));
    EXPECT_EQ(store->stats().droppedRequests, 0u);
    for (const QByteArray &id : std::as_const(ids)) {
        const auto stored = store->request(id);
        ASSERT_TRUE(stored) << "not in the stored log: " << id.constData();
        EXPECT_EQ(stored->status, id == openAi->header("x-request-id") || id == anthropic->header("x-request-id") ? 503 : 200)
            << id.constData();
    }
}

} // namespace
} // namespace sy::system_test
