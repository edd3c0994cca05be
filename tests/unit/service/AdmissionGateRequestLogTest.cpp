// AdmissionGate and the request log (SPEC §10, every answered request is logged): while the
// store's request-log queue holds its bound, a new request is refused with 503
// database_unavailable and retry-after 1 before the key's limits are asked, and so is a request
// that waited for its key's room, or for the shared limits' answer, when it would be admitted;
// once the queue is written, requests are admitted again at once. The store is a real SqliteStore whose flush timer never fires in the
// test (an hour), so its queue is filled and emptied (flush()) by the test alone.
#include "QtPrinters.h"
#include "limits/RedisKeyLimiter.h"
#include "service/AdmissionGate.h"
#include "storage/SqliteStore.h"
#include "support/FakeClock.h"
#include "support/Waits.h"

#include <QTcpServer>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <optional>
#include <variant>

namespace sy::service {
namespace {

using namespace std::chrono_literals;
using Result = std::variant<AdmissionTicket, ErrorReply>;

constexpr int kBound = 2;

class AdmissionGateRequestLogTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        storage::SqliteStoreOptions options;
        options.flushInterval = 1h;
        options.batchSize = 1'000'000;
        options.maxQueuedRequests = kBound;
        auto opened = storage::SqliteStore::open(m_dir.filePath(QStringLiteral("switchyard.db")), options);
        ASSERT_TRUE(std::holds_alternative<std::unique_ptr<storage::SqliteStore>>(opened));
        store = std::move(std::get<std::unique_ptr<storage::SqliteStore>>(opened));
        ASSERT_TRUE(store->flush());  // the open's own first tick has nothing left to do
        gate.setRequestLogStore(store.get());
    }
    void TearDown() override { gate.setRequestLogStore(nullptr); }

    void fillTheLog()
    {
        for (int i = 0; i < kBound; ++i) {
            const QByteArray id = "req_" + QByteArray::number(++m_rows);
            store->appendRequest(storage::StoredRequest{id, QDateTime::currentDateTimeUtc(), QStringLiteral("k1"),
                                                        QStringLiteral("acme/chat-a"), 200, false, "{}"});
        }
        ASSERT_TRUE(store->requestLogFull());
    }
    static AdmissionRequest requestFor(quint64 token, int maxConcurrent = 0)
    {
        AdmissionRequest request;
        request.token = token;
        request.key.name = QStringLiteral("k1");
        request.key.maxConcurrent = maxConcurrent;
        request.primaryModel = QStringLiteral("acme/chat-a");
        request.keyWait = 2000ms;
        return request;
    }
    void admit(AdmissionRequest request, std::optional<Result> &slot)
    {
        gate.admit(std::move(request), [&slot](Result result) { slot = std::move(result); });
    }
    static void expectRefusedForTheLog(const std::optional<Result> &result)
    {
        ASSERT_TRUE(result.has_value());
        ASSERT_TRUE(std::holds_alternative<ErrorReply>(*result));
        const ErrorReply &reply = std::get<ErrorReply>(*result);
        EXPECT_EQ(reply.status, 503);
        EXPECT_EQ(reply.code, QByteArray("database_unavailable"));
        EXPECT_EQ(reply.retryAfterS, 1);
        EXPECT_TRUE(reply.message.contains(QStringLiteral("(%1 request-log rows wait to be written)").arg(kBound)))
            << reply.message.toStdString();
        EXPECT_FALSE(countsAgainstKey(reply));
    }

    QTemporaryDir m_dir;
    std::unique_ptr<storage::SqliteStore> store;
    test::FakeClock clock;
    GatewayState state{clock, 1, std::nullopt};
    std::unique_ptr<limits::RedisKeyLimiter> shared;  // outlives the gate
    AdmissionGate gate{state, clock};

private:
    int m_rows = 0;
};

TEST_F(AdmissionGateRequestLogTest, AFullLogRefusesNewRequestsUntilItIsWritten)
{
    std::optional<Result> before;
    admit(requestFor(1), before);
    ASSERT_TRUE(before.has_value());
    EXPECT_TRUE(std::holds_alternative<AdmissionTicket>(*before));

    fillTheLog();
    std::optional<Result> refused;
    admit(requestFor(2), refused);
    expectRefusedForTheLog(refused);
    EXPECT_EQ(state.refusals.value("request_log_full"), 1u);
    EXPECT_EQ(gate.waiting(), 0);

    ASSERT_TRUE(store->flush());
    std::optional<Result> after;
    admit(requestFor(3), after);
    ASSERT_TRUE(after.has_value());
    EXPECT_TRUE(std::holds_alternative<AdmissionTicket>(*after));
    EXPECT_EQ(state.refusals.value("request_log_full"), 1u);
}

TEST_F(AdmissionGateRequestLogTest, ARequestWaitingForItsKeyIsRefusedIfTheLogFilledMeanwhile)
{
    std::optional<Result> first;
    admit(requestFor(1, /*maxConcurrent=*/1), first);
    ASSERT_TRUE(first.has_value());
    ASSERT_TRUE(std::holds_alternative<AdmissionTicket>(*first));
    std::optional<Result> second;
    admit(requestFor(2, /*maxConcurrent=*/1), second);
    EXPECT_FALSE(second.has_value());
    EXPECT_EQ(gate.waiting(), 1);

    fillTheLog();
    std::get<AdmissionTicket>(*first).permit.release();  // room for the waiter: it tries again
    ASSERT_TRUE(test::waitUntil([&] { return second.has_value(); }, 2s));
    expectRefusedForTheLog(second);
    EXPECT_EQ(gate.waiting(), 0);
    EXPECT_EQ(state.refusals.value("request_log_full"), 1u);
    EXPECT_EQ(state.refusals.value("key_rate_limited"), 0u);
}

TEST_F(AdmissionGateRequestLogTest, ARequestWhoseSharedLimitsAnswerCameAfterTheLogFilledIsRefused)
{
    // Shared limits whose Redis is away, `local`: the answer (this instance's own permit) comes
    // from the event loop, after admit() returned.
    limits::RedisKeyLimiter::Options options;
    options.endpoint.host = QStringLiteral("127.0.0.1");
    {
        QTcpServer probe;
        ASSERT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
        options.endpoint.port = probe.serverPort();  // closed again when the probe goes
    }
    options.instanceId = "test";
    options.failClosed = false;
    shared = std::make_unique<limits::RedisKeyLimiter>(std::move(options), state.keyLimiter);
    gate.setSharedLimits(shared.get());

    AdmissionRequest request = requestFor(1, /*maxConcurrent=*/1);
    std::optional<Result> result;
    admit(std::move(request), result);
    ASSERT_FALSE(result.has_value()) << "the shared limits answered inside admit()";
    fillTheLog();
    ASSERT_TRUE(test::waitUntil([&] { return result.has_value(); }, 5s));
    expectRefusedForTheLog(result);
    EXPECT_EQ(state.refusals.value("request_log_full"), 1u);
    EXPECT_EQ(gate.waiting(), 0);
    EXPECT_EQ(state.keyLimiter.inFlight(QStringLiteral("k1")), 0) << "the refused request kept its slot";
    gate.setSharedLimits(nullptr);
}

} // namespace
} // namespace sy::service
