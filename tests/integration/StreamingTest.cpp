// Streaming Chat Completions through the gateway (SPEC §5): the 200 is held until the first
// upstream chunk, every switch before it is invisible, a failure after it ends the stream with
// one error event and no [DONE], and a client that leaves cancels the upstream request.
#include "GatewayFixture.h"

#include <QJsonDocument>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

QJsonObject parsed(const QByteArray &event)
{
    return QJsonDocument::fromJson(event).object();
}

// The content deltas of a stream, concatenated.
QString streamedText(const QList<QByteArray> &events)
{
    QString text;
    for (const QByteArray &event : events) {
        for (const QJsonValue &choice : parsed(event).value("choices").toArray())
            text += choice.toObject().value("delta").toObject().value("content").toString();
    }
    return text;
}

class StreamingTest : public GatewayFixture {
protected:
    // Expects one clean 200 stream of kModelA: chunks, then [DONE] as the last event.
    void expectCleanStream(const GatewayClient &client)
    {
        ASSERT_EQ(client.status(), 200) << client.body().constData();
        EXPECT_TRUE(client.isChunked());
        EXPECT_TRUE(client.isComplete());
        EXPECT_EQ(client.header("content-type"), "text/event-stream");
        const QList<QByteArray> events = client.sseData();
        ASSERT_GE(events.size(), 2) << client.body().constData();
        EXPECT_EQ(events.last(), "[DONE]");
        EXPECT_EQ(events.count("[DONE]"), 1);
        for (const QByteArray &event : events.mid(0, events.size() - 1)) {
            const QJsonObject chunk = parsed(event);
            EXPECT_EQ(chunk.value("object").toString(), "chat.completion.chunk") << event.constData();
            EXPECT_EQ(chunk.value("model").toString(), kModelA) << event.constData();
            EXPECT_FALSE(chunk.contains("error")) << event.constData();
        }
        EXPECT_FALSE(streamedText(events).isEmpty());
        // Exactly one response: no second status line hidden in the body.
        EXPECT_FALSE(client.body().contains("HTTP/1.1"));
    }
};

TEST_F(StreamingTest, SendsChunksThenDoneWithTraceHeaders)
{
    startGateway();
    const auto client = chat(streamBody(kModelA));
    expectCleanStream(*client);

    EXPECT_FALSE(client->header("x-request-id").isEmpty());
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelA);
    EXPECT_EQ(attemptStatuses(attempts(*client)), QStringList{"ok"});
    const QList<QByteArray> events = client->sseData();
    bool finished = false;
    for (const QByteArray &event : events) {
        // The gateway asked the upstream for usage (for billing); the client did not.
        EXPECT_FALSE(parsed(event).contains("usage")) << event.constData();
        for (const QJsonValue &choice : parsed(event).value("choices").toArray())
            finished = finished || choice.toObject().value("finish_reason").toString() == "stop";
    }
    EXPECT_TRUE(finished) << client->body().constData();
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
}

TEST_F(StreamingTest, UsageChunkOnlyWhenTheClientAsks)
{
    startGateway();
    const auto client = chat(streamBody(kModelA, {{"stream_options", QJsonObject{{"include_usage", true}}}}));
    expectCleanStream(*client);

    const QList<QByteArray> events = client->sseData();
    int usageChunks = 0;
    for (const QByteArray &event : events) {
        const QJsonObject chunk = parsed(event);
        if (!chunk.contains("usage"))
            continue;
        ++usageChunks;
        EXPECT_TRUE(chunk.value("choices").toArray().isEmpty()) << event.constData();
        EXPECT_GT(chunk.value("usage").toObject().value("prompt_tokens").toInt(), 0);
        EXPECT_GT(chunk.value("usage").toObject().value("completion_tokens").toInt(), 0);
    }
    EXPECT_EQ(usageChunks, 1) << client->body().constData();
    // The usage chunk comes last, right before [DONE].
    EXPECT_TRUE(parsed(events.value(events.size() - 2)).contains("usage"));
}

struct SwitchCase {
    const char *name;
    const char *rule;           // for provider alpha
    const char *reasonFragment; // in the first attempt's error
};

void PrintTo(const SwitchCase &c, std::ostream *out) { *out << c.name; }

class StreamSwitchTest : public StreamingTest, public ::testing::WithParamInterface<SwitchCase> {};

