// The admin API's configuration routes (docs/admin-api.md): the token, CRUD of channels, models,
// virtual models, the default model and settings, validation as a whole, export and import, and
// edits applied at once while requests in flight keep the configuration they started with.
#include "AdminFixture.h"
#include "CredentialRoutedUpstream.h"
#include "service/AdminApi.h"

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;
using integration::kModelA;
using integration::kModelB;

class AdminConfigApiTest : public AdminFixture {};

TEST_F(AdminConfigApiTest, MissingOrWrongTokenIs401)
{
    startGateway(adminConfig());
    const auto none = call("GET", "/admin/channels", {}, {{"Authorization", ""}});
    EXPECT_EQ(none->status(), 401) << none->body().constData();
    const auto wrong = call("GET", "/admin/channels", {}, {{"Authorization", "Bearer sya-not-the-token"}});
    EXPECT_EQ(wrong->status(), 401) << wrong->body().constData();
    // A gateway key is not an admin token.
    const auto key = call("GET", "/admin/channels");
    EXPECT_EQ(key->status(), 401) << key->body().constData();
    EXPECT_FALSE(key->body().contains("alpha"));
    EXPECT_EQ(admin("GET", "/admin/channels")->status(), 200);
}

TEST_F(AdminConfigApiTest, ChannelCrudNeverShowsCredentialsAndPutWithoutThemKeepsThem)
{
    // The simulator ignores credentials: alpha's own provider always refuses, and only a request
    // carrying alpha's credential is routed to the provider "alpha-cred" that answers.
    config::Config config = adminConfig();
    config.channels.erase(config.channels.begin() + 1);  // no beta: alpha alone serves chat-a
    startGateway(std::move(config), std::make_unique<integration::CredentialRoutedUpstream>(
                                        QHash<QByteArray, QByteArray>{{"sk-upstream-alpha", "alpha-cred"}}));
    addRule(R"({"provider":"alpha","failure":"status:401"})");

    for (const QJsonValue &channel : adminList("/admin/channels")) {
        EXPECT_FALSE(channel.toObject().contains("credentials"));
        EXPECT_EQ(channel.toObject().value("credential_count").toInt(), 1);
    }
    const auto put = admin("PUT", "/admin/channels/alpha", QJsonObject{{"max_concurrent", 7}});
    ASSERT_EQ(put->status(), 200) << put->body().constData();
    EXPECT_FALSE(put->body().contains("sk-upstream-alpha"));
    EXPECT_EQ(put->json().value("credential_count").toInt(), 1);
    EXPECT_EQ(adminObject("/admin/channels/alpha").value("max_concurrent").toInt(), 7);

    const auto answered = chat(chatBody(kModelA));
    ASSERT_EQ(answered->status(), 200) << answered->body().constData();
    EXPECT_EQ(hits("alpha-cred"), 1);
    EXPECT_EQ(hits("alpha"), 0);

    const QJsonObject delta{{"id", "delta"}, {"provider", "delta"}, {"base_url", simBaseUrl("delta")},
                            {"credentials", QJsonArray{"sk-delta-1", "sk-delta-2"}},
                            {"models", QJsonArray{QJsonObject{{"id", kModelB}, {"upstream", "chat-b-up"}}}}};
    const auto created = admin("POST", "/admin/channels", delta);
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    EXPECT_FALSE(created->body().contains("sk-delta"));
    EXPECT_EQ(created->json().value("credential_count").toInt(), 2);
    EXPECT_EQ(admin("POST", "/admin/channels", delta)->status(), 409);
    const auto viaDelta = chat(chatBody(kModelB, {{"provider", QJsonObject{{"only", QJsonArray{"delta"}}}}}));
    ASSERT_EQ(viaDelta->status(), 200) << viaDelta->body().constData();
    EXPECT_EQ(hits("delta"), 1);

    EXPECT_EQ(admin("DELETE", "/admin/channels/delta")->status(), 200);
    EXPECT_EQ(admin("GET", "/admin/channels/delta")->status(), 404);
    EXPECT_EQ(adminList("/admin/channels").size(), 2);
}

