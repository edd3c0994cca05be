// Failover between the channels of one model for plain requests (SPEC §4): which upstream
// outcomes move on, which are handed back, the retry of the same channel, and the 502 when
// every candidate failed.
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class FailoverTest : public GatewayFixture {};

TEST_F(FailoverTest, ServiceUnavailableOnFirstChannelIsAnsweredByTheSecond)
{
    startGateway();
    addRule(R"({"provider":"alpha","error_rate":1,"failure":"status:503"})");

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->json().value("model").toString(), kModelA);
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelA);
    const QJsonArray trace = attempts(*client);
    // A plain single-model request gives the failing channel one more try before moving on.
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error", "ok"}));
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "alpha", "beta"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("503"));
    EXPECT_EQ(hits("alpha"), 2);
    EXPECT_EQ(hits("beta"), 1);
}

struct FailoverCase {
    const char *name;
    const char *rule;             // simulator rule for provider alpha; empty: alpha's port is closed
    qint64 alphaHits;             // 2 when the same channel is retried once, 1 otherwise
    const char *reasonFragment;   // in the first attempt's error
};

void PrintTo(const FailoverCase &c, std::ostream *out) { *out << c.name; }

class FailoverKindTest : public GatewayFixture, public ::testing::WithParamInterface<FailoverCase> {};

TEST_P(FailoverKindTest, FirstChannelFailureFailsOverToTheSecond)
{
    const FailoverCase &c = GetParam();
    config::Config config = baseConfig();
    channel(config, "alpha").timeouts.firstByte = 400ms;
    if (QByteArray(c.rule).isEmpty())
        channel(config, "alpha").baseUrl = QStringLiteral("http://127.0.0.1:%1/alpha/v1").arg(closedPort());
    startGateway(std::move(config));
    if (!QByteArray(c.rule).isEmpty())
        addRule(c.rule);

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta");
    EXPECT_FALSE(client->json().value("choices").toArray().isEmpty());

    const QJsonArray trace = attempts(*client);
    const int alphaAttempts = QByteArray(c.rule).isEmpty() ? 2 : int(c.alphaHits);
    ASSERT_EQ(trace.size(), alphaAttempts + 1) << client->header("x-tsarrouter-attempts").constData();
    for (int i = 0; i < alphaAttempts; ++i) {
        const QJsonObject attempt = trace.at(i).toObject();
        EXPECT_EQ(attempt.value("provider").toString(), "alpha");
        EXPECT_EQ(attempt.value("status").toString(), "error");
        EXPECT_TRUE(attempt.value("error").toString().contains(c.reasonFragment))
            << attempt.value("error").toString().toStdString();
    }
    EXPECT_EQ(trace.last().toObject().value("provider").toString(), "beta");
    EXPECT_EQ(trace.last().toObject().value("status").toString(), "ok");
    EXPECT_EQ(hits("alpha"), c.alphaHits);
    EXPECT_EQ(hits("beta"), 1);
    EXPECT_TRUE(test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, FailoverKindTest,
    ::testing::Values(
        // A rate-limited credential is skipped until it recovers (SPEC §3.6): no retry of it.
        FailoverCase{"RateLimited429", R"({"provider":"alpha","failure":"status:429"})", 1, "HTTP 429"},
        FailoverCase{"ServerError500", R"({"provider":"alpha","failure":"status:500"})", 2, "HTTP 500"},
        FailoverCase{"Unavailable503", R"({"provider":"alpha","failure":"status:503"})", 2, "HTTP 503"},
        FailoverCase{"Reset", R"({"provider":"alpha","failure":"reset"})", 2, "reset"},
        FailoverCase{"HangPastFirstByteTimeout", R"({"provider":"alpha","failure":"hang"})", 2, "first_byte_timeout"},
        FailoverCase{"Empty200", R"({"provider":"alpha","failure":"empty_200"})", 2, "no choices"},
        FailoverCase{"MalformedBody", R"({"provider":"alpha","failure":"malformed_sse"})", 2, "not a JSON object"},
        FailoverCase{"ConnectionRefused", "", 0, "connect"},
        // The channel's own credential is at fault: move on at once, no retry of the same one.
        FailoverCase{"Unauthorized401", R"({"provider":"alpha","failure":"status:401"})", 1, "HTTP 401"},
        FailoverCase{"Forbidden403", R"({"provider":"alpha","failure":"status:403"})", 1, "HTTP 403"}),
    [](const ::testing::TestParamInfo<FailoverCase> &info) { return std::string(info.param.name); });

class ClientErrorTest : public GatewayFixture, public ::testing::WithParamInterface<int> {};

TEST_P(ClientErrorTest, UpstreamClientErrorIsReturnedAtOnceWithoutFailover)
{
    const int status = GetParam();
    startGateway();
    addRule(QStringLiteral(R"({"provider":"alpha","failure":"status:%1"})").arg(status).toUtf8());

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), status) << client->body().constData();
    // The upstream's own body, as it sent it.
    const QJsonObject error = client->json().value("error").toObject();
    EXPECT_TRUE(error.value("message").toString().contains("chat-a-up")) << client->body().constData();
    EXPECT_FALSE(error.value("type").toString().isEmpty());
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
}

