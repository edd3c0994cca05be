// Every scripted failure kind as a client on the wire sees it.
#include "OpenAiFormat.h"
#include "SimServerFixture.h"

#include <QJsonArray>

namespace sy::sim::test {
namespace {

using SimFailureTest = SimServerFixture;

using namespace std::chrono_literals;

constexpr QByteArrayView kPlain = R"({"model":"m","messages":[]})";
constexpr QByteArrayView kStream = R"({"model":"m","stream":true,"messages":[]})";

class SimStatusFailureTest : public SimServerFixture, public ::testing::WithParamInterface<int> {};

TEST_P(SimStatusFailureTest, StatusFailureAnswersWithAnOpenAiErrorBody)
{
    const int status = GetParam();
    putRules(R"({"rules":[{"failure":"status:)" + QByteArray::number(status) + R"("}]})");
    for (const QByteArrayView body : {kPlain, kStream}) {
        const auto client = call("POST", "/v1/chat/completions", body.toByteArray());
        EXPECT_EQ(client->status(), status);
        EXPECT_TRUE(client->isComplete());
        const QJsonObject error = json(client->body())["error"].toObject();
        EXPECT_FALSE(error["message"].toString().isEmpty());
        EXPECT_EQ(error["type"].toString().toLatin1(), OpenAiFormat::errorTypeAndCode(status).first);
        EXPECT_EQ(error["code"].toString().toLatin1(), OpenAiFormat::errorTypeAndCode(status).second);
        EXPECT_EQ(client->header("retry-after").isEmpty(), status != 429);
    }
}

INSTANTIATE_TEST_SUITE_P(Codes, SimStatusFailureTest, ::testing::Values(400, 401, 404, 429, 500, 503));

TEST_F(SimFailureTest, RateLimitCarriesTheScriptedRetryAfter)
{
    putRules(R"({"rules":[{"model":"a","failure":"status:429","retry_after_s":7},{"model":"b","failure":"status:429"}]})");
    EXPECT_EQ(call("POST", "/v1/chat/completions", R"({"model":"a","messages":[]})")->header("retry-after"), "7");
    EXPECT_EQ(call("POST", "/v1/chat/completions", R"({"model":"b","messages":[]})")->header("retry-after"), "1");
}

TEST_F(SimFailureTest, ResetClosesTheConnectionBeforeAnyHeader)
{
    putRules(R"({"rules":[{"failure":"reset"}]})");
    for (const QByteArrayView body : {kPlain, kStream}) {
        RawHttpClient client(port);
        client.send("POST", "/v1/chat/completions", body.toByteArray());
        ASSERT_TRUE(client.waitForEnd());
        EXPECT_TRUE(client.isClosed());
        EXPECT_EQ(client.bytesReceived(), 0);
    }
    EXPECT_EQ(getStats()["failures"]["reset"].toInt(), 2);
}

TEST_F(SimFailureTest, HangAcceptsTheRequestAndNeverAnswers)
{
    putRules(R"({"rules":[{"failure":"hang"}]})");
    auto client = std::make_unique<RawHttpClient>(port);
    client->send("POST", "/v1/chat/completions", kPlain.toByteArray());
    sy::test::processEventsFor(400ms);
    EXPECT_EQ(client->bytesReceived(), 0);
    EXPECT_FALSE(client->isClosed());
    EXPECT_EQ(server->stats().requests(), 1);
    EXPECT_EQ(server->stats().inFlight(), 1);
    client->close();
    client.reset();
    EXPECT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 0; }, 5s));
}

TEST_F(SimFailureTest, HungRequestsEndWhenTheServerIsDeleted)
{
    putRules(R"({"rules":[{"failure":"hang"}]})");
    RawHttpClient client(port);
    client.send("POST", "/v1/chat/completions", kStream.toByteArray());
    ASSERT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 1; }, 5s));
    server.reset();
    EXPECT_TRUE(sy::test::waitUntil([&] { return client.isClosed(); }, 5s));
    EXPECT_EQ(client.bytesReceived(), 0);
}

