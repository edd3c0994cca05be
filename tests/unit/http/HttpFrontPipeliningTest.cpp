// Pipelined requests on one connection are answered in request order (RFC 9112 §9.3.2), however
// the handlers finish: QtHttpServer 6.4 alone would answer in completion order.
#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QTimer>

namespace sy::http::test {
namespace {

class HttpFrontPipeliningTest : public FrontTest {
protected:
    void SetUp() override
    {
        startFront();
        // A slow chat: answers 200 ms later, streamed in three chunks.
        front->route("POST", "/slow", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            QTimer::singleShot(200ms, sink.get(), [sink] {
                sink->begin(200, {{"Content-Type", "text/event-stream"}});
                sink->write("data: one\n\n");
                sink->write("data: two\n\n");
                sink->write("data: [DONE]\n\n");
                sink->finish();
            });
        });
        // GET /v1/models: answered inside the handler.
        front->route("GET", "/v1/models", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            sink->respond(200, {{"Content-Type", "application/json"}}, "models");
        });
        // A fast chat: answered on the next event-loop pass.
        front->route("POST", "/fast", [](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            QTimer::singleShot(0, sink.get(), [sink] { sink->respond(200, {}, "fast"); });
        });
        // A handler that drops its sink without answering.
        front->route("GET", "/dropped", [](HttpRequest &&, std::shared_ptr<ResponseSink>) {});
    }
};

TEST_F(HttpFrontPipeliningTest, SlowSyncAndFastAnswersComeBackInRequestOrder)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/slow", port, {}, "{}") + buildRequest("GET", "/v1/models", port)
                + buildRequest("POST", "/fast", port, {}, "{}"));

    const auto first = client.readResponse(5s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->body, "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
    EXPECT_TRUE(first->chunked);
    const auto second = client.readResponse(5s);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->body, "models");
    const auto third = client.readResponse(5s);
    ASSERT_TRUE(third);
    EXPECT_EQ(third->body, "fast");
    EXPECT_FALSE(client.parser().midResponse());
    EXPECT_FALSE(client.serverClosed());

    // The connection stays usable once the queue is empty.
    client.send(buildRequest("GET", "/v1/models", port));
    const auto fourth = client.readResponse(5s);
    ASSERT_TRUE(fourth);
    EXPECT_EQ(fourth->body, "models");
}

TEST_F(HttpFrontPipeliningTest, LaterAnswerIsHeldUntilTheEarlierIsComplete)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/slow", port, {}, "{}") + buildRequest("GET", "/v1/models", port));
    // The models answer is ready at once, yet nothing may reach the client before the slow one.
    sy::test::processEventsFor(100ms);
    EXPECT_EQ(client.bytesReceived(), 0);
    const auto first = client.readResponse(5s);
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->body.startsWith("data: one"));
}

TEST_F(HttpFrontPipeliningTest, RefusalOfAPipelinedRequestWaitsForTheEarlierAnswer)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/slow", port, {}, "{}")
                + buildRequest("GET", "/v1/models", port, {{"Host", "evil.example"}}));
    const auto first = client.readResponse(5s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    const auto second = client.readResponse(5s);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 403);
}

TEST_F(HttpFrontPipeliningTest, UnansweredRequestClosesTheConnectionAfterTheEarlierAnswers)
{
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/v1/models", port) + buildRequest("GET", "/dropped", port)
                + buildRequest("GET", "/v1/models", port));
    const auto first = client.readResponse(5s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->body, "models");
    EXPECT_TRUE(client.waitForServerClose(5s)) << "a request that got no answer must not hang the connection";
}

} // namespace
} // namespace sy::http::test
