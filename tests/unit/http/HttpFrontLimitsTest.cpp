// Header and body limits, enforced by LimitedTcpServer while bytes arrive, and 100 Continue.
#include "RawHttpClient.h"

#include "support/Waits.h"

namespace sy::http::test {
namespace {

class HttpFrontLimitsTest : public FrontTest {
protected:
    void startEcho(FrontOptions options = {})
    {
        startFront(std::move(options));
        front->routePrefix("POST", "/v1/", [this](HttpRequest &&request, std::shared_ptr<ResponseSink> sink) {
            ++calls;
            bodies.append(request.body);
            sink->respond(200, {}, "got " + QByteArray::number(request.body.size()));
        });
        front->routePrefix("GET", "/v1/", [this](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            ++calls;
            sink->respond(200, {}, "get");
        });
    }

    static FrontOptions smallBody(qint64 bytes)
    {
        FrontOptions options;
        options.maxBodyBytes = bytes;
        return options;
    }

    int calls = 0;
    QList<QByteArray> bodies;
};

TEST_F(HttpFrontLimitsTest, OversizeHeaderBlockGets431AndTheConnectionCloses)
{
    startEcho();
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    QByteArray head = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fill: ";
    head += QByteArray(64 * 1024 + 100 - head.size(), 'a');  // no blank line: never complete
    client.send(head);

    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 431);
    EXPECT_EQ(response->header("connection").toLower(), "close");
    EXPECT_TRUE(response->body.contains("65536")) << response->body.toStdString();
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("header_too_large"), 1u);
}

TEST_F(HttpFrontLimitsTest, OversizeBodyIsRefusedBeforeItIsSent)
{
    startEcho();
    QByteArray formattedPath;
    front->setErrorFormatter([&formattedPath](const QByteArray &path, int status, const QString &) {
        formattedPath = path;
        return "limit " + QByteArray::number(status);
    });
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/chat/completions?x=1", port, {{"Content-Length", "20000000"}}));

    const auto response = client.readResponse();  // not a single body byte sent
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 413);
    EXPECT_EQ(response->body, "limit 413");
    EXPECT_EQ(formattedPath, "/v1/chat/completions");
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("body_too_large"), 1u);
}

TEST_F(HttpFrontLimitsTest, BodyOneByteOverConfiguredLimitGets413)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/x", port, {}, QByteArray(1001, 'b')));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 413);
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_EQ(calls, 0);
}

TEST_F(HttpFrontLimitsTest, BodyExactlyAtConfiguredLimitReachesTheHandler)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    const QByteArray body(1000, 'b');
    client.send(buildRequest("POST", "/v1/x", port, {}, body));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "got 1000");
    ASSERT_EQ(bodies.size(), 1);
    EXPECT_EQ(bodies.first(), body);
}

TEST_F(HttpFrontLimitsTest, ChunkedRequestBodyOverLimitGets413)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/x", port, {{"Transfer-Encoding", "chunked"}}));
    client.send("258\r\n" + QByteArray(600, 'c') + "\r\n");  // 600 bytes: within the limit
    client.send("258\r\n");                                   // 1200 announced: over it
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 413);
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("body_too_large"), 1u);
}

TEST_F(HttpFrontLimitsTest, ChunkedRequestBodyWithinLimitIsDecodedForTheHandler)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/x", port, {{"Transfer-Encoding", "chunked"}})
                + chunkedBody({QByteArray(400, 'a'), QByteArray(600, 'b')}));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    ASSERT_EQ(bodies.size(), 1);
    EXPECT_EQ(bodies.first(), QByteArray(400, 'a') + QByteArray(600, 'b'));
}