TEST_F(SimFailureTest, DropMidStreamSendsTheFirstChunksThenCloses)
{
    putRules(R"({"rules":[{"failure":"drop_mid_stream","drop_after_chunks":3}]})");
    const auto client = call("POST", "/v1/chat/completions", kStream.toByteArray());
    EXPECT_EQ(client->status(), 200);
    EXPECT_TRUE(client->isClosed());
    EXPECT_FALSE(client->isComplete());
    const QList<QByteArray> events = client->sseData();
    ASSERT_EQ(events.size(), 3);
    for (const QByteArray &event : events)
        EXPECT_FALSE(json(event)["choices"][0]["delta"]["content"].toString().isEmpty());
    EXPECT_FALSE(client->body().contains("[DONE]"));
}

TEST_F(SimFailureTest, DropMidStreamOfAPacedStreamClosesAfterTheChunks)
{
    putRules(R"({"rules":[{"failure":"drop_mid_stream","ttft_ms":20,"tokens_per_s":100}]})");
    const auto client = call("POST", "/v1/chat/completions", kStream.toByteArray());
    EXPECT_TRUE(client->isClosed());
    EXPECT_EQ(client->sseData().size(), 2);
    EXPECT_TRUE(sy::test::waitUntil([this] { return server->stats().inFlight() == 0; }, 5s));
}

TEST_F(SimFailureTest, DropMidStreamOfAPlainAnswerCutsTheBody)
{
    putRules(R"({"rules":[{"failure":"drop_mid_stream"}]})");
    const auto client = call("POST", "/v1/chat/completions", kPlain.toByteArray());
    EXPECT_EQ(client->status(), 200);
    EXPECT_TRUE(client->isClosed());
    EXPECT_FALSE(client->isComplete());
    EXPECT_FALSE(client->body().isEmpty());
    EXPECT_TRUE(QJsonDocument::fromJson(client->body()).isNull());
}

TEST_F(SimFailureTest, Empty200HasNoChoices)
{
    putRules(R"({"rules":[{"failure":"empty_200"}]})");
    const auto plain = call("POST", "/v1/chat/completions", kPlain.toByteArray());
    EXPECT_EQ(plain->status(), 200);
    EXPECT_TRUE(json(plain->body())["choices"].toArray().isEmpty());
    const auto stream = call("POST", "/v1/chat/completions", kStream.toByteArray());
    EXPECT_EQ(stream->status(), 200);
    EXPECT_TRUE(stream->isComplete());
    EXPECT_EQ(stream->sseData(), QList<QByteArray>{"[DONE]"});
}

TEST_F(SimFailureTest, MalformedSseSendsAnEventThatIsNotJson)
{
    putRules(R"({"rules":[{"failure":"malformed_sse"}]})");
    const auto stream = call("POST", "/v1/chat/completions", kStream.toByteArray());
    EXPECT_EQ(stream->status(), 200);
    const QList<QByteArray> events = stream->sseData();
    ASSERT_EQ(events.size(), 1);
    EXPECT_TRUE(QJsonDocument::fromJson(events[0]).isNull());
    EXPECT_FALSE(stream->body().contains("[DONE]"));
    const auto plain = call("POST", "/v1/chat/completions", kPlain.toByteArray());
    EXPECT_EQ(plain->status(), 200);
    EXPECT_TRUE(QJsonDocument::fromJson(plain->body()).isNull());
}

TEST_F(SimFailureTest, FailureWaitsForTheScriptedLatency)
{
    putRules(R"({"rules":[{"failure":"status:503","latency_ms":120}]})");
    const auto client = call("POST", "/v1/chat/completions", kPlain.toByteArray());
    EXPECT_EQ(client->status(), 503);
    EXPECT_GE(*client->msToHeaders(), 110);
}

TEST_F(SimFailureTest, PartialErrorRateFollowsTheSeed)
{
    const QByteArray script = R"({"rules":[{"error_rate":0.5,"failure":"status:503"}]})";
    SimServer twin(SimOptions{1});
    const quint16 twinPort = twin.listen(QHostAddress::LocalHost, 0);
    ASSERT_NE(twinPort, 0);
    putRules(script);
    twin.applyScript(*parseScript(script).script);
    QList<int> ours, theirs;
    for (int i = 0; i < 20; ++i) {
        ours.append(chat("/v1/chat/completions", "m"));
        RawHttpClient client(twinPort);
        client.send("POST", "/v1/chat/completions", kPlain.toByteArray());
        ASSERT_TRUE(client.waitForEnd());
        theirs.append(client.status());
    }
    EXPECT_EQ(ours, theirs);
    EXPECT_TRUE(ours.contains(200));
    EXPECT_TRUE(ours.contains(503));
}

} // namespace
} // namespace sy::sim::test
