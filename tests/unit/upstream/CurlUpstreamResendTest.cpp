// A request leaves the gateway at most once per reported attempt: when a reused keep-alive
// connection dies after the request went out, libcurl would silently send it again on a fresh
// connection (a second charge at the provider). The server counts arrivals.
#include "UpstreamTestSupport.h"

namespace sy::upstream::test {
namespace {

using CurlUpstreamResendTest = UpstreamTest;

constexpr char kSseBody[] = "data: {\"n\":1}\n\ndata: [DONE]\n\n";

UpstreamRequest post(QByteArray url, QByteArray body)
{
    UpstreamRequest request;
    request.url = std::move(url);
    request.headers = {{"content-type", "application/json"}};
    request.body = std::move(body);
    return request;
}

QList<Step> answer(bool stream)
{
    if (!stream)
        return {Step::write(LoopbackHttpServer::response(200, "{\"ok\":true}"))};
    return {Step::write(LoopbackHttpServer::chunkedHead(200, {{"content-type", "text/event-stream"}})),
            Step::write(LoopbackHttpServer::chunk(kSseBody)),
            Step::write(LoopbackHttpServer::lastChunk())};
}

// The first request on a connection is answered and the connection kept alive; a later
// request on that same connection is read in full, then the connection closes unanswered —
// a keep-alive timeout racing the next request.
void closeReusedConnectionAfterReading(LoopbackHttpServer &server, bool stream)
{
    server.setScript([&server, stream](const ReceivedRequest &request) {
        int onThisConnection = 0;
        for (const ReceivedRequest &seen : server.requests())
            onThisConnection += seen.connection == request.connection ? 1 : 0;
        if (onThisConnection > 1)
            return QList<Step>{Step::close()};
        return answer(stream);
    });
}

class ResendOnDeadConnection : public CurlUpstreamResendTest,
                               public ::testing::WithParamInterface<bool> {};

TEST_P(ResendOnDeadConnection, RequestArrivesOnceAndTheLossIsReported)
{
    const bool stream = GetParam();
    closeReusedConnectionAfterReading(server, stream);

    RecordingHandler first;
    client.send(post(server.url("/v1/chat/completions"), "{\"n\":1}"), &first);
    ASSERT_TRUE(waitFinished(first));
    ASSERT_TRUE(first.completed);

    RecordingHandler second;
    client.send(post(server.url("/v1/chat/completions"), "{\"n\":2}"), &second);
    ASSERT_TRUE(waitFinished(second));
    // Let any silent re-send reach the server before counting.
    sy::test::processEventsFor(200ms);

    int arrivalsOfSecond = 0;
    for (const ReceivedRequest &request : server.requests())
        arrivalsOfSecond += request.body == "{\"n\":2}" ? 1 : 0;
    EXPECT_EQ(arrivalsOfSecond, 1);
    ASSERT_TRUE(second.error);
    EXPECT_EQ(second.error->kind, UpstreamErrorKind::ReusedConnectionLost)
        << second.error->message.toStdString();
    EXPECT_EQ(second.headerCalls, 0);

    // The next request opens a fresh connection and is answered normally.
    RecordingHandler third;
    client.send(post(server.url("/v1/chat/completions"), "{\"n\":3}"), &third);
    ASSERT_TRUE(waitFinished(third));
    EXPECT_TRUE(third.completed);
    EXPECT_EQ(client.activeTransfers(), 0);
}

INSTANTIATE_TEST_SUITE_P(PlainAndStream, ResendOnDeadConnection, ::testing::Values(false, true),
                         [](const auto &info) { return info.param ? "Stream" : "Plain"; });

TEST_F(CurlUpstreamResendTest, ConnectionClosedWhileIdleIsReplacedWithoutAnError)
{
    // The upstream closes the kept-alive connection before the next request is written: curl
    // notices on reuse and opens a new one, and nothing was sent twice.
    server.setScript([](const ReceivedRequest &) {
        QList<Step> steps = answer(false);
        steps.append(Step::close(50ms));
        return steps;
    });
    RecordingHandler first;
    client.send(post(server.url("/v1/chat/completions"), "{\"n\":1}"), &first);
    ASSERT_TRUE(waitFinished(first));
    ASSERT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 0; }, 5s));

    RecordingHandler second;
    client.send(post(server.url("/v1/chat/completions"), "{\"n\":2}"), &second);
    ASSERT_TRUE(waitFinished(second));
    EXPECT_TRUE(second.completed);
    EXPECT_EQ(server.requests().size(), 2);
    EXPECT_EQ(server.acceptedConnections(), 2);
}

} // namespace
} // namespace sy::upstream::test
