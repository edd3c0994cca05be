// Requests and responses through CurlUpstreamClient against a scripted loopback server.
#include "UpstreamTestSupport.h"

namespace sy::upstream::test {
namespace {

using CurlUpstreamClientTest = UpstreamTest;

TEST_F(CurlUpstreamClientTest, PlainResponseDeliversStatusBodyAndLowerCasedHeaders)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(
            200, R"({"id":"x"})", {{"Content-Type", "application/json"}, {"X-Request-ID", "r1"}}))};
    });
    RecordingHandler handler;
    client.send(get(server.url("/v1/models")), &handler);
    EXPECT_EQ(handler.calls, 0) << "send() must not call the handler synchronously";
    EXPECT_EQ(client.activeTransfers(), 1);

    ASSERT_TRUE(waitFinished(handler));
    EXPECT_TRUE(handler.completed);
    EXPECT_FALSE(handler.error) << handler.error->message.toStdString();
    EXPECT_EQ(handler.headerCalls, 1);
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, R"({"id":"x"})");
    EXPECT_EQ(handler.header("content-type"), "application/json");
    EXPECT_EQ(handler.header("x-request-id"), "r1");
    for (const auto &[name, value] : handler.headers)
        EXPECT_EQ(name, name.toLower());
    EXPECT_EQ(client.activeTransfers(), 0);
    ASSERT_EQ(server.requests().size(), 1);
    EXPECT_EQ(server.requests()[0].method, "GET");
    EXPECT_EQ(server.requests()[0].target, "/v1/models");
}

TEST_F(CurlUpstreamClientTest, StreamedChunksArriveBeforeCompletion)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(
                               200, {{"Content-Type", "text/event-stream"}})),
                           Step::write(LoopbackHttpServer::chunk("data: one\n\n"))};
    });
    RecordingHandler handler;
    client.send(get(server.url("/stream")), &handler);

    // The server holds the rest of the stream until the test releases it.
    ASSERT_TRUE(sy::test::waitUntil([&] { return !handler.body.isEmpty(); }));
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, "data: one\n\n");
    EXPECT_FALSE(handler.finished());

    ASSERT_TRUE(server.write(0, LoopbackHttpServer::chunk("data: two\n\n")));
    ASSERT_TRUE(sy::test::waitUntil([&] { return handler.body.size() > 11; }));
    EXPECT_FALSE(handler.finished());

    ASSERT_TRUE(server.write(0, LoopbackHttpServer::lastChunk()));
    ASSERT_TRUE(waitFinished(handler));
    EXPECT_TRUE(handler.completed);
    EXPECT_EQ(handler.body, "data: one\n\ndata: two\n\n");
    EXPECT_GE(handler.chunks.size(), 2);
}

TEST_F(CurlUpstreamClientTest, NonSuccessStatusIsDeliveredNotAnError)
{
    const QByteArray errorBody = R"({"error":{"type":"rate_limit_error"}})";
    server.setScript([&](const ReceivedRequest &) {
        return QList<Step>{Step::write(
            LoopbackHttpServer::response(429, errorBody, {{"Retry-After", "7"}}))};
    });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    EXPECT_TRUE(handler.completed);
    EXPECT_EQ(handler.status, 429);
    EXPECT_EQ(handler.header("retry-after"), "7");
    EXPECT_EQ(handler.body, errorBody);
}

TEST_F(CurlUpstreamClientTest, RequestBodyAndHeadersReachServerIntact)
{
    // Larger than curl's in-head limit and its Expect threshold, so it goes out in pieces.
    QByteArray body = R"({"model":"m","messages":[)";
    while (body.size() < 2 * 1024 * 1024)
        body += R"({"role":"user","content":"héllo \u00e9 \"quoted\""},)";
    body += "{}]}";
    UpstreamRequest request;
    request.method = "POST";
    request.url = server.url("/v1/chat/completions?alt=sse");
    request.headers = {{"Content-Type", "application/json"},
                       {"Authorization", "Bearer sk-test"},
                       {"anthropic-version", "2023-06-01"},
                       {"X-Empty", ""},
                       {"Content-Length", "1"},          // contradicts the body: not sent
                       {"X-Injected", "a\r\nEvil: 1"}};  // would inject a header: not sent
    request.body = body;
    RecordingHandler handler;
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler, 30s));
    EXPECT_TRUE(handler.completed);
    ASSERT_EQ(server.requests().size(), 1);
    const ReceivedRequest &received = server.requests()[0];
    EXPECT_EQ(received.method, "POST");
    EXPECT_EQ(received.target, "/v1/chat/completions?alt=sse");
    EXPECT_EQ(received.body.size(), body.size());
    EXPECT_TRUE(received.body == body);
    auto value = [&](QByteArrayView name) { return http::headerValue(received.headers, name); };
    EXPECT_EQ(value("content-type"), "application/json");
    EXPECT_EQ(value("authorization"), "Bearer sk-test");
    EXPECT_EQ(value("anthropic-version"), "2023-06-01");
    EXPECT_EQ(value("content-length"), QByteArray::number(body.size()));
    EXPECT_TRUE(value("expect").isEmpty());
    EXPECT_TRUE(value("x-injected").isEmpty());
    EXPECT_TRUE(value("evil").isEmpty());
    bool sawEmpty = false;
    for (const auto &[name, headerValue] : received.headers)
        sawEmpty = sawEmpty || (name == "x-empty" && headerValue.isEmpty());
    EXPECT_TRUE(sawEmpty);
}

TEST_F(CurlUpstreamClientTest, SmallBodyWithoutContentTypeGetsNoFormContentType)
{
    UpstreamRequest request;
    request.method = "PUT";
    request.url = server.url("/items/1");
    request.body = "payload";
    RecordingHandler handler;
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_EQ(server.requests().size(), 1);
    EXPECT_EQ(server.requests()[0].method, "PUT");
    EXPECT_EQ(server.requests()[0].body, "payload");
    EXPECT_TRUE(http::headerValue(server.requests()[0].headers, "content-type").isEmpty());
}

TEST_F(CurlUpstreamClientTest, InterimResponsesAreSkipped)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{
            Step::write("HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"),
            Step::write(LoopbackHttpServer::response(201, "made", {{"Location", "/x"}}), 20ms)};
    });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    EXPECT_TRUE(handler.completed);
    EXPECT_EQ(handler.headerCalls, 1);
    EXPECT_EQ(handler.status, 201);
    EXPECT_EQ(handler.header("location"), "/x");
    EXPECT_TRUE(handler.header("link").isEmpty());
    EXPECT_EQ(handler.body, "made");
}

TEST_F(CurlUpstreamClientTest, MalformedResponseIsProtocolError)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write("this is not http\r\n\r\n"), Step::close()};
    });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Protocol) << handler.error->message.toStdString();
    EXPECT_EQ(handler.headerCalls, 0);
}

TEST_F(CurlUpstreamClientTest, UnsupportedSchemeIsRefusedWithoutContactingAnything)
{
    RecordingHandler handler;
    client.send(get("file:///etc/hostname"), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Other);
    EXPECT_TRUE(handler.body.isEmpty());
}

} // namespace
} // namespace sy::upstream::test
