// Routing rules end to end: X-Simulate-Fail (SPEC §7), the attempt cap (§4), incapable fallbacks
// in the attempts header (§3.3, §6), :nitro / :floor tiers and conversation stickiness (§3.5),
// health ordering (§4), the model list and /metrics (§2, §10).
#include "GatewayFixture.h"

#include <QSysInfo>

#include "billing/Money.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

// The messages of a conversation: these user turns, with an assistant answer between them.
QJsonArray conversation(const QStringList &userTurns)
{
    QJsonArray messages;
    for (const QString &text : userTurns) {
        if (!messages.isEmpty())
            messages.append(QJsonObject{{"role", "assistant"}, {"content", "Noted."}});
        messages.append(QJsonObject{{"role", "user"}, {"content", text}});
    }
    return messages;
}

// A chat body without a `provider` object: the default (weighted random) order applies.
QByteArray defaultOrderBody(const QString &model, const QJsonArray &messages, const QJsonObject &extra = {})
{
    QJsonObject body{{"model", model}, {"messages", messages}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// {"provider": {field: channels}}, e.g. provider("order", {"beta", "alpha"}).
QJsonObject provider(const char *field, const QStringList &channels)
{
    return QJsonObject{{"provider", QJsonObject{{field, QJsonArray::fromStringList(channels)}}}};
}

class RoutingRulesTest : public GatewayFixture {
protected:
    // beta costs 100× alpha: the default order (weight ∝ 1/price²) puts alpha first for all but
    // about 1 request in 10'000, so a default-order request answered by beta proves stickiness,
    // and one answered by beta while alpha works proves a health demotion.
    config::Config skewedPrices() const
    {
        config::Config config = baseConfig();
        channel(config, "beta").models.front().price = {100.0, 200.0};
        return config;
    }

    // A list in `error.metadata` of a 502: "attempts" or "filtered".
    static QJsonArray errorMetadata(const GatewayClient &client, const char *field = "attempts")
    {
        return client.json().value("error").toObject().value("metadata").toObject().value(field).toArray();
    }

    // A conversation's first turn, pinned to beta by provider.order; `extra` and `headers` carry hints.
    void openOnBeta(const QString &text, const QJsonObject &extra = {}, const RequestHeaders &headers = {})
    {
        QJsonObject fields = extra;
        fields.insert("provider", provider("order", {"beta"}).value("provider"));
        fields.insert("messages", conversation({text}));
        const auto first = chat(chatBody(kModelA, fields), headers);
        ASSERT_EQ(first->status(), 200) << first->body().constData();
        ASSERT_EQ(first->header("x-tsarrouter-provider"), "beta");
    }
};

// --- X-Simulate-Fail (SPEC §7) ---

TEST_F(RoutingRulesTest, SimulateFailOfThePrimaryLetsTheFallbackAnswerWithoutContactingIt)
{
    startGateway();
    const auto client = chat(chatBody(kModelA, {{"models", QJsonArray{kModelB}}}), {{"X-Simulate-Fail", kModelA}});
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "gamma");
    EXPECT_EQ(client->header("x-tsarrouter-model"), kModelB);
    const QJsonArray trace = attempts(*client);
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"simulated_fail", "simulated_fail", "ok"}));
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "beta", "gamma"}));
    EXPECT_EQ(hitsForModel("chat-a-up"), 0);
    EXPECT_EQ(hits("gamma"), 1);
}

TEST_F(RoutingRulesTest, SimulateFailOnAStreamGivesOneCleanAnswerFromTheFallback)
{
    startGateway();
    const auto client = chat(streamBody(kModelA, {{"models", QJsonArray{kModelB}}}), {{"X-Simulate-Fail", kModelA}});
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_TRUE(client->header("content-type").startsWith("text/event-stream"));
    EXPECT_EQ(client->header("x-tsarrouter-provider"), "gamma");
    EXPECT_EQ(attemptStatuses(attempts(*client)), (QStringList{"simulated_fail", "simulated_fail", "ok"}));
    const QList<QByteArray> events = client->sseData();
    ASSERT_GE(events.size(), 2) << client->body().constData();
    EXPECT_EQ(events.last(), "[DONE]");
    for (qsizetype i = 0; i + 1 < events.size(); ++i) {
        const QJsonObject chunk = QJsonDocument::fromJson(events.at(i)).object();
        EXPECT_FALSE(chunk.contains("error")) << events.at(i).constData();
        EXPECT_EQ(chunk.value("model").toString(), kModelB) << events.at(i).constData();
    }
    EXPECT_EQ(hitsForModel("chat-a-up"), 0);
}

