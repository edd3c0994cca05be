// Reliability through the gateway (issue 12): no upstream credential reaches the client, the
// trace or the request log; an oversized stream event fails over before the first chunk and
// interrupts after it; settings.max_request_s ends endless streams and slow plain requests; TTFT
// is measured at the first content; every request body that reached the upstream is an attempt.
// Raw loopback upstreams (tests/unit/upstream/LoopbackHttpServer) produce what the simulator
// cannot: echoed keys, oversized events, dead keep-alive connections.
#include "GatewayFixture.h"
#include "service/AdminApi.h"
#include "unit/upstream/LoopbackHttpServer.h"

#include <QJsonDocument>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;
using upstream::test::LoopbackHttpServer;
using upstream::test::ReceivedRequest;
using upstream::test::Step;

QJsonObject parsed(const QByteArray &event)
{
    return QJsonDocument::fromJson(event).object();
}

// One OpenAI stream event carrying `content`, framed as an SSE event.
QByteArray contentEvent(const QByteArray &content)
{
    const QJsonObject chunk{{"id", "chatcmpl-raw"},
                            {"object", "chat.completion.chunk"},
                            {"created", 1},
                            {"model", "chat-a-up"},
                            {"choices", QJsonArray{QJsonObject{{"index", 0},
                                                               {"delta", QJsonObject{{"content", QString::fromLatin1(content)}}},
                                                               {"finish_reason", QJsonValue::Null}}}}};
    return "data: " + QJsonDocument(chunk).toJson(QJsonDocument::Compact) + "\n\n";
}

class ReliabilityTest : public GatewayFixture {
protected:
    // The channel `id` of `config` sent to the raw server instead of the simulator.
    void pointAtRaw(config::Config &config, const QString &id)
    {
        channel(config, id).baseUrl = QString::fromLatin1(raw.url("/v1"));
    }

    // The admin API's answer for `target` (in-process, as the dashboard calls it).
    QByteArray admin(const QByteArray &target)
    {
        QByteArray answer;
        int status = 0;
        gateway->admin()->invoke("GET", target, {}, [&](int s, const QByteArray &body) {
            status = s;
            answer = body;
        });
        EXPECT_EQ(status, 200) << target.constData() << ": " << answer.constData();
        return answer;
    }

    // A raw stream answer: the 200 head, then `events` as one chunk each, then the last chunk.
    static QList<Step> streamOf(const QList<QByteArray> &events)
    {
        QList<Step> steps{Step::write(LoopbackHttpServer::chunkedHead(200, {{"content-type", "text/event-stream"}}))};
        for (const QByteArray &event : events)
            steps.append(Step::write(LoopbackHttpServer::chunk(event), 20ms));
        steps.append(Step::write(LoopbackHttpServer::lastChunk()));
        return steps;
    }

    // Like some providers: the 401's message repeats the key it was given.
    void echoKeyIn401()
    {
        raw.setScript([](const ReceivedRequest &request) {
            const QByteArray key = http::headerValue(request.headers, "authorization").mid(7);
            const QByteArray body = R"({"error":{"message":"Incorrect API key provided: )" + key
                + R"(.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})";
            return QList<Step>{Step::write(LoopbackHttpServer::response(401, body, {{"content-type", "application/json"}}))};
        });
    }

    static void expectNoSecretIn(const QList<QByteArray> &texts)
    {
        for (const QByteArray &text : texts) {
            EXPECT_FALSE(text.isEmpty());
            for (const char *secret : {"sk-upstream-alpha", "sk-upstream-beta"})
                EXPECT_FALSE(text.contains(secret)) << text.constData();
        }
    }

    // A chat body whose user message carries `marker` (to recognise it at the upstream).
    static QByteArray markedBody(const QByteArray &marker, bool stream)
    {
        const QJsonObject extra{
            {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", QString::fromLatin1(marker)}}}},
            {"stream", stream}};
        return chatBody(kModelA, extra);
    }

    LoopbackHttpServer raw;
};

