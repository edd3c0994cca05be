// cancel() at any moment, from anywhere, and destruction with transfers in flight: the handler
// hears nothing afterwards and the upstream sees its connection closed.
#include "UpstreamTestSupport.h"

namespace sy::upstream::test {
namespace {

using CurlUpstreamCancelTest = UpstreamTest;

// Headers and one chunk at once, then a chunk every 30 ms for as long as the connection lives.
QList<Step> endlessStream(const ReceivedRequest &)
{
    QList<Step> steps{Step::write(LoopbackHttpServer::chunkedHead(200)),
                      Step::write(LoopbackHttpServer::chunk("tick\n"))};
    for (int i = 0; i < 200; ++i)
        steps.append(Step::write(LoopbackHttpServer::chunk("tick\n"), 30ms));
    return steps;
}

TEST_F(CurlUpstreamCancelTest, CancelMidStreamStopsHandlerAndClosesConnection)
{
    server.setScript(endlessStream);
    RecordingHandler handler;
    const TransferId id = client.send(get(server.url()), &handler);
    ASSERT_TRUE(sy::test::waitUntil([&] { return handler.chunks.size() >= 2; }));

    client.cancel(id);
    const int callsAtCancel = handler.calls;
    EXPECT_EQ(client.activeTransfers(), 0);
    EXPECT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));
    sy::test::processEventsFor(150ms);  // the server keeps writing meanwhile
    EXPECT_EQ(handler.calls, callsAtCancel);
    EXPECT_FALSE(handler.finished());
    client.cancel(id);  // a second cancel is ignored
}

TEST_F(CurlUpstreamCancelTest, CancelFromInsideOnChunk)
{
    server.setScript(endlessStream);
    RecordingHandler handler;
    TransferId id = 0;
    handler.afterChunk = [&](const QByteArray &) { client.cancel(id); };
    id = client.send(get(server.url()), &handler);

    ASSERT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(handler.chunks.size(), 1);
    EXPECT_EQ(handler.calls, 2);  // headers + the one chunk
    EXPECT_FALSE(handler.finished());
    EXPECT_EQ(client.activeTransfers(), 0);
}

TEST_F(CurlUpstreamCancelTest, CancelFromInsideOnHeaders)
{
    server.setScript(endlessStream);
    RecordingHandler handler;
    TransferId id = 0;
    handler.afterHeaders = [&] { client.cancel(id); };
    id = client.send(get(server.url()), &handler);

    ASSERT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(handler.calls, 1);
    EXPECT_TRUE(handler.chunks.isEmpty());
}

TEST_F(CurlUpstreamCancelTest, CancelOtherTransferFromInsideCallback)
{
    server.setScript(endlessStream);
    RecordingHandler first;
    RecordingHandler second;
    TransferId secondId = 0;
    const TransferId firstId = client.send(get(server.url("/first")), &first);
    secondId = client.send(get(server.url("/second")), &second);
    ASSERT_TRUE(sy::test::waitUntil([&] { return !first.chunks.isEmpty() && !second.chunks.isEmpty(); }));

    // Whichever transfer speaks next cancels the other from inside its own onChunk.
    RecordingHandler *cancelled = nullptr;
    RecordingHandler *survivor = nullptr;
    first.afterChunk = [&](const QByteArray &) {
        if (!cancelled) {
            cancelled = &second;
            survivor = &first;
            client.cancel(secondId);
        }
    };
    second.afterChunk = [&](const QByteArray &) {
        if (!cancelled) {
            cancelled = &first;
            survivor = &second;
            client.cancel(firstId);
        }
    };
    ASSERT_TRUE(sy::test::waitUntil([&] { return cancelled != nullptr; }));
    const int cancelledCalls = cancelled->calls;
    EXPECT_EQ(client.activeTransfers(), 1);
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));

    const qsizetype survivorChunks = survivor->chunks.size();
    ASSERT_TRUE(sy::test::waitUntil([&] { return survivor->chunks.size() > survivorChunks + 2; }));
    EXPECT_EQ(cancelled->calls, cancelledCalls);
    EXPECT_FALSE(cancelled->finished());
    EXPECT_FALSE(survivor->finished());
}

TEST_F(CurlUpstreamCancelTest, CancelRightAfterSendNeverCallsHandler)
{
    RecordingHandler handler;
    client.cancel(client.send(get(server.url()), &handler));
    EXPECT_EQ(client.activeTransfers(), 0);
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(handler.calls, 0);
    client.cancel(123456);  // unknown ids are ignored
}

TEST_F(CurlUpstreamCancelTest, SendFromInsideCallbackStartsLater)
{
    RecordingHandler first;
    RecordingHandler second;
    first.afterHeaders = [&] { client.send(get(server.url("/second")), &second); };
    client.send(get(server.url("/first")), &first);

    ASSERT_TRUE(waitFinished(first));
    ASSERT_TRUE(waitFinished(second));
    EXPECT_TRUE(first.completed);
    EXPECT_TRUE(second.completed);
    EXPECT_EQ(second.body, "ok");
}

TEST_F(CurlUpstreamCancelTest, DestroyingClientWithActiveTransfersCallsNoHandler)
{
    server.setScript([](const ReceivedRequest &request) {
        if (request.target == "/silent")
            return QList<Step>{};
        return endlessStream(request);
    });
    auto owned = std::make_unique<CurlUpstreamClient>();
    RecordingHandler streaming;
    RecordingHandler waiting;
    RecordingHandler unstarted;
    owned->send(get(server.url("/stream")), &streaming);
    owned->send(get(server.url("/silent")), &waiting);
    ASSERT_TRUE(sy::test::waitUntil([&] { return !streaming.chunks.isEmpty()
                                                  && server.requests().size() == 2; }));
    owned->send(get(server.url("/never")), &unstarted);
    const int streamingCalls = streaming.calls;

    owned.reset();
    EXPECT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 2; }));
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(streaming.calls, streamingCalls);
    EXPECT_EQ(waiting.calls, 0);
    EXPECT_EQ(unstarted.calls, 0);
}

} // namespace
} // namespace sy::upstream::test
