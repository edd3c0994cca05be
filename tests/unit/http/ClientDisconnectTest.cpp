// A client that goes away while its handler still holds the ResponseSink (streaming, async
// upstream calls), and an HttpFront destroyed under a kept sink: QtHttpServer 6.4 deletes the
// socket on disconnect, so every later sink call must be a harmless no-op.
#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QTimer>

namespace sy::http::test {
namespace {

class ClientDisconnectTest : public FrontTest {
protected:
    // Route "/stream": begins a chunked response and writes a chunk every 5 ms from a timer.
    void startStreaming()
    {
        startFront();
        front->route("GET", "/stream", [this](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            kept = sink;
            sink->onClientGone([this] { ++goneCalls; });
            sink->begin(200, {{"Content-Type", "text/event-stream"}});
            ticker = std::make_unique<QTimer>();
            QObject::connect(ticker.get(), &QTimer::timeout, ticker.get(), [this] {
                ++ticks;
                kept->write("data: tick " + QByteArray::number(ticks) + "\n\n");
            });
            ticker->start(5);
        });
    }

    void TearDown() override
    {
        ticker.reset();
        kept.reset();
        FrontTest::TearDown();
    }

    std::shared_ptr<ResponseSink> kept;
    std::unique_ptr<QTimer> ticker;
    int goneCalls = 0;
    int ticks = 0;
};

TEST_F(ClientDisconnectTest, ClientClosingMidStreamRunsOnClientGoneExactlyOnce)
{
    startStreaming();
    {
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", "/stream", port));
        ASSERT_TRUE(client.waitForBytes(1) && sy::test::waitUntil([&] { return client.received().contains("tick 2"); }));
        client.close();
        ASSERT_TRUE(sy::test::waitUntil([this] { return goneCalls > 0; })) << "onClientGone never ran";
    }
    EXPECT_EQ(goneCalls, 1);
    EXPECT_FALSE(kept->isOpen());

    // The timer keeps writing into the gone client; then the handler finishes late.
    const int ticksAtGone = ticks;
    ASSERT_TRUE(sy::test::waitUntil([&] { return ticks >= ticksAtGone + 5; }));
    kept->write("data: late\n\n");
    kept->finish();
    kept->abort();
    kept->respond(200, {}, "late");
    EXPECT_EQ(kept->bytesQueued(), 0);
    sy::test::processEventsFor(50ms);
    EXPECT_EQ(goneCalls, 1);
    EXPECT_FALSE(kept->isOpen());
}

TEST_F(ClientDisconnectTest, ClientResetMidStreamRunsOnClientGoneExactlyOnce)
{
    startStreaming();
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/stream", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return client.received().contains("tick 1"); }));
    client.abort();
    ASSERT_TRUE(sy::test::waitUntil([this] { return goneCalls > 0; }));
    sy::test::processEventsFor(50ms);
    EXPECT_EQ(goneCalls, 1);
    kept->write("data: after reset\n\n");
    kept->finish();
    EXPECT_FALSE(kept->isOpen());
}

TEST_F(ClientDisconnectTest, CallbackRegisteredAfterTheClientLeftStillRunsOnceAndNotInline)
{
    startFront();
    std::shared_ptr<ResponseSink> pending;
    front->route("GET", "/slow", [&pending](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        pending = std::move(sink);
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/slow", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return pending != nullptr; }));
    client.close();
    ASSERT_TRUE(sy::test::waitUntil([&] { return !pending->isOpen(); }));
    sy::test::processEventsFor(20ms);

    int calls = 0;
    pending->onClientGone([&calls] { ++calls; });
    EXPECT_EQ(calls, 0) << "must not run from inside onClientGone()";
    ASSERT_TRUE(sy::test::waitUntil([&] { return calls > 0; }));
    sy::test::processEventsFor(20ms);
    EXPECT_EQ(calls, 1);
}

TEST_F(ClientDisconnectTest, FinishedResponseNeverReportsClientGone)
{
    startFront();
    int goneCalls = 0;
    std::shared_ptr<ResponseSink> keptWhole;
    std::shared_ptr<ResponseSink> keptStream;
    front->route("GET", "/whole", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->onClientGone([&goneCalls] { ++goneCalls; });
        sink->respond(200, {}, "done");
        keptWhole = sink;
    });
    front->route("GET", "/stream", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->onClientGone([&goneCalls] { ++goneCalls; });
        sink->begin(200, {});
        sink->write("one");
        sink->finish();
        keptStream = sink;
    });
    for (const char *path : {"/whole", "/stream"}) {
        SCOPED_TRACE(path);
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", path, port));
        ASSERT_TRUE(client.readResponse());
        client.close();
    }
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(goneCalls, 0);
}

TEST_F(ClientDisconnectTest, DisconnectBeforeAnAsyncHandlerAnswersIsHarmless)
{
    startFront();
    int answered = 0;
    int goneCalls = 0;
    bool openWhenAnswering = true;
    front->route("GET", "/async", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->onClientGone([&goneCalls] { ++goneCalls; });
        QTimer::singleShot(50ms, [&, sink] {
            openWhenAnswering = sink->isOpen();
            sink->respond(200, {}, "late answer");
            sink->begin(200, {});
            sink->write("late chunk");
            sink->finish();
            ++answered;
        });
    });
    {
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", "/async", port));
        client.close();
        ASSERT_TRUE(sy::test::waitUntil([&] { return answered > 0; }));
    }
    EXPECT_FALSE(openWhenAnswering);
    EXPECT_EQ(goneCalls, 1);

    // The front still serves other clients.
    RawHttpClient next(port);
    ASSERT_TRUE(next.connected());
    next.send(buildRequest("GET", "/async", port));
    const auto response = next.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "late answer");
}

TEST_F(ClientDisconnectTest, SinkCallsAfterTheFrontIsDestroyedAreHarmless)
{
    startFront();
    std::shared_ptr<ResponseSink> keptBegun;
    std::shared_ptr<ResponseSink> keptFresh;
    int goneCalls = 0;
    front->route("GET", "/begun", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->onClientGone([&goneCalls] { ++goneCalls; });
        sink->begin(200, {});
        sink->write("first");
        keptBegun = sink;
    });
    front->route("GET", "/fresh", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        keptFresh = sink;
    });
    RawHttpClient a(port);
    RawHttpClient b(port);
    ASSERT_TRUE(a.connected() && b.connected());
    a.send(buildRequest("GET", "/begun", port));
    b.send(buildRequest("GET", "/fresh", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return keptBegun && keptFresh; }));

    destroyFront();

    for (const auto &sink : {keptBegun, keptFresh}) {
        EXPECT_FALSE(sink->isOpen());
        sink->write("after destruction");
        sink->respond(200, {}, "after destruction");
        sink->begin(200, {});
        sink->finish();
        sink->abort();
        sink->onClientGone([] {});
        EXPECT_EQ(sink->bytesQueued(), 0);
    }
    sy::test::processEventsFor(50ms);
    EXPECT_LE(goneCalls, 1);
    EXPECT_TRUE(a.waitForServerClose());
    EXPECT_TRUE(b.waitForServerClose());
    EXPECT_FALSE(b.received().contains("after destruction"));
}

} // namespace
} // namespace sy::http::test
