// ResponseSink over a real connection: whole responses, hand-framed chunked streams, keep-alive,
// Connection: close and abort().
#include "RawHttpClient.h"
#include "http/HttpConnection.h"

#include "support/Waits.h"

#include <QTimer>

namespace sy::http::test {
namespace {

class ResponseSinkTest : public FrontTest {
protected:
    void SetUp() override
    {
        startFront();
        front->route("GET", "/whole", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            sink->respond(201, {{"Content-Type", "application/json"}, {"X-Extra", "yes"}},
                          R"({"id":"abc","text":"h\u00e9llo"})");
        });
        front->route("GET", "/stream", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            sink->begin(200, {{"Content-Type", "text/event-stream"}});
            EXPECT_TRUE(sink->hasBegun());
            for (const QByteArray &event : streamEvents())
                sink->write(event);
            sink->write({});  // ignored: an empty chunk would end the body
            sink->finish();
            EXPECT_TRUE(sink->isFinished());
            EXPECT_FALSE(sink->isOpen());
        });
    }

    static QList<QByteArray> streamEvents()
    {
        return {"data: {\"delta\":\"Hel\"}\n\n", "data: {\"delta\":\"lo\"}\n\n", QByteArray(5000, 'z'),
                "data: [DONE]\n\n"};
    }
};

TEST_F(ResponseSinkTest, RespondSendsContentLengthAndTheExactBody)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/whole", port));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 201);
    EXPECT_EQ(response->reason, "Created");
    EXPECT_FALSE(response->chunked);
    EXPECT_EQ(response->body, R"({"id":"abc","text":"h\u00e9llo"})");
    EXPECT_EQ(response->header("content-length"), QByteArray::number(response->body.size()));
    EXPECT_EQ(response->header("x-extra"), "yes");
    EXPECT_FALSE(client.parser().midResponse()) << "no bytes after the declared body";
}

TEST_F(ResponseSinkTest, HandlerFramingHeadersAreReplacedByTheSinksOwn)
{
    front->route("GET", "/lying", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->respond(200, {{"Content-Length", "999"}, {"Transfer-Encoding", "chunked"}}, "short");
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/lying", port));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "short");
    EXPECT_EQ(response->header("content-length"), "5");
    EXPECT_FALSE(response->hasHeader("transfer-encoding"));
}

TEST_F(ResponseSinkTest, ChunkedStreamIsFramedChunkByChunkAndTheConnectionStaysUsable)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/stream", port));
    const auto streamed = client.readResponse();
    ASSERT_TRUE(streamed);
    EXPECT_FALSE(client.parser().malformed());
    EXPECT_EQ(streamed->status, 200);
    EXPECT_TRUE(streamed->chunked);
    EXPECT_FALSE(streamed->hasHeader("content-length"));
    EXPECT_EQ(streamed->header("content-type"), "text/event-stream");
    EXPECT_EQ(streamed->chunks, streamEvents());

    client.send(buildRequest("GET", "/whole", port));
    const auto next = client.readResponse();
    ASSERT_TRUE(next) << "keep-alive connection unusable after a chunked response";
    EXPECT_EQ(next->status, 201);
    EXPECT_FALSE(client.serverClosed());
}