TEST_P(StreamSwitchTest, FirstChannelFailsBeforeFirstChunkAndClientSeesOneCleanStream)
{
    config::Config config = baseConfig();
    config.settings.firstChunkTimeoutS = 1;
    startGateway(std::move(config));
    addRule(GetParam().rule);

    const auto client = chat(streamBody(kModelA));
    expectCleanStream(*client);
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "ok"}));
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains(GetParam().reasonFragment))
        << trace.first().toObject().value("error").toString().toStdString();
    // Streams try each candidate once.
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 1);
    // The abandoned attempt was cancelled upstream.
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, StreamSwitchTest,
    ::testing::Values(
        SwitchCase{"Status503", R"({"provider":"alpha","failure":"status:503"})", "HTTP 503"},
        SwitchCase{"Reset", R"({"provider":"alpha","failure":"reset"})", "reset"},
        SwitchCase{"Empty200", R"({"provider":"alpha","failure":"empty_200"})", "without content"},
        SwitchCase{"MalformedSse", R"({"provider":"alpha","failure":"malformed_sse"})", "malformed"},
        SwitchCase{"SlowFirstToken", R"({"provider":"alpha","ttft_ms":3000})", "first chunk"}),
    [](const ::testing::TestParamInfo<SwitchCase> &info) { return std::string(info.param.name); });

TEST_F(StreamingTest, DropAfterFirstChunkEndsWithInterruptedEventAndNoDone)
{
    startGateway();
    addRule(R"({"provider":"alpha","failure":"drop_mid_stream","drop_after_chunks":2,"output_tokens":12})");

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().constData();
    EXPECT_FALSE(events.contains("[DONE]")) << client->body().constData();
    const QJsonObject last = parsed(events.last());
    EXPECT_EQ(last.value("error").toObject().value("code").toString(), "stream_interrupted")
        << events.last().constData();
    EXPECT_FALSE(last.value("error").toObject().value("message").toString().isEmpty());
    // The content that did arrive came through before the error event.
    EXPECT_FALSE(streamedText(events).isEmpty());
    // Pinned after the first chunk: no failover to the second channel.
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_EQ(attemptStatuses(attempts(*client)), QStringList{"ok"});
}

TEST_F(StreamingTest, SilenceAfterFirstChunkEndsWithInterruptedEvent)
{
    config::Config config = baseConfig();
    channel(config, "alpha").timeouts.idle = 300ms;
    startGateway(std::move(config));
    // One chunk every 2 s: the first arrives, then the channel's idle timeout cuts in.
    addRule(R"({"provider":"alpha","tokens_per_s":0.5,"output_tokens":10})");

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().constData();
    EXPECT_FALSE(events.contains("[DONE]"));
    EXPECT_EQ(parsed(events.last()).value("error").toObject().value("code").toString(), "stream_interrupted")
        << events.last().constData();
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

TEST_F(StreamingTest, StreamsAreNotRetriedOnTheSameChannel)
{
    startGateway();
    addRule(R"({"provider":"gamma","failure":"status:503"})");
    const auto client = chat(streamBody(kModelB));
    EXPECT_EQ(client->status(), 502) << client->body().constData();
    EXPECT_EQ(hits("gamma"), 1);
}

TEST_F(StreamingTest, ClientDisconnectMidStreamCancelsTheUpstream)
{
    startGateway();
    // About 10 s of streaming unless someone cancels it.
    addRule(R"({"provider":"alpha","tokens_per_s":10,"output_tokens":100})");

    auto client = send("POST", "/v1/chat/completions", streamBody(kModelA));
    ASSERT_TRUE(client->waitForEvents(2)) << client->body().constData();
    ASSERT_EQ(client->status(), 200);
    EXPECT_EQ(sim->stats().inFlight(), 1);
    EXPECT_EQ(gateway->counters().inFlight, 1);

    client->disconnect();
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s))
        << "simulator still streams: " << sim->stats().inFlight();
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s))
        << "gateway still counts the request: " << gateway->counters().inFlight;
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);

    // The gateway is fine afterwards.
    sim->state().rules.clear();
    const auto next = chat(chatBody(kModelA));
    EXPECT_EQ(next->status(), 200) << next->body().constData();
}

TEST_F(StreamingTest, ClientDisconnectBeforeFirstChunkCancelsTheUpstream)
{
    startGateway();
    addRule(R"({"provider":"alpha","failure":"hang"})");

    auto client = send("POST", "/v1/chat/completions", streamBody(kModelA));
    ASSERT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s));
    EXPECT_FALSE(client->hasHeaders());

    client->disconnect();
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
    EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s));
    // Nobody failed over on behalf of a client that left.
    EXPECT_EQ(hits("beta"), 0);
}

} // namespace
} // namespace sy::integration