TEST_F(AdminConfigApiTest, ModelIdsWithSlashesAreReadEditedCreatedAndDeleted)
{
    startGateway(adminConfig());
    EXPECT_EQ(adminObject("/admin/models/acme/chat-a").value("id").toString(), kModelA);
    const auto patched = admin("PATCH", "/admin/models/acme/chat-a", QJsonObject{{"context_length", 4096}});
    ASSERT_EQ(patched->status(), 200) << patched->body().constData();
    EXPECT_EQ(adminObject("/admin/models/acme/chat-a").value("context_length").toInt(), 4096);

    const auto created = admin("POST", "/admin/models", QJsonObject{{"id", "acme/extra/v2"}, {"free", true}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    EXPECT_TRUE(adminObject("/admin/models/acme/extra/v2").value("free").toBool());
    EXPECT_EQ(admin("DELETE", "/admin/models/acme/extra/v2")->status(), 200);
    EXPECT_EQ(admin("GET", "/admin/models/acme/extra/v2")->status(), 404);

    // Disabling a model takes effect on the next request.
    ASSERT_EQ(admin("PATCH", "/admin/models/acme/chat-b", QJsonObject{{"enabled", false}})->status(), 200);
    EXPECT_NE(chat(chatBody(kModelB))->status(), 200);
    EXPECT_EQ(hits("gamma"), 0);
}

TEST_F(AdminConfigApiTest, VirtualModelsDefaultModelAndSettingsApplyAtOnce)
{
    startGateway(adminConfig());
    const auto created = admin("POST", "/admin/virtual-models",
                               QJsonObject{{"id", "acme/smart"}, {"primary", kModelB}, {"fallbacks", QJsonArray{kModelA}}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    const auto viaVirtual = chat(chatBody("acme/smart"));
    ASSERT_EQ(viaVirtual->status(), 200) << viaVirtual->body().constData();
    EXPECT_EQ(hits("gamma"), 1);
    EXPECT_EQ(adminList("/admin/virtual-models").size(), 2);

    const auto setDefault = admin("PUT", "/admin/default-model", QJsonObject{{"default_model", "acme/smart"}});
    ASSERT_EQ(setDefault->status(), 200) << setDefault->body().constData();
    EXPECT_EQ(adminObject("/admin/default-model").value("default_model").toString(), "acme/smart");
    const auto unknownDefault = admin("PUT", "/admin/default-model", QJsonObject{{"default_model", "acme/none"}});
    EXPECT_EQ(unknownDefault->status(), 400) << unknownDefault->body().constData();
    EXPECT_EQ(adminObject("/admin/default-model").value("default_model").toString(), "acme/smart");

    // One attempt per request: a failing first channel is no longer failed over.
    addRule(R"({"provider":"alpha","failure":"status:503"})");
    const auto settings = admin("PATCH", "/admin/settings", QJsonObject{{"max_attempts", 1}});
    ASSERT_EQ(settings->status(), 200) << settings->body().constData();
    EXPECT_EQ(adminObject("/admin/settings").value("max_attempts").toInt(), 1);
    EXPECT_EQ(adminObject("/admin/settings").value("retry_pause_ms").toInt(), 20);  // untouched
    EXPECT_NE(chat(chatBody(kModelA))->status(), 200);
    EXPECT_EQ(hits("alpha"), 1);
    EXPECT_EQ(hits("beta"), 0);
}

TEST_F(AdminConfigApiTest, DefaultModelIsNullWhenNoneIsSetAndCanBeCleared)
{
    startGateway(adminConfig());
    const auto unset = admin("GET", "/admin/default-model");
    ASSERT_EQ(unset->status(), 200);
    EXPECT_TRUE(unset->json().contains("default_model")) << "docs: {\"default_model\": null}; got " << unset->body().constData();
    EXPECT_TRUE(unset->json().value("default_model").isNull()) << unset->body().constData();

    ASSERT_EQ(admin("PUT", "/admin/default-model", QJsonObject{{"default_model", kModelB}})->status(), 200);
    const auto viaDefault = chat(chatBody(""));
    EXPECT_EQ(viaDefault->status(), 200) << viaDefault->body().constData();
    const auto cleared = admin("PUT", "/admin/default-model", QJsonObject{{"default_model", QJsonValue(QJsonValue::Null)}});
    ASSERT_EQ(cleared->status(), 200) << cleared->body().constData();
    EXPECT_TRUE(cleared->json().value("default_model").isNull()) << cleared->body().constData();
    EXPECT_FALSE(admin("GET", "/admin/config")->body().contains("default_model: acme"));
}

TEST_F(AdminConfigApiTest, MaxBodyBytesEditAppliesWithoutRestart)
{
    startGateway(adminConfig());
    const auto settings = admin("PATCH", "/admin/settings", QJsonObject{{"max_body_bytes", 64}});
    ASSERT_EQ(settings->status(), 200) << settings->body().constData();
    EXPECT_EQ(adminObject("/admin/settings").value("max_body_bytes").toInt(), 64);
    const auto tooLarge = chat(chatBody(kModelA));
    EXPECT_EQ(tooLarge->status(), 413) << "a " << chatBody(kModelA).size() << "-byte body passed a 64-byte limit";
    EXPECT_EQ(hits("alpha"), tooLarge->status() == 413 ? 0 : 1);
}

TEST_F(AdminConfigApiTest, InvalidFieldIs400NamingItAndChangesNothing)
{
    startGateway(adminConfig());
    const QByteArray before = admin("GET", "/admin/config?format=json&secrets=1")->body();
    const auto refused = admin("PATCH", "/admin/channels/alpha", QJsonObject{{"timeouts", QJsonObject{{"connect_s", "soon"}}}});
    ASSERT_EQ(refused->status(), 400) << refused->body().constData();
    EXPECT_EQ(refused->json().value("error").toObject().value("param").toString(), "channels[0].timeouts.connect_s");
    const auto range = admin("PATCH", "/admin/settings", QJsonObject{{"retry_pause_ms", 999999}});
    ASSERT_EQ(range->status(), 400) << range->body().constData();
    EXPECT_EQ(range->json().value("error").toObject().value("param").toString(), "settings.retry_pause_ms");
    EXPECT_EQ(admin("GET", "/admin/config?format=json&secrets=1")->body(), before);
}

TEST_F(AdminConfigApiTest, InconsistentEditIsRefusedAsAWhole)
{
    startGateway(adminConfig());
    const QByteArray before = admin("GET", "/admin/config?format=json&secrets=1")->body();
    const auto loop = admin("POST", "/admin/virtual-models", QJsonObject{{"id", "acme/loop"}, {"primary", "acme/loop"}});
    EXPECT_EQ(loop->status(), 400) << loop->body().constData();
    const auto key = admin("POST", "/admin/keys", QJsonObject{{"name", "stray"}, {"allowed_models", QJsonArray{"acme/none"}}});
    EXPECT_EQ(key->status(), 400) << key->body().constData();
    EXPECT_FALSE(key->json().contains("secret"));
    // A virtual model may not point at another virtual model.
    const auto nested = admin("PATCH", "/admin/virtual-models/acme/auto", QJsonObject{{"fallbacks", QJsonArray{"acme/auto"}}});
    EXPECT_EQ(nested->status(), 400) << nested->body().constData();
    EXPECT_EQ(admin("GET", "/admin/config?format=json&secrets=1")->body(), before);
    EXPECT_EQ(chat(chatBody("acme/auto"))->status(), 200);
}

TEST_F(AdminConfigApiTest, ExportOmitsCredentialsUnlessSecretsAreAsked)
{
    config::Config config = adminConfig();
    channel(config, "alpha").credentials = {"canary-cred-7f3a"};
    startGateway(std::move(config));
    const auto yaml = admin("GET", "/admin/config");
    ASSERT_EQ(yaml->status(), 200);
    EXPECT_TRUE(yaml->header("content-type").contains("yaml"));
    EXPECT_TRUE(yaml->body().contains("alpha"));
    EXPECT_FALSE(yaml->body().contains("canary-cred-7f3a"));
    EXPECT_FALSE(yaml->body().contains(kAdminToken));
    const auto withSecrets = admin("GET", "/admin/config?secrets=1");
    ASSERT_EQ(withSecrets->status(), 200);
    EXPECT_TRUE(withSecrets->body().contains("canary-cred-7f3a"));
}

TEST_F(AdminConfigApiTest, PutConfigReplacesTheWholeConfiguration)
{
    startGateway(adminConfig());
    const QByteArray yaml = QStringLiteral("admin_token: %1\n"
                                           "channels:\n"
                                           "  - id: solo\n    provider: solo\n    base_url: %2\n"
                                           "    credentials: [sk-solo]\n"
                                           "    models: [{id: acme/solo, upstream: solo-up}]\n"
                                           "keys:\n  - name: main\n    secret: %3\n")
                                .arg(kAdminToken, simBaseUrl("solo"), integration::kSecret).toUtf8();
    const auto replaced = admin("PUT", "/admin/config", yaml);
    ASSERT_EQ(replaced->status(), 200) << replaced->body().constData();
    const QJsonArray channels = adminList("/admin/channels");
    ASSERT_EQ(channels.size(), 1);
    EXPECT_EQ(channels.first().toObject().value("id").toString(), "solo");
    EXPECT_EQ(chat(chatBody("acme/solo", {{"provider", QJsonObject{}}}))->status(), 200);
    EXPECT_EQ(hits("solo"), 1);
    EXPECT_NE(chat(chatBody(kModelA))->status(), 200);
    EXPECT_EQ(call("POST", "/v1/chat/completions", chatBody("acme/solo"),
                   {{"Authorization", QByteArray("Bearer ") + integration::kRestrictedSecret}})->status(), 401);
    const auto broken = admin("PUT", "/admin/config", "channels: [{id: x}]\n");
    EXPECT_EQ(broken->status(), 400) << broken->body().constData();
    EXPECT_EQ(adminList("/admin/channels").size(), 1);
}

TEST_F(AdminConfigApiTest, RequestInFlightKeepsItsConfigurationWhileANewOneSeesTheEdit)
{
    startGateway(adminConfig());
    addRule(R"({"provider":"alpha","latency_ms":600})");
    const auto inFlight = send("POST", "/v1/chat/completions", chatBody(kModelA));
    ASSERT_TRUE(test::waitUntil([this] { return hits("alpha") == 1; }, 3s));

    // Ten times the price at alpha, applied while the first request waits on the upstream.
    const QJsonArray models{QJsonObject{{"id", kModelA}, {"upstream", "chat-a-up"}, {"price", QJsonObject{{"prompt", 10.0}, {"completion", 20.0}}}},
                            QJsonObject{{"id", integration::kModelOld}, {"upstream", "old-up"}}};
    const auto edit = admin("PATCH", "/admin/channels/alpha", QJsonObject{{"models", models}});
    ASSERT_EQ(edit->status(), 200) << edit->body().constData();
    EXPECT_FALSE(inFlight->isComplete());

    ASSERT_TRUE(inFlight->waitForEnd(5s));
    ASSERT_EQ(inFlight->status(), 200) << inFlight->body().constData();
    const auto after = chat(chatBody(kModelA));
    ASSERT_EQ(after->status(), 200) << after->body().constData();

    const QJsonObject oldRecord = adminObject("/admin/requests/" + inFlight->header("x-request-id"));
    const QJsonObject newRecord = adminObject("/admin/requests/" + after->header("x-request-id"));
    ASSERT_EQ(oldRecord.value("tokens"), newRecord.value("tokens"));
    const double oldCost = oldRecord.value("cost").toDouble();
    EXPECT_GT(oldCost, 0);
    EXPECT_NEAR(newRecord.value("cost").toDouble(), 10 * oldCost, oldCost / 100);
}

TEST_F(AdminConfigApiTest, InProcessCallsAnswerLikeHttpWithoutToken)
{
    // The desktop app's editors call the same routes in-process: same validation, same answers.
    startGateway(adminConfig());
    service::AdminApi *api = gateway->admin();
    ASSERT_NE(api, nullptr);
    auto invoke = [api](const char *method, const char *target, const QByteArray &body) {
        std::vector<std::pair<int, QByteArray>> answers;
        api->invoke(method, target, body, [&answers](int status, const QByteArray &reply) { answers.emplace_back(status, reply); });
        EXPECT_EQ(answers.size(), 1u) << method << ' ' << target;   // exactly once, synchronously
        return answers.empty() ? std::pair<int, QByteArray>{0, {}} : answers.front();
    };

    const auto created = invoke("POST", "/admin/keys", R"({"name":"editor","rpm":30})");
    ASSERT_EQ(created.first, 201) << created.second.constData();
    EXPECT_TRUE(QJsonDocument::fromJson(created.second).object().value("secret").toString().startsWith("sk-sy-"));
    EXPECT_EQ(adminObject("/admin/keys/editor").value("rpm").toInt(), 30);

    const auto refused = invoke("PATCH", "/admin/keys/editor", R"({"rpm":-1})");
    EXPECT_EQ(refused.first, 400);
    EXPECT_EQ(QJsonDocument::fromJson(refused.second).object().value("error").toObject().value("param").toString(), "keys[2].rpm")
        << refused.second.constData();

    const auto slashed = invoke("GET", "/admin/models/acme/chat-a", {});
    EXPECT_EQ(slashed.first, 200) << slashed.second.constData();
    const auto yaml = invoke("GET", "/admin/config?format=yaml", {});
    EXPECT_EQ(yaml.first, 200);
    EXPECT_TRUE(yaml.second.contains("channels:")) << yaml.second.constData();
    EXPECT_EQ(invoke("GET", "/admin/events", {}).first, 400);
    EXPECT_EQ(invoke("GET", "/admin/nothing", {}).first, 404);
    EXPECT_EQ(invoke("GET", "/v1/models", {}).first, 404);
}

} // namespace
} // namespace sy::system_test