INSTANTIATE_TEST_SUITE_P(Statuses, ClientErrorTest, ::testing::Values(400, 404, 413, 422));

TEST_F(FailoverTest, SingleChannelIsRetriedExactlyOnceThenAllFailed)
{
    config::Config config = baseConfig();
    config.settings.retryPauseMs = 150;
    startGateway(std::move(config));
    addRule(R"({"provider":"gamma","failure":"status:503"})");

    const auto client = chat(chatBody(kModelB));
    ASSERT_EQ(client->status(), 502) << client->body().constData();
    EXPECT_EQ(hits("gamma"), 2);
    // The retry waited for the configured pause.
    EXPECT_GE(client->elapsedMs(), 150);
    const QJsonArray trace = client->json().value("error").toObject().value("metadata").toObject()
                                 .value("attempts").toArray();
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error"}));
    EXPECT_EQ(attemptProviders(trace), (QStringList{"gamma", "gamma"}));
}

TEST_F(FailoverTest, AllChannelsFailedIs502WithAttemptsAndNoTraceHeaders)
{
    startGateway();
    addRule(R"({"failure":"status:503"})");

    const auto client = chat(chatBody(kModelA));
    ASSERT_EQ(client->status(), 502) << client->body().constData();
    const QJsonObject error = client->json().value("error").toObject();
    EXPECT_EQ(error.value("message").toString(), "All providers failed for model acme/chat-a");
    EXPECT_EQ(error.value("type").toString(), "api_error");
    const QJsonArray trace = error.value("metadata").toObject().value("attempts").toArray();
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "alpha", "beta", "beta"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "error", "error", "error"}));
    for (const QJsonValue &attempt : trace) {
        EXPECT_EQ(attempt.toObject().value("model").toString(), kModelA);
        EXPECT_TRUE(attempt.toObject().value("error").toString().contains("503"));
    }
    for (const QByteArray &name : client->headerNames())
        EXPECT_FALSE(name.startsWith("x-tsarrouter-")) << name.constData();
    EXPECT_FALSE(client->header("x-request-id").isEmpty());
    EXPECT_EQ(hits("alpha"), 2);
    EXPECT_EQ(hits("beta"), 2);
    EXPECT_EQ(gateway->counters().failed, 1u);
}

TEST_F(FailoverTest, AllModelsOfChainFailedNamesTheChain)
{
    startGateway();
    addRule(R"({"failure":"status:500"})");

    const auto client = chat(chatBody(kModelA, {{"models", QJsonArray{kModelA, kModelB}}}));
    ASSERT_EQ(client->status(), 502) << client->body().constData();
    const QJsonObject error = client->json().value("error").toObject();
    EXPECT_EQ(error.value("message").toString(), "All providers failed for model chain [acme/chat-a, acme/chat-b]");
    const QJsonArray trace = error.value("metadata").toObject().value("attempts").toArray();
    // Chains try each candidate once.
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta", "gamma"}));
    for (const QByteArray &name : client->headerNames())
        EXPECT_FALSE(name.startsWith("x-tsarrouter-")) << name.constData();
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 1);
    EXPECT_EQ(hits("gamma"), 1);
}

} // namespace
} // namespace sy::integration