TEST_F(ReliabilityTest, EchoedKeyIsRedactedFromTheTraceAndTheLog)
{
    config::Config config = baseConfig();
    pointAtRaw(config, "alpha");
    startGateway(std::move(config));
    echoKeyIn401();

    // Alpha's 401 is recorded, beta (the simulator) answers.
    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_EQ(raw.requests().size(), 1);
    const QByteArray header = client->header("x-tsarrouter-attempts");
    // The upstream text did reach the trace (so the checks below are not vacuous).
    EXPECT_TRUE(header.contains("Incorrect API key")) << header.constData();
    expectNoSecretIn({header, client->body(), admin("/admin/requests?limit=10"),
                      admin("/admin/requests/" + client->header("x-request-id"))});
}

TEST_F(ReliabilityTest, EchoedKeyIsRedactedFromTheAllFailedAnswer)
{
    config::Config config = baseConfig();
    pointAtRaw(config, "alpha");
    pointAtRaw(config, "beta");
    startGateway(std::move(config));
    echoKeyIn401();

    const auto client = chat(chatBody(kModelA));
    EXPECT_EQ(client->status(), 502) << client->body().constData();
    ASSERT_EQ(raw.requests().size(), 2);
    EXPECT_TRUE(client->body().contains("Incorrect API key")) << client->body().constData();
    expectNoSecretIn({client->body(), admin("/admin/requests?limit=10")});
}

TEST_F(ReliabilityTest, OversizedStreamEventBeforeFirstChunkFailsOver)
{
    config::Config config = baseConfig();
    config.settings.maxStreamEventBytes = 64 * 1024;
    pointAtRaw(config, "alpha");
    startGateway(std::move(config));
    // A valid chunk, only too large: without the cap it would be relayed and pin alpha.
    raw.setScript([](const ReceivedRequest &) {
        return streamOf({contentEvent(QByteArray(200 * 1024, 'x')), "data: [DONE]\n\n"});
    });

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().left(300).constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("larger than"))
        << trace.first().toObject().value("error").toString().toStdString();
    const QList<QByteArray> events = client->sseData();
    ASSERT_FALSE(events.isEmpty());
    EXPECT_EQ(events.last(), "[DONE]");
    EXPECT_FALSE(client->body().contains("xxxxxxxx"));
}

TEST_F(ReliabilityTest, OversizedStreamEventAfterFirstChunkInterruptsWithoutDone)
{
    config::Config config = baseConfig();
    config.settings.maxStreamEventBytes = 64 * 1024;
    pointAtRaw(config, "alpha");
    startGateway(std::move(config));
    raw.setScript([](const ReceivedRequest &) {
        return streamOf({contentEvent("Hello"), contentEvent(QByteArray(200 * 1024, 'x')), "data: [DONE]\n\n"});
    });

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().left(300).constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "alpha");
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().left(300).constData();
    EXPECT_FALSE(events.contains("[DONE]"));
    EXPECT_EQ(parsed(events.last()).value("error").toObject().value("code").toString(), "stream_interrupted")
        << events.last().left(300).constData();
    EXPECT_FALSE(client->body().contains("xxxxxxxx"));
    EXPECT_EQ(hits("beta"), 0);
}