TEST_F(RoutingRulesTest, SimulateFailNamingEveryModelGivesTheNormal502)
{
    startGateway();
    const auto chain = chat(chatBody(kModelA, {{"models", QJsonArray{kModelB}}}),
                            {{"X-Simulate-Fail", QByteArray(kModelA) + ", " + kModelB}});
    ASSERT_EQ(chain->status(), 502) << chain->body().constData();
    EXPECT_EQ(openAiError(*chain, "api_error").value("message").toString(),
              "All providers failed for model chain [acme/chat-a, acme/chat-b]");
    EXPECT_FALSE(chain->hasHeader("x-tsarrouter-attempts"));
    EXPECT_EQ(attemptStatuses(errorMetadata(*chain)), (QStringList{"simulated_fail", "simulated_fail", "simulated_fail"}));

    const auto single = chat(streamBody(kModelB), {{"X-Simulate-Fail", kModelB}});
    ASSERT_EQ(single->status(), 502) << single->body().constData();
    EXPECT_EQ(openAiError(*single, "api_error").value("message").toString(), "All providers failed for model acme/chat-b");
    EXPECT_EQ(sim->stats().requests(), 0);
}

TEST_F(RoutingRulesTest, SimulateFailCostsNothingOnAMeteredWorkspace)
{
    config::Config config = baseConfig();
    config.balance = 1.0;
    startGateway(config);
    const QByteArray everyModel = QByteArray(kModelA) + "," + kModelB;
    EXPECT_EQ(chat(chatBody(kModelA, {{"models", QJsonArray{kModelB}}}), {{"X-Simulate-Fail", everyModel}})->status(), 502);
    EXPECT_EQ(chat(streamBody(kModelA), {{"X-Simulate-Fail", everyModel}})->status(), 502);

    test::processEventsFor(200ms);  // charges are booked shortly after completion: give them the chance
    const billing::Ledger &ledger = gateway->state().ledger;
    EXPECT_TRUE(ledger.entries().empty());
    EXPECT_EQ(ledger.balance(), billing::fromCurrency(1.0));
    EXPECT_EQ(ledger.reservationsInFlight(), 0);
    EXPECT_EQ(sim->stats().requests(), 0);
}

// --- attempt cap and incapable fallbacks (SPEC §4, §3.3) ---

TEST_F(RoutingRulesTest, AttemptCapOfOneMakesExactlyOneUpstreamAttemptThen502)
{
    config::Config config = baseConfig();
    config.settings.maxAttempts = 1;
    startGateway(config);
    addRule(R"({"provider":"alpha","failure":"status:503"})");
    addRule(R"({"provider":"beta","failure":"status:503"})");

    for (const bool stream : {false, true}) {
        SCOPED_TRACE(stream ? "stream" : "plain");
        const qint64 before = hits("alpha") + hits("beta");
        const auto client = chat(stream ? streamBody(kModelA) : chatBody(kModelA));
        ASSERT_EQ(client->status(), 502) << client->body().constData();
        EXPECT_EQ(openAiError(*client, "api_error").value("message").toString(), "All providers failed for model acme/chat-a");
        EXPECT_EQ(hits("alpha") + hits("beta") - before, 1);
        EXPECT_EQ(attemptStatuses(errorMetadata(*client)), QStringList{"error"});
    }
}

