// HTTP/1.0 clients are answered as HTTP/1.0 (status line, no chunked framing, close unless
// keep-alive was asked for a whole response), and an HTTP/1.1 request without Host gets 400.
#include "RawHttpClient.h"

#include "support/Waits.h"

namespace sy::http::test {
namespace {

class HttpFrontHttp10Test : public FrontTest {
protected:
    void SetUp() override
    {
        startFront();
        front->route("GET", "/whole", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            sink->respond(200, {{"Content-Type", "application/json"}}, "{\"ok\":true}");
        });
        front->route("GET", "/stream", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            sink->begin(200, {{"Content-Type", "text/event-stream"}});
            sink->write("data: one\n\n");
            sink->write("data: [DONE]\n\n");
            sink->finish();
        });
    }

    QByteArray request10(QByteArrayView path, QByteArrayView extraHeaders = {}) const
    {
        return "GET " + path.toByteArray() + " HTTP/1.0\r\nHost: 127.0.0.1:" + QByteArray::number(port)
            + "\r\n" + extraHeaders.toByteArray() + "\r\n";
    }
};

TEST_F(HttpFrontHttp10Test, WholeResponseIsHttp10WithLengthAndThenCloses)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(request10("/whole"));
    ASSERT_TRUE(client.waitForServerClose(5s)) << "an HTTP/1.0 connection closes after the answer";
    EXPECT_TRUE(client.received().startsWith("HTTP/1.0 200 OK\r\n")) << client.received().toStdString();
    const auto response = client.readResponse(1s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("content-length"), "11");
    EXPECT_EQ(response->header("connection").toLower(), "close");
    EXPECT_EQ(response->body, "{\"ok\":true}");
}

TEST_F(HttpFrontHttp10Test, KeepAliveAskedKeepsTheConnectionForWholeResponses)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(request10("/whole", "Connection: keep-alive\r\n"));
    const auto first = client.readResponse(5s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->header("connection").toLower(), "keep-alive");
    sy::test::processEventsFor(50ms);
    EXPECT_FALSE(client.serverClosed());
    client.send(request10("/whole"));
    const auto second = client.readResponse(5s);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->body, "{\"ok\":true}");
    EXPECT_TRUE(client.waitForServerClose(5s));
}

TEST_F(HttpFrontHttp10Test, StreamIsCloseDelimitedWithoutChunkedFraming)
{
    for (const QByteArray &connection : {QByteArray(), QByteArray("Connection: keep-alive\r\n")}) {
        SCOPED_TRACE(connection.toStdString());
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(request10("/stream", connection));
        ASSERT_TRUE(client.waitForServerClose(5s)) << "the close is what ends a 1.0 stream";
        const QByteArray &raw = client.received();
        EXPECT_TRUE(raw.startsWith("HTTP/1.0 200 OK\r\n")) << raw.toStdString();
        EXPECT_FALSE(raw.toLower().contains("transfer-encoding")) << raw.toStdString();
        EXPECT_TRUE(raw.endsWith("\r\n\r\ndata: one\n\ndata: [DONE]\n\n")) << raw.toStdString();
    }
}

TEST_F(HttpFrontHttp10Test, Http11WithoutHostIsRefusedWith400)
{
    int before = int(front->refusals("missing_host"));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send("GET /whole HTTP/1.1\r\nAccept: */*\r\n\r\n");
    const auto response = client.readResponse(5s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 400);
    EXPECT_TRUE(response->body.contains("Host")) << response->body.toStdString();
    EXPECT_EQ(int(front->refusals("missing_host")), before + 1);
}

TEST_F(HttpFrontHttp10Test, Http10WithoutHostIsServed)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send("GET /whole HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(client.waitForServerClose(5s));
    const auto response = client.readResponse(1s);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
}

} // namespace
} // namespace sy::http::test
