// Parked sockets (CurlSocketWatcher.h): an idle kept-alive connection stays watched between
// requests, is dropped from the watch when the provider closes it, and before curl closes it.
#include "UpstreamTestSupport.h"

namespace sy::upstream::test {
namespace {

class CurlUpstreamParkingTest : public UpstreamTest {
protected:
    static bool completes(CurlUpstreamClient &through, QByteArray url)
    {
        RecordingHandler handler;
        through.send(get(std::move(url)), &handler);
        return waitFinished(handler) && handler.completed;
    }
};

TEST_F(CurlUpstreamParkingTest, AnIdleConnectionStaysWatchedForTheNextRequest)
{
    EXPECT_EQ(client.parkedSockets(), 0);
    ASSERT_TRUE(completes(client, server.url("/first")));
    EXPECT_EQ(client.parkedSockets(), 1);
    ASSERT_TRUE(completes(client, server.url("/second")));
    EXPECT_EQ(client.parkedSockets(), 1);
    EXPECT_EQ(server.acceptedConnections(), 1);
}

TEST_F(CurlUpstreamParkingTest, AConnectionTheProviderClosesWhileIdleIsDroppedAndTheNextRequestConnectsAgain)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok")), Step::close(50ms)};
    });
    ASSERT_TRUE(completes(client, server.url("/then-close")));
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 0; }, 5s));
    // The close makes the parked socket readable: it leaves the watch, curl is not told.
    EXPECT_TRUE(sy::test::waitUntil([&] { return client.parkedSockets() == 0; }, 5s))
        << client.parkedSockets() << " sockets still parked";

    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))};
    });
    ASSERT_TRUE(completes(client, server.url("/again")));
    EXPECT_EQ(server.acceptedConnections(), 2);
    EXPECT_EQ(client.parkedSockets(), 1);
}

TEST_F(CurlUpstreamParkingTest, ConnectionsCurlClosesLeaveTheWatchFirstAndTheirNumbersServeNewOnes)
{
    // Five connections at once, then curl keeps two idle and closes three as later transfers end.
    CurlUpstreamClient limited(CurlClientOptions{.maxIdleConnections = 2});
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"), 200ms)};
    });
    constexpr int kConcurrent = 5;
    std::vector<RecordingHandler> handlers(kConcurrent);
    for (RecordingHandler &handler : handlers)
        limited.send(get(server.url("/side-by-side")), &handler);
    ASSERT_TRUE(sy::test::waitUntil([&] {
        return std::all_of(handlers.begin(), handlers.end(), [](const RecordingHandler &h) { return h.completed; });
    }, 10s));
    ASSERT_EQ(server.acceptedConnections(), kConcurrent);

    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))};
    });
    for (int i = 0; i < kConcurrent; ++i)
        ASSERT_TRUE(completes(limited, server.url("/one-by-one")));
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 2; }, 5s));
    EXPECT_EQ(limited.parkedSockets(), 2);

    // Descriptor numbers curl closed come back for new connections; each must be watched anew.
    std::vector<RecordingHandler> again(kConcurrent);
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"), 100ms)};
    });
    for (RecordingHandler &handler : again)
        limited.send(get(server.url("/side-by-side-again")), &handler);
    ASSERT_TRUE(sy::test::waitUntil([&] {
        return std::all_of(again.begin(), again.end(), [](const RecordingHandler &h) { return h.finished(); });
    }, 10s));
    for (const RecordingHandler &handler : again)
        EXPECT_TRUE(handler.completed);
    EXPECT_EQ(server.acceptedConnections(), kConcurrent + 3);
    EXPECT_TRUE(sy::test::waitUntil([&] { return limited.parkedSockets() == server.openConnections(); }, 5s))
        << limited.parkedSockets() << " parked, " << server.openConnections() << " open";
}

} // namespace
} // namespace sy::upstream::test