TEST_F(RoutingRulesTest, IncapableFallbackShowsAsSkippedInTheAttempts)
{
    config::Config config = baseConfig();
    config.models.front().capabilities = {"chat", "vision"};  // acme/chat-a sees images, acme/chat-b does not
    startGateway(config);
    const QJsonArray image{QJsonObject{{"role", "user"}, {"content", QJsonArray{
        QJsonObject{{"type", "text"}, {"text", "What is on this picture?"}},
        QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", "data:image/png;base64,AAAA"}}}}}}}};
    const QByteArray body = chatBody(kModelA, {{"models", QJsonArray{kModelB}}, {"messages", image}});

    const auto served = chat(body);
    ASSERT_EQ(served->status(), 200) << served->body().constData();
    EXPECT_EQ(served->header("x-tsarrouter-provider"), "alpha");
    const QJsonArray trace = attempts(*served);
    const auto skipped = std::find_if(trace.begin(), trace.end(), [](const QJsonValue &a) { return a.toObject().value("model") == kModelB; });
    ASSERT_NE(skipped, trace.end()) << served->header("x-tsarrouter-attempts").constData();
    EXPECT_EQ((*skipped).toObject().value("status").toString(), "skipped");
    EXPECT_TRUE((*skipped).toObject().value("error").toString().contains("image"));
    EXPECT_EQ(attemptStatuses(trace).last(), "ok");

    // When the primary fails, the incapable fallback is still never sent the request.
    addRule(R"({"model":"chat-a-up","failure":"status:503"})");
    const auto failed = chat(body);
    ASSERT_EQ(failed->status(), 502) << failed->body().constData();
    EXPECT_TRUE(attemptStatuses(errorMetadata(*failed)).contains("skipped")) << failed->body().constData();
    EXPECT_EQ(hits("gamma"), 0);
}

// --- tiers and order (SPEC §3.5, §4) ---

TEST_F(RoutingRulesTest, NitroAdmitsPriorityTierAndFloorAdmitsFlexTier)
{
    config::Config config = baseConfig();
    channel(config, "beta").tier = "priority";
    config::Channel delta = channel(config, "beta");
    delta.id = delta.provider = "delta";
    delta.baseUrl = simBaseUrl("delta");
    delta.tier = "flex";
    config.channels.push_back(delta);
    startGateway(config);

    const struct { QString model; QString only; int status; } rows[] = {
        {kModelA, "beta", 502}, {kModelA, "delta", 502},
        {QString(kModelA) + ":nitro", "beta", 200}, {QString(kModelA) + ":nitro", "delta", 502},
        {QString(kModelA) + ":floor", "delta", 200}, {QString(kModelA) + ":floor", "beta", 502},
    };
    for (const auto &row : rows) {
        SCOPED_TRACE((row.model + " only " + row.only).toStdString());
        const auto client = chat(chatBody(row.model, provider("only", {row.only})));
        ASSERT_EQ(client->status(), row.status) << client->body().constData();
        if (row.status == 200) {
            EXPECT_EQ(client->header("x-tsarrouter-provider"), row.only.toUtf8());
            EXPECT_EQ(client->header("x-tsarrouter-model"), kModelA);
        } else {
            EXPECT_TRUE(QJsonDocument(errorMetadata(*client, "filtered")).toJson().contains("tier")) << client->body().constData();
        }
    }
    EXPECT_EQ(hits("beta"), 1);
    EXPECT_EQ(hits("delta"), 1);
}

TEST_F(RoutingRulesTest, ConversationStaysOnTheChannelThatServedIt)
{
    startGateway(skewedPrices());
    openOnBeta("Plan a trip through the switchyard.");
    QStringList turns{"Plan a trip through the switchyard."};
    for (int turn = 2; turn <= 4; ++turn) {
        turns.append(QStringLiteral("Turn %1.").arg(turn));
        const auto next = chat(defaultOrderBody(kModelA, conversation(turns)));
        ASSERT_EQ(next->status(), 200) << next->body().constData();
        EXPECT_EQ(next->header("x-tsarrouter-provider"), "beta") << "turn " << turn;
    }
    // Another conversation goes where the default order sends it.
    const auto other = chat(defaultOrderBody(kModelA, conversation({"Something else entirely."})));
    EXPECT_EQ(other->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(hits("beta"), 4);
}

TEST_F(RoutingRulesTest, SessionIdOrUserKeepsAConversationOnItsChannel)
{
    startGateway(skewedPrices());
    const struct { const char *name; RequestHeaders headers; QJsonObject extra; } hints[] = {
        {"x-session-id", {{"x-session-id", "session-42"}}, {}},
        {"user", {}, {{"user", "user-42"}}},
    };
    for (const auto &hint : hints) {
        SCOPED_TRACE(hint.name);
        openOnBeta(QStringLiteral("Opening via %1.").arg(hint.name), hint.extra, hint.headers);
        // Different messages: only the hint ties this turn to the first.
        const auto next = chat(defaultOrderBody(kModelA, conversation({QStringLiteral("Unrelated text %1.").arg(hint.name)}), hint.extra),
                               hint.headers);
        ASSERT_EQ(next->status(), 200) << next->body().constData();
        EXPECT_EQ(next->header("x-tsarrouter-provider"), "beta");
    }
}

TEST_F(RoutingRulesTest, ConversationMovesWhenItsChannelFailedRecently)
{
    startGateway(skewedPrices());
    openOnBeta("Plan a trip through the switchyard.");
    // Another conversation makes beta fail (twice: the plain request retries it once).
    addRule(R"({"provider":"beta","failure":"status:503"})");
    const auto broken = chat(chatBody(kModelA, provider("order", {"beta", "alpha"})));
    ASSERT_EQ(broken->status(), 200) << broken->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*broken)), (QStringList{"error", "error", "ok"}));
    sim->state().rules.clear();  // beta would answer again: only its recent failures keep it away
    const qint64 betaBefore = hits("beta");

    const auto next = chat(defaultOrderBody(kModelA, conversation({"Plan a trip through the switchyard.", "And back?"})));
    ASSERT_EQ(next->status(), 200) << next->body().constData();
    EXPECT_EQ(next->header("x-tsarrouter-provider"), "alpha");
    EXPECT_EQ(hits("beta"), betaBefore);
}

TEST_F(RoutingRulesTest, ChannelFailingThreeTimesInARowIsOrderedLast)
{
    startGateway(skewedPrices());  // the default order would put alpha first
    addRule(R"({"provider":"alpha","failure":"status:503"})");
    for (int i = 0; i < 3; ++i) {
        // A chain: no retry of the same channel, so alpha fails exactly once per request.
        EXPECT_EQ(chat(chatBody(kModelA, {{"models", QJsonArray{kModelB}}}))->header("x-tsarrouter-provider"), "beta");
    }
    ASSERT_EQ(hits("alpha"), 3);
    EXPECT_EQ(gateway->state().health.state("alpha"), failover::HealthState::CoolingDown);
    sim->state().rules.clear();

    for (int i = 0; i < 5; ++i) {
        const auto client = chat(defaultOrderBody(kModelA, conversation({QStringLiteral("Request %1.").arg(i)})));
        ASSERT_EQ(client->status(), 200) << client->body().constData();
        EXPECT_EQ(client->header("x-tsarrouter-provider"), "beta") << "request " << i;
    }
    EXPECT_EQ(hits("alpha"), 3);

    // Last, not gone: when beta fails, alpha answers after it.
    addRule(R"({"provider":"beta","failure":"status:503"})");
    const auto last = chat(defaultOrderBody(kModelA, conversation({"The last one."})));
    ASSERT_EQ(last->status(), 200) << last->body().constData();
    const QStringList providers = attemptProviders(attempts(*last));
    EXPECT_EQ(providers.first(), "beta");
    EXPECT_EQ(providers.last(), "alpha");
}

// --- model list and metrics (SPEC §2, §10) ---

TEST_F(RoutingRulesTest, ModelListShowsDeprecationAndPricing)
{
    startGateway();
    const auto client = call("GET", "/v1/models");
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonArray data = client->json().value("data").toArray();
    const auto it = std::find_if(data.begin(), data.end(), [](const QJsonValue &m) { return m.toObject().value("id") == kModelOld; });
    ASSERT_NE(it, data.end()) << client->body().constData();
    const QJsonObject old = (*it).toObject();
    EXPECT_EQ(old.value("deprecated").toString(), "2099-12-31") << client->body().constData();
    EXPECT_DOUBLE_EQ(old.value("pricing").toObject().value("prompt").toDouble(), 0.5);
    EXPECT_DOUBLE_EQ(old.value("pricing").toObject().value("completion").toDouble(), 0.5);
}

TEST_F(RoutingRulesTest, MetricsShowRequestsTtftAndHealthWithoutAKey)
{
    startGateway();
    const auto streamed = chat(streamBody(kModelA));
    ASSERT_EQ(streamed->status(), 200) << streamed->body().constData();
    ASSERT_TRUE(test::waitUntil([this] { return gateway->counters().byStatus.value(200) == 1; }, 3s));

    GatewayClient scrape(gatewayPort);
    scrape.send("GET", "/metrics");
    ASSERT_TRUE(scrape.waitForEnd());
    ASSERT_EQ(scrape.status(), 200) << scrape.body().constData();
    EXPECT_TRUE(scrape.header("content-type").startsWith("text/plain"));
    const QByteArray text = scrape.body();
    // Without instance_name the instance is this host and the listening port.
    const QByteArray instance = "instance=\"" + QSysInfo::machineHostName().toUtf8() + ':' + QByteArray::number(gatewayPort) + '"';
    EXPECT_TRUE(text.contains("\nswitchyard_requests_total{" + instance + ",status=\"200\"} 1\n")) << text.constData();
    EXPECT_TRUE(text.contains("\nswitchyard_upstream_ttft_seconds{" + instance + ",channel=\"alpha\",model=\"acme/chat-a\",quantile=\"0.5\"} "))
        << text.constData();
    EXPECT_TRUE(text.contains("\nswitchyard_channel_health{" + instance + ",channel=\"alpha\",state=\"healthy\"} 1\n")) << text.constData();
    EXPECT_TRUE(text.contains("\nswitchyard_requests_failed_over_total{" + instance + "} ")) << text.constData();
}

TEST_F(RoutingRulesTest, MetricsLabelEverySeriesWithTheConfiguredInstanceName)
{
    config::Config config = baseConfig();
    config.instanceName = QStringLiteral("gw-\"east\"");
    startGateway(std::move(config));
    GatewayClient scrape(gatewayPort);
    scrape.send("GET", "/metrics");
    ASSERT_TRUE(scrape.waitForEnd());
    ASSERT_EQ(scrape.status(), 200);
    int samples = 0;
    for (const QByteArray &line : scrape.body().split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        ++samples;
        EXPECT_TRUE(line.contains("{instance=\"gw-\\\"east\\\"\"")) << line.constData();
    }
    EXPECT_GT(samples, 5);
}

} // namespace
} // namespace sy::integration
