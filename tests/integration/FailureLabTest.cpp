// The failure lab (SPEC §7 "Dashboard"): outages set on a channel or a model make the gateway
// produce the failure itself, and failover, streaming and the trace react as to a real one; an
// outage ends by itself. Also the first-chunk timeout of streams (SPEC §5).
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;
using failover::OutageKind;

class FailureLabTest : public GatewayFixture {
protected:
    void takeDown(const QString &channelId, const QString &modelId, OutageKind kind, int status = 503,
                  std::chrono::milliseconds duration = 60s)
    {
        failover::Outage outage;
        outage.channelId = channelId;
        outage.modelId = modelId;
        outage.kind = kind;
        outage.status = status;
        outage.until = gateway->clock().now() + duration;
        gateway->outages().set(outage);
    }
};

TEST_F(FailureLabTest, ChannelHttpErrorOutageFailsOverAndShowsTheStatus)
{
    startGateway();
    takeDown("alpha", {}, OutageKind::HttpError, 503);

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "alpha", "beta"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error", "ok"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("503"))
        << trace.first().toObject().value("error").toString().toStdString();
    // The lab answers in the upstream's place: alpha itself is never contacted.
    EXPECT_EQ(hits("alpha"), 0);
    EXPECT_EQ(hits("beta"), 1);
}

class SilentOutageTest : public FailureLabTest, public ::testing::WithParamInterface<OutageKind> {};

TEST_P(SilentOutageTest, SilenceUntilTheChannelsFirstByteTimeoutFailsOver)
{
    config::Config config = baseConfig();
    channel(config, "alpha").timeouts.firstByte = 300ms;
    startGateway(std::move(config));
    takeDown("alpha", {}, GetParam());

    // A stream tries each candidate once.
    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    EXPECT_EQ(client->sseData().last(), "[DONE]");
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "ok"}));
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta"}));
    EXPECT_GE(trace.first().toObject().value("latency_ms").toInt(), 280);
    EXPECT_GE(client->elapsedMs(), 280);
    EXPECT_EQ(hits("alpha"), 0);
    EXPECT_EQ(hits("beta"), 1);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SilentOutageTest, ::testing::Values(OutageKind::Hang, OutageKind::Timeout),
                         [](const ::testing::TestParamInfo<OutageKind> &info) {
                             return std::string(info.param == OutageKind::Hang ? "Hang" : "Timeout");
                         });

TEST_F(FailureLabTest, DropMidStreamOutageInterruptsAfterTheFirstChunk)
{
    startGateway();
    addRule(R"({"provider":"alpha","tokens_per_s":20,"output_tokens":10})");
    takeDown("alpha", {}, OutageKind::DropMidStream);

    const auto client = chat(streamBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().constData();
    EXPECT_FALSE(events.contains("[DONE]")) << client->body().constData();
    const QJsonObject first = QJsonDocument::fromJson(events.first()).object();
    EXPECT_EQ(first.value("object").toString(), "chat.completion.chunk") << events.first().constData();
    const QJsonObject last = QJsonDocument::fromJson(events.last()).object();
    EXPECT_EQ(last.value("error").toObject().value("code").toString(), "stream_interrupted") << events.last().constData();
    // Pinned after the first chunk: no failover; the real upstream transfer was cut.
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

TEST_F(FailureLabTest, ModelOutageHandsTheRequestToTheChainsNextModel)
{
    startGateway();
    takeDown({}, kModelA, OutageKind::HttpError, 500);

    const auto client = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    EXPECT_EQ(client->json().value("model").toString(), kModelB);
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta", "gamma"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error", "ok"}));
    EXPECT_EQ(hits("alpha") + hits("beta"), 0);
    EXPECT_EQ(hits("gamma"), 1);

    // The same model on its own: every channel is down.
    const auto alone = chat(chatBody(kModelA));
    EXPECT_EQ(alone->status(), 502) << alone->body().constData();
    EXPECT_EQ(hits("alpha") + hits("beta"), 0);
}

TEST_F(FailureLabTest, ExpiredOutageRestoresTheChannel)
{
    startGateway();
    takeDown("alpha", {}, OutageKind::HttpError, 503, 400ms);

    const auto during = chat(streamBody(kModelA));
    ASSERT_EQ(during->status(), 200) << during->body().constData();
    EXPECT_EQ(during->header("x-tsarrouter-provider"), "beta");

    ASSERT_TRUE(test::waitUntil([this] { return gateway->outages().active().empty(); }, 2s));
    const auto after = chat(streamBody(kModelA));
    ASSERT_EQ(after->status(), 200) << after->body().constData();
    EXPECT_EQ(after->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(attemptStatuses(attempts(*after)), QStringList{"ok"});
    EXPECT_EQ(hits("alpha"), 1);
}

TEST_F(FailureLabTest, StreamWithoutFirstChunkInTimeIsAnsweredByTheNextChannelAndBilledThere)
{
    config::Config config = baseConfig();
    config.settings.firstChunkTimeoutS = 1;
    config.balance = 1.0;
    startGateway(std::move(config));
    // Headers at once, first token after 2 s: only the gateway's own first-chunk timer can tell.
    addRule(R"({"provider":"alpha","ttft_ms":2000})");

    const auto client = chat(streamBody(kModelA, {{"stream_options", QJsonObject{{"include_usage", true}}}}));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 3) << client->body().constData();
    EXPECT_EQ(events.last(), "[DONE]");
    EXPECT_EQ(events.count("[DONE]"), 1);
    EXPECT_FALSE(client->body().contains("\"error\""));
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "ok"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("first chunk"));
    EXPECT_GE(client->elapsedMs(), 900);
    EXPECT_LT(client->elapsedMs(), 1900);

    // Charged once, at beta's price, for the usage the client was sent.
    const QJsonObject usage = QJsonDocument::fromJson(events.value(events.size() - 2)).object().value("usage").toObject();
    ASSERT_FALSE(usage.isEmpty()) << events.value(events.size() - 2).constData();
    const qint64 expected = qint64(usage.value("prompt_tokens").toInt()) * 3'000
                          + qint64(usage.value("completion_tokens").toInt()) * 4'000;
    ASSERT_TRUE(test::waitUntil([this] { return !gateway->state().ledger.entries().empty(); }, 3s));
    ASSERT_EQ(gateway->state().ledger.entries().size(), 1u);
    EXPECT_EQ(gateway->state().ledger.entries().front().amount, expected);
    EXPECT_EQ(gateway->state().ledger.entries().front().channelId, "beta");
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

} // namespace
} // namespace sy::integration
