// The storage queue in /metrics (docs/metrics.md): with a database behind the gateway, the
// writes and request-log rows waiting for it and the request-log rows dropped because the queue
// held its bound are exported; without one, none of these series appear.
#include "StoredAdminFixture.h"
#include "support/Waits.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

class StorageMetricsTest : public StoredAdminFixture {
protected:
    QByteArray scrape()
    {
        GatewayClient client(gatewayPort);
        client.send("GET", "/metrics");
        EXPECT_TRUE(client.waitForEnd());
        EXPECT_EQ(client.status(), 200);
        return client.body();
    }
    // The value of the sample `name{instance=…}` (no other label), or -1.
    static double sampleOf(const QByteArray &text, const QByteArray &name)
    {
        for (const QByteArray &line : text.split('\n')) {
            if (line.startsWith(name + "{instance=") && line.contains("} "))
                return line.mid(line.lastIndexOf(' ') + 1).toDouble();
        }
        return -1;
    }
};

TEST_F(StorageMetricsTest, TheQueueAndTheDroppedRowsAreExported)
{
    startStoredGateway(adminConfig());
    const auto answered = chat(chatBody(integration::kModelA));
    ASSERT_EQ(answered->status(), 200) << answered->body().constData();
    ASSERT_TRUE(store->flush());

    const QByteArray text = scrape();
    EXPECT_TRUE(text.contains("# TYPE switchyard_request_log_dropped_total counter\n")) << text.constData();
    EXPECT_TRUE(text.contains("# TYPE switchyard_request_log_queued gauge\n")) << text.constData();
    EXPECT_TRUE(text.contains("# TYPE switchyard_storage_queued_writes gauge\n")) << text.constData();
    EXPECT_EQ(sampleOf(text, "switchyard_request_log_dropped_total"), 0) << text.constData();
    EXPECT_GE(sampleOf(text, "switchyard_request_log_queued"), 0) << text.constData();
    EXPECT_GE(sampleOf(text, "switchyard_storage_queued_writes"), 0) << text.constData();
}

TEST_F(StorageMetricsTest, WithoutADatabaseThereIsNoStorageQueue)
{
    startGateway(adminConfig());
    const QByteArray text = scrape();
    EXPECT_TRUE(text.contains("switchyard_requests_in_flight{")) << text.constData();
    EXPECT_FALSE(text.contains("switchyard_request_log_dropped_total")) << text.constData();
}

} // namespace
} // namespace sy::system_test
