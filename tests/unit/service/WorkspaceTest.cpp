// Workspace: key lookup by secret hash, model and virtual model lookups, the state of a model on
// a given day (both sides of the sunset), and the routes of a model.
#include "service/Workspace.h"

#include "ConfigBuilders.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

namespace sy::service {
namespace {

using namespace builders;

const QDate kSunset(2025, 6, 30);

config::Config sampleConfig()
{
    config::Config cfg;
    cfg.models = {model("alpha"), model("beta"), model("off", false), model("old", true, kSunset),
                  model("off-and-old", false, kSunset)};
    cfg.virtualModels = {config::VirtualModel{"team", "alpha", {"beta"}}};
    cfg.channels = {
        channel("first", {served("alpha", "alpha-upstream", {1.5, 2.5}), served("beta")}),
        channel("disabled", {served("alpha")}, false),
        channel("second", {served("beta"), served("alpha", "alpha-v2")}),
    };
    cfg.keys = {key("ide", "sk-ide-secret"), key("off", "sk-off-secret", false)};
    return cfg;
}

TEST(WorkspaceTest, KeyIsFoundByTheSha256OfItsSecret)
{
    const Workspace ws(sampleConfig());
    const config::Key *found = ws.findKeyBySecret("sk-ide-secret");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->name, u"ide");
    EXPECT_EQ(found, &ws.config().keys[0]);
}

TEST(WorkspaceTest, UpperCaseStoredHashStillMatches)
{
    config::Config cfg = sampleConfig();
    cfg.keys[0].secretSha256 = cfg.keys[0].secretSha256.toUpper();
    const Workspace ws(std::move(cfg));
    ASSERT_NE(ws.findKeyBySecret("sk-ide-secret"), nullptr);
    EXPECT_EQ(ws.findKeyBySecret("sk-ide-secret")->name, u"ide");
}

TEST(WorkspaceTest, UnknownEmptyOrHashAsSecretFindsNoKey)
{
    const Workspace ws(sampleConfig());
    EXPECT_EQ(ws.findKeyBySecret("sk-ide-secreT"), nullptr);
    EXPECT_EQ(ws.findKeyBySecret(""), nullptr);
    // The stored hash itself is not a secret that opens the key.
    EXPECT_EQ(ws.findKeyBySecret(builders::sha256Hex("sk-ide-secret")), nullptr);
}

TEST(WorkspaceTest, DisabledKeyIsStillFoundForTheCallerToRefuse)
{
    const Workspace ws(sampleConfig());
    const config::Key *found = ws.findKeyBySecret("sk-off-secret");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->name, u"off");
    EXPECT_FALSE(found->enabled);
}

TEST(WorkspaceTest, ModelsAndVirtualModelsAreFoundOnlyUnderTheirOwnKind)
{
    const Workspace ws(sampleConfig());
    ASSERT_NE(ws.findModel("beta"), nullptr);
    EXPECT_EQ(ws.findModel("beta"), &ws.config().models[1]);
    EXPECT_EQ(ws.findModel("nope"), nullptr);
    EXPECT_EQ(ws.findModel("team"), nullptr);

    const config::VirtualModel *team = ws.findVirtualModel("team");
    ASSERT_NE(team, nullptr);
    EXPECT_EQ(team->primary, u"alpha");
    EXPECT_EQ(team->fallbacks, QStringList{"beta"});
    EXPECT_EQ(ws.findVirtualModel("alpha"), nullptr);
}

TEST(WorkspaceTest, ModelStateOnEachSideOfTheSunset)
{
    const Workspace ws(sampleConfig());
    struct Row {
        const char *id;
        QDate today;
        ModelState expected;
    };
    const Row rows[] = {
        {"alpha", kSunset, ModelState::Available},
        {"nope", kSunset, ModelState::Unknown},
        {"team", kSunset, ModelState::Unknown},  // a virtual model has no state of its own
        {"off", kSunset, ModelState::Disabled},
        {"old", kSunset.addDays(-1), ModelState::Available},
        {"old", kSunset, ModelState::Available},
        {"old", kSunset.addDays(1), ModelState::PastSunset},
        {"old", kSunset.addYears(1), ModelState::PastSunset},
        {"off-and-old", kSunset.addDays(1), ModelState::Disabled},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(std::string(row.id) + " on " + row.today.toString(Qt::ISODate).toStdString());
        EXPECT_EQ(int(ws.modelState(QString::fromLatin1(row.id), row.today)), int(row.expected));
    }
}

TEST(WorkspaceTest, RoutesAreTheEnabledChannelsInConfigurationOrder)
{
    const Workspace ws(sampleConfig());
    const std::vector<ChannelRoute> alpha = ws.routesFor("alpha");
    ASSERT_EQ(alpha.size(), 2u);
    EXPECT_EQ(alpha[0].channel->id, u"first");
    EXPECT_EQ(alpha[0].model->upstream, u"alpha-upstream");
    EXPECT_DOUBLE_EQ(alpha[0].model->price.prompt, 1.5);
    EXPECT_DOUBLE_EQ(alpha[0].model->price.completion, 2.5);
    EXPECT_EQ(alpha[1].channel->id, u"second");
    EXPECT_EQ(alpha[1].model->upstream, u"alpha-v2");
    // The routes point into the workspace's own configuration.
    EXPECT_EQ(alpha[0].channel, &ws.config().channels[0]);
    EXPECT_EQ(alpha[1].model, &ws.config().channels[2].models[1]);

    const std::vector<ChannelRoute> beta = ws.routesFor("beta");
    ASSERT_EQ(beta.size(), 2u);
    EXPECT_EQ(beta[0].channel->id, u"first");
    EXPECT_EQ(beta[1].channel->id, u"second");
}

TEST(WorkspaceTest, ModelWithoutEnabledChannelsHasNoRoutes)
{
    config::Config cfg = sampleConfig();
    cfg.channels[0].enabled = false;
    cfg.channels[2].enabled = false;
    const Workspace ws(std::move(cfg));
    EXPECT_TRUE(ws.routesFor("alpha").empty());
    EXPECT_TRUE(ws.routesFor("nope").empty());
    EXPECT_TRUE(ws.routesFor("off").empty());
}

} // namespace
} // namespace sy::service
