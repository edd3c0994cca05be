// Credentials of a channel (SPEC §3.6, §4): each is its own attempt; one the upstream rate-limited
// is skipped until its retry-after has passed; one the upstream refused (401/402/403) is demoted
// behind the others; when every credential is rate limited the gateway answers 429 itself.
// CredentialRoutedUpstream sends each credential to its own simulator provider, so a rule can
// fail one credential and not the other.
#include "CredentialRoutedUpstream.h"
#include "GatewayFixture.h"

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class CredentialsTest : public GatewayFixture {
protected:
    // alpha and gamma get two credentials each, routed to simulator providers named after them.
    void startWithTwoCredentials()
    {
        config::Config config = baseConfig();
        channel(config, "alpha").credentials = {"alpha-k1", "alpha-k2"};
        channel(config, "gamma").credentials = {"gamma-k1", "gamma-k2"};
        QHash<QByteArray, QByteArray> routes;
        for (const char *credential : {"alpha-k1", "alpha-k2", "gamma-k1", "gamma-k2"})
            routes.insert(credential, credential);
        startGateway(std::move(config), std::make_unique<CredentialRoutedUpstream>(routes));
    }
};

TEST_F(CredentialsTest, RateLimitedCredentialIsSkippedUntilItsRetryAfter)
{
    startWithTwoCredentials();
    addRule(R"({"provider":"alpha-k1","failure":"status:429","retry_after_s":30})");

    // The first credential is refused; the second one of the same channel answers.
    const auto first = chat(chatBody(kModelA));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    EXPECT_EQ(first->header("x-tsarrouter-provider"), "alpha");
    QJsonArray trace = attempts(*first);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "alpha"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "ok"}));
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("429"));
    EXPECT_EQ(hits("alpha-k1"), 1);
    EXPECT_EQ(hits("alpha-k2"), 1);
    EXPECT_TRUE(gateway->state().credentials.isRateLimited("alpha", 0));

    // The next request does not ask the rate-limited credential again.
    const auto second = chat(chatBody(kModelA));
    ASSERT_EQ(second->status(), 200) << second->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*second)), QStringList{"ok"});
    EXPECT_EQ(hits("alpha-k1"), 1);
    EXPECT_EQ(hits("alpha-k2"), 2);

    // When the other credential fails too, the trace shows the skip before moving to beta.
    addRule(R"({"provider":"alpha-k2","failure":"status:503"})");
    const auto third = chat(streamBody(kModelA));
    ASSERT_EQ(third->status(), 200) << third->body().constData();
    trace = attempts(*third);
    EXPECT_EQ(attemptProviders(trace), (QStringList{"alpha", "alpha", "beta"}));
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"error", "skipped", "ok"}));
    EXPECT_TRUE(trace.at(1).toObject().value("error").toString().contains("rate limited"))
        << trace.at(1).toObject().value("error").toString().toStdString();
    EXPECT_FALSE(trace.at(1).toObject().contains("latency_ms"));
    EXPECT_EQ(hits("alpha-k1"), 1);
    EXPECT_EQ(hits("beta"), 1);
}

TEST_F(CredentialsTest, RefusedCredentialIsDemotedBehindTheOther)
{
    startWithTwoCredentials();
    addRule(R"({"provider":"gamma-k1","failure":"status:401"})");

    const auto first = chat(chatBody(kModelB));
    ASSERT_EQ(first->status(), 200) << first->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*first)), (QStringList{"error", "ok"}));
    EXPECT_TRUE(gateway->state().credentials.isDemoted("gamma", 0));

    // Demoted, not dropped: the working credential goes first now.
    const auto second = chat(chatBody(kModelB));
    ASSERT_EQ(second->status(), 200) << second->body().constData();
    EXPECT_EQ(attemptStatuses(attempts(*second)), QStringList{"ok"});
    EXPECT_EQ(hits("gamma-k1"), 1);
    EXPECT_EQ(hits("gamma-k2"), 2);
}

TEST_F(CredentialsTest, EveryCredentialRateLimitedIs429WithoutUpstreamCalls)
{
    startWithTwoCredentials();
    addRule(R"({"provider":"gamma-k1","failure":"status:429","retry_after_s":30})");
    addRule(R"({"provider":"gamma-k2","failure":"status:429","retry_after_s":20})");

    // Both credentials are asked once (a 429 is not retried on the same credential) and both refuse.
    const auto first = chat(chatBody(kModelB));
    ASSERT_EQ(first->status(), 502) << first->body().constData();
    EXPECT_EQ(hits("gamma-k1"), 1);
    EXPECT_EQ(hits("gamma-k2"), 1);

    const auto second = chat(chatBody(kModelB));
    ASSERT_EQ(second->status(), 429) << second->body().constData();
    const QJsonObject error = openAiError(*second, "rate_limit_exceeded");
    EXPECT_EQ(error.value("message").toString(), "all upstream credentials for this model are rate limited");
    // Until the first of them recovers.
    const int retryAfter = second->header("retry-after").toInt();
    EXPECT_GE(retryAfter, 15);
    EXPECT_LE(retryAfter, 21);
    const QJsonArray trace = error.value("metadata").toObject().value("attempts").toArray();
    EXPECT_EQ(attemptStatuses(trace), (QStringList{"skipped", "skipped"}));
    EXPECT_EQ(hits("gamma-k1"), 1);
    EXPECT_EQ(hits("gamma-k2"), 1);

    // A model with a usable channel is not affected.
    EXPECT_EQ(chat(chatBody(kModelA))->status(), 200);
}

TEST_F(CredentialsTest, KeychainReferenceThatWasNotResolvedIsNeverSentUpstream)
{
    // A credential the OS keychain did not return at start stays a reference in the running
    // configuration: it is skipped with the reason, never sent as a Bearer token.
    config::Config config = baseConfig();
    channel(config, "alpha").credentials = {"switchyard-vault:space/0123456789abcdef"};
    startGateway(std::move(config), std::make_unique<CredentialRoutedUpstream>(
                                        QHash<QByteArray, QByteArray>{{"switchyard-vault:space/0123456789abcdef", "leaked"}}));
    const auto answered = chat(chatBody(kModelA, {{"provider", QJsonObject{{"order", QJsonArray{"alpha"}}}}}));
    ASSERT_EQ(answered->status(), 200) << answered->body().constData();
    EXPECT_NE(answered->header("x-tsarrouter-provider"), "alpha");
    const QJsonArray trace = attempts(*answered);
    ASSERT_GE(trace.size(), 2);
    EXPECT_EQ(trace.first().toObject().value("provider").toString(), "alpha");
    EXPECT_EQ(trace.first().toObject().value("status").toString(), "skipped");
    EXPECT_TRUE(trace.first().toObject().value("error").toString().contains("keychain"))
        << trace.first().toObject().value("error").toString().toStdString();
    EXPECT_EQ(hits("leaked"), 0);
    EXPECT_EQ(hits("alpha"), 0);
}

} // namespace
} // namespace sy::integration
