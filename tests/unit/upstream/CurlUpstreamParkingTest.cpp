// Parked sockets (CurlSocketWatcher.h): an idle kept-alive connection stays watched between
// requests, is dropped from the watch when the provider closes it, and before curl closes it.
#include "UpstreamTestSupport.h"

namespace sy::upstream::test {
namespace {

class CurlUpstreamParkingTest : public UpstreamTest {};

TEST_F(CurlUpstreamParkingTest, AnIdleConnectionStaysWatchedForTheNextRequest)
{
    EXPECT_EQ(client.parkedSockets(), 0);
    ASSERT_TRUE(sendOneAfterAnother(client, server, 1, "/first"));
    EXPECT_EQ(client.parkedSockets(), 1);
    ASSERT_TRUE(sendOneAfterAnother(client, server, 1, "/second"));
    EXPECT_EQ(client.parkedSockets(), 1);
    EXPECT_EQ(server.acceptedConnections(), 1);
}

TEST_F(CurlUpstreamParkingTest, AConnectionTheProviderClosesWhileIdleIsDroppedAndTheNextRequestConnectsAgain)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok")), Step::close(50ms)};
    });
    ASSERT_TRUE(sendOneAfterAnother(client, server, 1, "/then-close"));
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 0; }, 5s));
    // The close makes the parked socket readable: it leaves the watch, curl is not told.
    EXPECT_TRUE(sy::test::waitUntil([&] { return client.parkedSockets() == 0; }, 5s))
        << client.parkedSockets() << " sockets still parked";

    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))};
    });
    ASSERT_TRUE(sendOneAfterAnother(client, server, 1, "/again"));
    EXPECT_EQ(server.acceptedConnections(), 2);
    EXPECT_EQ(client.parkedSockets(), 1);
}

TEST_F(CurlUpstreamParkingTest, ConnectionsCurlClosesLeaveTheWatchFirstAndTheirNumbersServeNewOnes)
{
    // Five connections at once, then curl keeps two idle and closes three as later transfers end.
    CurlUpstreamClient limited(CurlClientOptions{.maxIdleConnections = 2});
    constexpr int kConcurrent = 5;
    std::vector<RecordingHandler> handlers(kConcurrent);
    ASSERT_TRUE(sendSideBySide(limited, server, "/side-by-side", 200ms, handlers));
    for (const RecordingHandler &handler : handlers)
        ASSERT_TRUE(handler.completed);
    ASSERT_EQ(server.acceptedConnections(), kConcurrent);

    ASSERT_TRUE(sendOneAfterAnother(limited, server, kConcurrent, "/one-by-one"));
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 2; }, 5s));
    EXPECT_EQ(limited.parkedSockets(), 2);

    // Descriptor numbers curl closed come back for new connections; each must be watched anew.
    std::vector<RecordingHandler> again(kConcurrent);
    ASSERT_TRUE(sendSideBySide(limited, server, "/side-by-side-again", 100ms, again));
    for (const RecordingHandler &handler : again)
        EXPECT_TRUE(handler.completed);
    EXPECT_EQ(server.acceptedConnections(), kConcurrent + 3);
    EXPECT_TRUE(sy::test::waitUntil([&] { return limited.parkedSockets() == server.openConnections(); }, 5s))
        << limited.parkedSockets() << " parked, " << server.openConnections() << " open";
}

} // namespace
} // namespace sy::upstream::test
