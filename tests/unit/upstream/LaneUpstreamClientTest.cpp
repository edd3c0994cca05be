// LaneUpstreamClient: streamed requests on a client whose sockets are in the background lane of
// the thread's EpollEventDispatcher (the test main installs it), the others on a client of the
// foreground, and ids that tell the two apart.
#include "UpstreamTestSupport.h"
#include "core/EpollEventDispatcher.h"
#include "upstream/LaneUpstreamClient.h"

#include <QAbstractEventDispatcher>

namespace sy::upstream::test {
namespace {

class LaneUpstreamClientTest : public UpstreamTest {
protected:
    void SetUp() override
    {
        ASSERT_NE(dispatcher(), nullptr) << "the test main must install sy::EpollEventDispatcher";
        // Held streams on /stream (a chunk, then silence), held requests on /hold, the rest "ok".
        server.setScript([](const ReceivedRequest &request) {
            if (request.target == "/stream")
                return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200) + LoopbackHttpServer::chunk("data: 1\n\n"))};
            if (request.target == "/hold")
                return QList<Step>{};
            if (request.target == "/whole-stream")
                return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200) + LoopbackHttpServer::chunk("data: 1\n\n")
                                               + LoopbackHttpServer::lastChunk())};
            if (request.target == "/whole-stream-then-close")
                return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200) + LoopbackHttpServer::chunk("data: 1\n\n")
                                               + LoopbackHttpServer::lastChunk()),
                                   Step::close(50ms)};
            return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))};
        });
    }

    static EpollEventDispatcher *dispatcher()
    {
        return qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
    }

    UpstreamRequest streamed(QByteArrayView path) const
    {
        UpstreamRequest request = get(server.url(path));
        request.streamed = true;
        return request;
    }

    LaneUpstreamClient lanes;
};

TEST_F(LaneUpstreamClientTest, StreamsGoToTheBackgroundLaneAndShortRequestsDoNot)
{
    const int before = dispatcher()->backgroundDescriptors();
    RecordingHandler stream;
    const TransferId streamId = lanes.send(streamed("/stream"), &stream);
    ASSERT_TRUE(sy::test::waitUntil([&] { return !stream.body.isEmpty(); }));
    EXPECT_EQ(dispatcher()->backgroundDescriptors(), before + 1) << "the stream's connection";

    RecordingHandler shortOne;
    const TransferId shortId = lanes.send(get(server.url("/short")), &shortOne);
    ASSERT_TRUE(waitFinished(shortOne));
    EXPECT_TRUE(shortOne.completed);
    EXPECT_EQ(shortOne.body, "ok");
    EXPECT_NE(shortId, streamId);
    EXPECT_EQ(server.acceptedConnections(), 2) << "the lanes share no connection";
    EXPECT_EQ(dispatcher()->backgroundDescriptors(), before + 1) << "the short request's connection is foreground";
    EXPECT_EQ(lanes.activeTransfers(), 1);

    lanes.cancel(streamId);
    EXPECT_EQ(lanes.activeTransfers(), 0);
    EXPECT_TRUE(sy::test::waitUntil([&] { return dispatcher()->backgroundDescriptors() == before; }))
        << "the cancelled stream's connection closed and left the lane";
    sy::test::processEventsFor(50ms);
    EXPECT_FALSE(stream.finished()) << "no callback after cancel()";
}

TEST_F(LaneUpstreamClientTest, AnEndedStreamsConnectionWaitsForTheNextInTheBackgroundLane)
{
    // Parked (CurlSocketWatcher.h) where it was: moving it to the foreground set and back would
    // cost the epoll_ctl calls parking saves.
    const int before = dispatcher()->backgroundDescriptors();
    for (const char *path : {"/whole-stream", "/whole-stream"}) {
        RecordingHandler stream;
        lanes.send(streamed(path), &stream);
        ASSERT_TRUE(waitFinished(stream));
        ASSERT_TRUE(stream.completed);
        EXPECT_EQ(dispatcher()->backgroundDescriptors(), before + 1) << "the idle connection, still in the lane";
    }
    EXPECT_EQ(server.acceptedConnections(), 1);

    // Closed by the provider while idle: it leaves the watch and the lane.
    RecordingHandler last;
    lanes.send(streamed("/whole-stream-then-close"), &last);
    ASSERT_TRUE(waitFinished(last));
    EXPECT_TRUE(sy::test::waitUntil([&] { return dispatcher()->backgroundDescriptors() == before; }))
        << dispatcher()->backgroundDescriptors() - before << " descriptors left in the lane";
}

TEST_F(LaneUpstreamClientTest, EachIdReachesItsOwnLane)
{
    // Both lanes number their transfers from 1: the lane bit keeps the two first ids apart.
    RecordingHandler stream, held;
    const TransferId streamId = lanes.send(streamed("/stream"), &stream);
    const TransferId heldId = lanes.send(get(server.url("/hold")), &held);
    ASSERT_TRUE(sy::test::waitUntil([&] { return !stream.body.isEmpty() && server.requests().size() == 2; }));
    EXPECT_NE(streamId, heldId);

    lanes.cancel(heldId);
    EXPECT_EQ(lanes.activeTransfers(), 1) << "the stream is still running";
    int streamConnection = -1;
    for (const ReceivedRequest &request : server.requests()) {
        if (request.target == "/stream")
            streamConnection = request.connection;
    }
    ASSERT_TRUE(server.write(streamConnection, LoopbackHttpServer::chunk("data: 2\n\n") + LoopbackHttpServer::lastChunk()));
    ASSERT_TRUE(waitFinished(stream));
    EXPECT_TRUE(stream.completed);
    EXPECT_EQ(stream.body, "data: 1\n\ndata: 2\n\n");
    EXPECT_FALSE(held.finished());
}

TEST_F(LaneUpstreamClientTest, PauseAndResumeReachTheStreamsLane)
{
    RecordingHandler stream;
    const TransferId streamId = lanes.send(streamed("/stream"), &stream);
    ASSERT_TRUE(sy::test::waitUntil([&] { return !stream.body.isEmpty(); }));
    lanes.pause(streamId);
    ASSERT_TRUE(server.write(0, LoopbackHttpServer::chunk("data: 2\n\n") + LoopbackHttpServer::lastChunk()));
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(stream.body, "data: 1\n\n") << "paused: nothing more delivered";
    lanes.resume(streamId);
    ASSERT_TRUE(waitFinished(stream));
    EXPECT_EQ(stream.body, "data: 1\n\ndata: 2\n\n");
}

} // namespace
} // namespace sy::upstream::test