TEST_F(ResponseSinkTest, ChunksWrittenFromTimersArriveInOrder)
{
    std::shared_ptr<ResponseSink> kept;
    front->route("GET", "/timed", [&kept](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->begin(200, {});
        kept = sink;
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/timed", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return kept != nullptr; }));
    for (int i = 0; i < 5; ++i) {
        kept->write("event " + QByteArray::number(i));
        ASSERT_TRUE(client.waitForBytes(client.received().size() + 1)) << "chunk " << i << " not flushed";
    }
    kept->finish();
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->chunks, (QList<QByteArray>{"event 0", "event 1", "event 2", "event 3", "event 4"}));
}

TEST_F(ResponseSinkTest, WritesToAReadingClientReachTheKernelAtOnceWithNothingLeftQueued)
{
    // Nothing waits in the socket's buffer after a write the kernel can take: the bytes are sent
    // before the caller returns (no write notifier switched on and off for them). The head and
    // a first chunk leave in one piece; a second write in the same pass is queued to go with it.
    std::shared_ptr<ResponseSink> kept;
    qint64 queuedAfterBegin = -1;
    qint64 queuedAfterWrite = -1;
    front->route("GET", "/now", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->begin(200, {{"Content-Type", "text/event-stream"}}, "data: first\n\n");
        queuedAfterBegin = sink->bytesQueued();
        sink->write("data: second\n\n");
        queuedAfterWrite = sink->bytesQueued();
        kept = sink;
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/now", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return kept != nullptr; }));
    EXPECT_EQ(queuedAfterBegin, 0);
    EXPECT_GT(queuedAfterWrite, 0) << "the second write of a pass waits for the socket's own write";
    ASSERT_TRUE(sy::test::waitUntil([&] { return kept->bytesQueued() == 0; }));
    sy::test::processEventsFor(20ms);  // a later pass
    kept->write("data: third\n\n");
    EXPECT_EQ(kept->bytesQueued(), 0);
    kept->finish();
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->chunks, (QList<QByteArray>{"data: first\n\n", "data: second\n\n", "data: third\n\n"}));
}

TEST_F(ResponseSinkTest, AStreamAnsweredInOnePassNeverWaitsInTheSocketsBuffer)
{
    // The head with the first event goes at once; the later events of the pass are gathered and
    // leave with the end, in one more send: the socket's own buffer (and its write notifier,
    // switched on and off around it) is never used, so it never reports bytes written.
    int socketWrites = -1;
    front->route("GET", "/one-pass", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        const QList<HttpConnection *> connections = front->findChildren<HttpConnection *>();
        ASSERT_EQ(connections.size(), 1);
        socketWrites = 0;
        QObject::connect(static_cast<QTcpSocket *>(connections.front()->parent()), &QIODevice::bytesWritten,
                         [&socketWrites] { ++socketWrites; });
        sink->begin(200, {{"Content-Type", "text/event-stream"}}, "data: first\n\n");
        for (const QByteArray &event : streamEvents())
            sink->write(event);
        EXPECT_GT(sink->bytesQueued(), 0) << "gathered until the end";
        sink->finish();
        EXPECT_EQ(sink->bytesQueued(), 0) << "the end hands everything to the kernel";
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/one-pass", port));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    QList<QByteArray> expected{"data: first\n\n"};
    expected += streamEvents();
    EXPECT_EQ(response->chunks, expected);
    sy::test::processEventsFor(20ms);
    EXPECT_EQ(socketWrites, 0);
}

TEST_F(ResponseSinkTest, ConnectionCloseRequestIsClosedAfterTheResponse)
{
    for (const char *path : {"/whole", "/stream"}) {
        SCOPED_TRACE(path);
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", path, port, {{"Connection", "close"}}));
        const auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status / 100, 2);
        EXPECT_TRUE(client.waitForServerClose());
    }
}

TEST_F(ResponseSinkTest, KeepAliveConnectionIsNotClosedAfterTheResponse)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/whole", port));
    ASSERT_TRUE(client.readResponse());
    EXPECT_FALSE(client.waitForServerClose(200ms));
}