TEST_F(ReliabilityTest, EndlessStreamIsInterruptedAtMaxRequestDuration)
{
    config::Config config = baseConfig();
    config.settings.maxRequestS = 1;
    startGateway(std::move(config));
    // Two words a second for 50 s: never idle long enough for a channel timeout.
    addRule(R"({"provider":"alpha","tokens_per_s":2,"output_tokens":100})");

    auto client = send("POST", "/v1/chat/completions", streamBody(kModelA));
    ASSERT_TRUE(client->waitForEnd(8s)) << client->body().constData();
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().constData();
    EXPECT_FALSE(events.contains("[DONE]"));
    const QJsonObject error = parsed(events.last()).value("error").toObject();
    EXPECT_EQ(error.value("code").toString(), "stream_interrupted") << events.last().constData();
    EXPECT_TRUE(error.value("message").toString().contains("max_request_s")) << events.last().constData();
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

TEST_F(ReliabilityTest, PlainRequestOutlivingMaxRequestDurationGets504)
{
    config::Config config = baseConfig();
    config.settings.maxRequestS = 1;
    startGateway(std::move(config));
    // Alpha hangs until its first-byte timeout (3 s); beta would answer after that.
    addRule(R"({"provider":"alpha","failure":"hang"})");

    auto client = send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(client->waitForEnd(8s));
    EXPECT_EQ(client->status(), 504) << client->body().constData();
    EXPECT_TRUE(client->body().contains("max_request_s")) << client->body().constData();
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

TEST_F(ReliabilityTest, TimeToFirstTokenIsMeasuredAtTheFirstContent)
{
    startGateway();
    // The simulator sends the headers at once and the first content 400 ms later.
    addRule(R"({"provider":"alpha","ttft_ms":400})");

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_EQ(client->header("x-tsarrouter-provider"), "alpha");
    const metrics::MetricsSnapshot snapshot = gateway->state().metrics.snapshot({"alpha", kModelA});
    ASSERT_TRUE(snapshot.ttftMs.has_value());
    EXPECT_GE(snapshot.ttftMs->p50, 400.0);
    EXPECT_GE(snapshot.latencyMs->p50, snapshot.ttftMs->p50);
}

class ResendThroughGateway : public ReliabilityTest, public ::testing::WithParamInterface<bool> {};

TEST_P(ResendThroughGateway, EveryRequestBodyThatReachedTheUpstreamIsAnAttempt)
{
    const bool stream = GetParam();
    config::Config config = baseConfig();
    pointAtRaw(config, "alpha");
    startGateway(std::move(config));
    // The first request on a connection is answered and the connection kept alive; a later one
    // on the same connection is read in full, then the connection closes unanswered (a
    // keep-alive timeout racing the request). libcurl would silently send it again.
    raw.setScript([this, stream](const ReceivedRequest &request) {
        int onThisConnection = 0;
        for (const ReceivedRequest &seen : raw.requests())
            onThisConnection += seen.connection == request.connection ? 1 : 0;
        if (onThisConnection > 1)
            return QList<Step>{Step::close()};
        if (stream)
            return streamOf({contentEvent("hi"), "data: [DONE]\n\n"});
        const QByteArray answer = R"({"id":"chatcmpl-raw","object":"chat.completion","created":1,"model":"chat-a-up",)"
                                  R"("choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],)"
                                  R"("usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})";
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, answer, {{"content-type", "application/json"}}))};
    });

    const auto first = chat(markedBody("warm-up", stream));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    ASSERT_EQ(first->header("x-tsarrouter-provider"), "alpha");

    const auto second = chat(markedBody("second-request", stream));
    EXPECT_EQ(second->status(), 200) << second->body().constData();
    // Let any silent re-send reach the server before counting.
    test::processEventsFor(200ms);
    int arrivals = 0;
    for (const ReceivedRequest &request : raw.requests())
        arrivals += request.body.contains("second-request") ? 1 : 0;
    const QJsonArray trace = attempts(*second);
    // The dead connection was really reused (else the test proves nothing).
    ASSERT_GE(raw.requests().size(), 2);
    EXPECT_EQ(raw.requests().at(1).connection, raw.requests().at(0).connection);
    EXPECT_EQ(arrivals, attemptProviders(trace).count("alpha")) << second->header("x-tsarrouter-attempts").constData();
    EXPECT_EQ(attemptStatuses(trace).first(), "error") << second->header("x-tsarrouter-attempts").constData();
}

INSTANTIATE_TEST_SUITE_P(Modes, ResendThroughGateway, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) { return std::string(info.param ? "Stream" : "Plain"); });

} // namespace
} // namespace sy::integration
