// Secrets never leave the gateway: a canary upstream credential and a canary key secret are
// configured, plain, streamed, failing and admin requests are made, and neither canary appears in
// any response body or header, /metrics, the admin listings, the request log, the event stream,
// or what the program prints. (The database may hold credentials; it is created 0600.)
#include "AdminFixture.h"
#include "ProcessFixture.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

// Every byte a client was shown: status line aside, the headers and the body.
QByteArray everythingSeen(const GatewayClient &client)
{
    QByteArray seen;
    for (const QByteArray &name : client.headerNames())
        seen += name + ": " + client.header(name) + "\n";
    return seen + client.body();
}

void expectNoCanary(const QByteArray &text, const char *where)
{
    EXPECT_FALSE(text.contains(kCanaryCredential)) << "credential canary in " << where << ":\n" << text.constData();
    EXPECT_FALSE(text.contains(kProcessKeySecret)) << "key secret canary in " << where << ":\n" << text.constData();
}

class SecretsCanaryTest : public AdminFixture {};

TEST_F(SecretsCanaryTest, CanariesAppearInNoResponseListingLogOrMetric)
{
    config::Config config = adminConfig();
    channel(config, "alpha").credentials = {kCanaryCredential};
    config::Key canaryKey;
    canaryKey.name = "canary";
    canaryKey.secretSha256 = QCryptographicHash::hash(kProcessKeySecret, QCryptographicHash::Sha256).toHex();
    config.keys.push_back(canaryKey);
    startGateway(std::move(config));

    auto events = send("GET", "/admin/events", {}, {{"Authorization", QByteArray("Bearer ") + kAdminToken}});
    ASSERT_TRUE(events->waitForHeaders());
    std::vector<std::unique_ptr<GatewayClient>> seen;
    seen.push_back(chatAs(kProcessKeySecret, chatBody(integration::kModelA)));
    EXPECT_EQ(seen.back()->status(), 200);
    seen.push_back(chatAs(kProcessKeySecret, streamBody(integration::kModelA)));
    EXPECT_EQ(seen.back()->status(), 200);
    // Failing requests: upstream refusals and errors, a credential offered as a key, a bad body.
    addRule(R"({"provider":"alpha","failure":"status:401"})");
    addRule(R"({"provider":"beta","failure":"status:500"})");
    seen.push_back(chatAs(kProcessKeySecret, chatBody(integration::kModelA, {{"provider", QJsonObject{{"only", QJsonArray{"alpha", "beta"}}}}})));
    EXPECT_NE(seen.back()->status(), 200);
    seen.push_back(chatAs(kProcessKeySecret, streamBody(integration::kModelA, {{"provider", QJsonObject{{"only", QJsonArray{"alpha", "beta"}}}}})));
    seen.push_back(chatAs(kCanaryCredential, chatBody(integration::kModelA)));
    EXPECT_EQ(seen.back()->status(), 401);
    seen.push_back(chatAs(kProcessKeySecret, QByteArray("{\"model\": \"") + kCanaryCredential + "\"}"));
    seen.push_back(call("GET", "/admin/channels", {}, {{"Authorization", QByteArray("Bearer ") + kCanaryCredential}}));
    EXPECT_EQ(seen.back()->status(), 401);
    seen.push_back(admin("PATCH", "/admin/channels/alpha", QJsonObject{{"credentials", QJsonArray{kCanaryCredential, ""}}}));
    EXPECT_EQ(seen.back()->status(), 400);
    ASSERT_TRUE(events->waitForEvents(6, 3s)) << events->body().constData();

    for (const char *path : {"/admin/channels", "/admin/channels/alpha", "/admin/keys", "/admin/keys/canary",
                             "/admin/config", "/admin/config?format=json", "/admin/settings", "/admin/requests?limit=1000",
                             "/admin/ledger", "/admin/balance", "/admin/outages", "/admin/virtual-models"}) {
        seen.push_back(admin("GET", path));
        EXPECT_EQ(seen.back()->status(), 200) << path;
    }
    for (const QJsonValue &record : adminList("/admin/requests?limit=1000"))
        seen.push_back(admin("GET", "/admin/requests/" + record.toObject().value("id").toString().toLatin1()));
    for (const char *path : {"/metrics", "/health", "/v1/models"})
        seen.push_back(call("GET", path));

    for (const auto &client : seen)
        expectNoCanary(everythingSeen(*client), "a response");
    expectNoCanary(everythingSeen(*events), "the event stream");
    events->disconnect();
    // The canary itself is still in use: a request through alpha still carries it upstream.
    EXPECT_TRUE(admin("GET", "/admin/config?secrets=1")->body().contains(kCanaryCredential));
}

class ProgramCanaryTest : public ProcessFixture {};

TEST_F(ProgramCanaryTest, ProgramPrintsNeitherCanary)
{
    writeConfig(10);
    startGateway();
    std::vector<std::unique_ptr<GatewayClient>> seen;
    seen.push_back(chat(chatBody()));
    EXPECT_EQ(seen.back()->status(), 200);
    seen.push_back(chat(chatBody(true)));
    EXPECT_EQ(seen.back()->status(), 200);
    seen.push_back(chat(chatBody(), kCanaryCredential));
    EXPECT_EQ(seen.back()->status(), 401);
    seen.push_back(admin("POST", "/admin/outages", QJsonObject{{"channel", "alpha"}, {"kind", "error:503"}, {"duration_s", 30}}));
    EXPECT_EQ(seen.back()->status(), 201);
    seen.push_back(chat(chatBody()));
    EXPECT_NE(seen.back()->status(), 200);
    for (const char *path : {"/admin/channels", "/admin/keys", "/admin/config", "/admin/requests", "/metrics"})
        seen.push_back(admin("GET", path));
    ASSERT_TRUE(gateway.terminate());

    for (const auto &client : seen)
        expectNoCanary(everythingSeen(*client), "a response");
    expectNoCanary(gateway.standardOutput(), "the program's stdout");
    expectNoCanary(gateway.standardError(), "the program's stderr");
    EXPECT_EQ(databaseMode(), 0600);
}

} // namespace
} // namespace sy::system_test