TEST_F(ResponseSinkTest, AbortBeforeBeginClosesWithoutAnyResponse)
{
    bool wasOpen = false;
    bool openAfter = true;
    front->route("GET", "/abort", [&](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        wasOpen = sink->isOpen();
        sink->abort();
        openAfter = sink->isOpen();
        sink->respond(200, {}, "too late");  // ignored after abort
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/abort", port));
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_TRUE(wasOpen);
    EXPECT_FALSE(openAfter);
    EXPECT_TRUE(client.received().isEmpty()) << client.received().toStdString();
}

// The bytes on the wire, not only what a parser makes of them: the status line, the handler's
// headers as given, our framing (the handler's own framing headers dropped), the chunk sizes in hex.
TEST_F(ResponseSinkTest, WireBytesOfAWholeAnswerAndOfAChunkedStream)
{
    front->route("GET", "/framed", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->respond(404, {{"content-length", "1"}, {"X-A", "a b"}, {"Connection", "close"}}, "nothing");
    });
    RawHttpClient whole(port);
    ASSERT_TRUE(whole.connected());
    whole.send(buildRequest("GET", "/framed", port));
    ASSERT_TRUE(whole.readResponse());
    const QByteArray head = whole.received().left(whole.received().indexOf("\r\n\r\n") + 4);
    EXPECT_TRUE(head.startsWith("HTTP/1.1 404 Not Found\r\n")) << head.toStdString();
    EXPECT_TRUE(head.contains("\r\nX-A: a b\r\n")) << head.toStdString();
    EXPECT_TRUE(head.endsWith("\r\nContent-Length: 7\r\n\r\n")) << head.toStdString();
    EXPECT_EQ(head.count("ontent-"), 1) << head.toStdString();
    EXPECT_FALSE(head.contains("onnection")) << head.toStdString();
    EXPECT_TRUE(whole.received().endsWith("\r\n\r\nnothing"));

    RawHttpClient stream(port);
    ASSERT_TRUE(stream.connected());
    stream.send(buildRequest("GET", "/stream", port));
    ASSERT_TRUE(stream.readResponse());
    const QByteArray raw = stream.received();
    EXPECT_TRUE(raw.startsWith("HTTP/1.1 200 OK\r\n")) << raw.left(200).toStdString();
    EXPECT_TRUE(raw.contains("\r\nContent-Type: text/event-stream\r\n")) << raw.left(200).toStdString();
    const QByteArray body = "Transfer-Encoding: chunked\r\n\r\n"
                            "17\r\ndata: {\"delta\":\"Hel\"}\n\n\r\n"
                            "16\r\ndata: {\"delta\":\"lo\"}\n\n\r\n"
                            "1388\r\n" + QByteArray(5000, 'z') + "\r\n"
                            "e\r\ndata: [DONE]\n\n\r\n"
                            "0\r\n\r\n";
    EXPECT_TRUE(raw.endsWith("\r\n" + body)) << raw.left(300).toStdString();
}

TEST_F(ResponseSinkTest, AbortAfterBeginCutsTheBodyShort)
{
    front->route("GET", "/cut", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->begin(200, {{"Content-Type", "text/event-stream"}});
        sink->write("data: partial\n\n");
        sink->abort();
        sink->write("data: never\n\n");
        sink->finish();
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/cut", port));
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_TRUE(client.received().startsWith("HTTP/1.1 200 OK\r\n"));
    EXPECT_TRUE(client.received().contains("data: partial")) << "bytes written before abort() are flushed";
    EXPECT_FALSE(client.received().contains("data: never"));
    EXPECT_FALSE(client.received().endsWith("0\r\n\r\n")) << "no terminating chunk";
    EXPECT_FALSE(client.parser().hasResponse()) << "the client must see an incomplete body";
    EXPECT_TRUE(client.parser().midResponse());
}

TEST_F(ResponseSinkTest, SecondAnswerOnTheSameSinkIsIgnored)
{
    front->route("GET", "/twice", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->respond(200, {}, "first");
        sink->respond(500, {}, "second");
        sink->begin(500, {});
        sink->write("chunk");
        sink->finish();
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/twice", port));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "first");
    sy::test::processEventsFor(50ms);
    EXPECT_FALSE(client.parser().hasResponse());
    EXPECT_FALSE(client.parser().midResponse()) << "stray bytes: " << client.received().toStdString();
}

} // namespace
} // namespace sy::http::test