TEST_F(HttpFrontLimitsTest, ExpectContinueGets100ContinueThenTheFinalResponse)
{
    startEcho();
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/upload", port, {{"Expect", "100-continue"}, {"Content-Length", "5"}}));
    const auto interim = client.readResponse();
    ASSERT_TRUE(interim);
    EXPECT_EQ(interim->status, 100);
    EXPECT_EQ(calls, 0);

    client.send("hello");
    const auto final = client.readResponse();
    ASSERT_TRUE(final);
    EXPECT_EQ(final->status, 200);
    EXPECT_EQ(final->body, "got 5");
    ASSERT_EQ(bodies.size(), 1);
    EXPECT_EQ(bodies.first(), "hello");
    EXPECT_FALSE(client.parser().hasResponse()) << "exactly one 100 Continue";
}

TEST_F(HttpFrontLimitsTest, ExpectContinueWithOversizeBodyGets413Only)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/upload", port, {{"Expect", "100-continue"}, {"Content-Length", "5000"}}));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 413);
}

TEST_F(HttpFrontLimitsTest, SecondPipelinedRequestOverTheLimitIsRefused)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/one", port, {}, QByteArray(900, 'a'))
                + buildRequest("POST", "/v1/two", port, {{"Content-Length", "5000"}}));
    const auto first = client.readResponse();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    const auto second = client.readResponse();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 413);
    EXPECT_EQ(calls, 1);
}

// A keep-alive connection that sends a first request, then (after its answer) a second one
// split across writes: the second must be framed from its own first byte.
TEST_F(HttpFrontLimitsTest, LimitsHoldOnTheSecondRequestOfAKeepAliveConnection)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/one", port, {}, QByteArray(1000, 'a')));
    const auto first = client.readResponse();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);

    const QByteArray second = buildRequest("POST", "/v1/two", port, {}, QByteArray(1001, 'b'));
    client.send(second.left(20));
    sy::test::processEventsFor(20ms);
    client.send(second.mid(20));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 413);
    EXPECT_EQ(calls, 1);
}

// QtHttpServer 6.4 takes the FIRST Content-Length; a later small duplicate must not let a body
// over the limit through to the handler.
TEST_F(HttpFrontLimitsTest, DuplicateContentLengthCannotSmuggleAnOversizeBody)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    QByteArray body;
    while (body.size() < 5000)
        body += QByteArray(400, 'x') + "\r\n\r\n";  // blank lines keep a confused framer "happy"
    body.truncate(5000);
    client.send(buildRequest("POST", "/v1/x", port, {{"Content-Length", "5000"}, {"Content-Length", "1"}}) + body);
    const auto response = client.readResponse(2s);
    ASSERT_TRUE(response);
    EXPECT_NE(response->status, 200);
    for (const QByteArray &received : bodies)
        EXPECT_LE(received.size(), 1000) << "the handler got a body over the limit";
}

// A pipelined request whose header block is split across writes is framed once, not again from
// bytes the framer already saw.
TEST_F(HttpFrontLimitsTest, PipelinedRequestSplitAcrossWritesIsFramedOnce)
{
    startEcho(smallBody(1000));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    const QByteArray second = buildRequest("POST", "/v1/two", port, {}, QByteArray(1000, 'b'));
    client.send(buildRequest("GET", "/v1/one", port) + second.left(30));
    const auto first = client.readResponse();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    client.send(second.mid(30, 40));
    sy::test::processEventsFor(20ms);
    client.send(second.mid(70));
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "got 1000");
}

// QtHttpServer 6.4 also ends a header block at a bare "\n\n". Small bare-LF requests on one
// keep-alive connection must not add up to a 431 (here with a 1 KiB header limit).
TEST_F(HttpFrontLimitsTest, BareLineFeedRequestsOnAKeepAliveConnectionAreNotRefused)
{
    FrontOptions options;
    options.maxHeaderBytes = 1024;
    startEcho(options);
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    const QByteArray request = "GET /v1/models HTTP/1.1\nHost: 127.0.0.1\n\n";
    for (int i = 0; i < 2 * 1024 / request.size(); ++i) {
        client.send(request);
        const auto response = client.readResponse();
        ASSERT_TRUE(response) << "request " << i;
        ASSERT_EQ(response->status, 200) << "request " << i << " after " << i * request.size() << " bytes";
    }
}

} // namespace
} // namespace sy::http::test
