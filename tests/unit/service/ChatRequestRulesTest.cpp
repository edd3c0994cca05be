// parseChatRequest, the routing rules it applies on top of the model chain: the :nitro / :floor
// suffixes (SPEC §3.5), capability checks of the primary and of fallbacks (SPEC §3.3), and the
// `provider` object's errors (SPEC §3.4, §9).
#include "service/ChatRequest.h"

#include "ConfigBuilders.h"
#include "QtPrinters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::service {
namespace {

using namespace builders;
using routing::SortBy;
using routing::SortPartition;

const QDate kToday(2025, 6, 1);

config::Model withCapabilities(const QString &id, QStringList capabilities)
{
    config::Model m = model(id);
    m.capabilities = std::move(capabilities);
    return m;
}

// alpha, beta, gamma: plain chat models; eye, eye2: chat with vision input; embed: embeddings only.
// team = eye with fallbacks alpha, eye2; embedder = embed with fallback alpha.
Workspace rulesWorkspace(std::optional<QString> defaultModel = {})
{
    config::Config cfg;
    cfg.models = {model("alpha"), model("beta"), model("gamma"),
                  withCapabilities("eye", {"chat", "vision"}), withCapabilities("eye2", {"chat", "vision"}),
                  withCapabilities("embed", {"embeddings"})};
    cfg.virtualModels = {config::VirtualModel{"team", "eye", {"alpha", "eye2"}},
                         config::VirtualModel{"embedder", "embed", {"alpha"}}};
    cfg.defaultModel = std::move(defaultModel);
    return Workspace(std::move(cfg));
}

// A body with `fields` (e.g. "model":"alpha") and the given messages (default: one text turn).
QByteArray body(const QByteArray &fields, const QByteArray &messages = R"([{"role":"user","content":"hi"}])")
{
    return "{" + fields + R"(,"messages":)" + messages + "}";
}

// One user turn carrying text and an image part of `type`.
QByteArray imageMessages(const QByteArray &type = "image_url")
{
    return R"([{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":")" + type
        + R"(","image_url":{"url":"data:image/png;base64,AAAA"}}]}])";
}

ChatRequest accepted(const QByteArray &raw, const Workspace &ws)
{
    auto parsed = parseChatRequest(raw, ws, kToday);
    if (const ErrorReply *error = std::get_if<ErrorReply>(&parsed)) {
        ADD_FAILURE() << "rejected with " << error->status << ": " << error->message.toStdString();
        return {};
    }
    return std::get<ChatRequest>(std::move(parsed));
}

ErrorReply rejected(const QByteArray &raw, const Workspace &ws)
{
    auto parsed = parseChatRequest(raw, ws, kToday);
    if (std::holds_alternative<ChatRequest>(parsed)) {
        ADD_FAILURE() << "accepted: " << raw.toStdString();
        return {};
    }
    return std::get<ErrorReply>(parsed);
}

QStringList incapableIds(const ChatRequest &request)
{
    QStringList ids;
    for (const auto &entry : request.incapableFallbacks)
        ids.append(entry.first);
    return ids;
}

// --- :nitro and :floor (SPEC §3.5) ---

TEST(ChatRequestRulesTest, NitroAdmitsPriorityTierAndSortsByThroughput)
{
    const ChatRequest request = accepted(body(R"("model":"alpha:nitro")"), rulesWorkspace());
    EXPECT_EQ(request.primaryModel, u"alpha");
    EXPECT_EQ(request.chain, QStringList{"alpha"});
    EXPECT_TRUE(request.admitPriority);
    EXPECT_FALSE(request.admitFlex);
    ASSERT_TRUE(request.preferences.sort.has_value());
    EXPECT_EQ(request.preferences.sort->by, SortBy::Throughput);
    EXPECT_EQ(request.preferences.sort->partition, SortPartition::Model);
}

TEST(ChatRequestRulesTest, FloorAdmitsFlexTierAndSortsByPrice)
{
    const ChatRequest request = accepted(body(R"("model":"alpha:floor")"), rulesWorkspace());
    EXPECT_EQ(request.primaryModel, u"alpha");
    EXPECT_EQ(request.chain, QStringList{"alpha"});
    EXPECT_TRUE(request.admitFlex);
    EXPECT_FALSE(request.admitPriority);
    ASSERT_TRUE(request.preferences.sort.has_value());
    EXPECT_EQ(request.preferences.sort->by, SortBy::Price);
}

TEST(ChatRequestRulesTest, WithoutASuffixNoTierIsAdmittedAndNothingIsSorted)
{
    const ChatRequest request = accepted(body(R"("model":"alpha")"), rulesWorkspace());
    EXPECT_FALSE(request.admitPriority);
    EXPECT_FALSE(request.admitFlex);
    EXPECT_FALSE(request.preferences.sort.has_value());
}

TEST(ChatRequestRulesTest, ExplicitSortWinsOverTheSuffixButTheTierIsStillAdmitted)
{
    const ChatRequest nitro = accepted(body(R"("model":"alpha:nitro","provider":{"sort":"latency"})"), rulesWorkspace());
    ASSERT_TRUE(nitro.preferences.sort.has_value());
    EXPECT_EQ(nitro.preferences.sort->by, SortBy::Latency);
    EXPECT_TRUE(nitro.admitPriority);

    const ChatRequest floor = accepted(
        body(R"("model":"alpha:floor","provider":{"sort":{"by":"throughput","partition":"none"}})"), rulesWorkspace());
    ASSERT_TRUE(floor.preferences.sort.has_value());
    EXPECT_EQ(floor.preferences.sort->by, SortBy::Throughput);
    EXPECT_EQ(floor.preferences.sort->partition, SortPartition::None);
    EXPECT_TRUE(floor.admitFlex);
}

TEST(ChatRequestRulesTest, SuffixIsStrippedFromPrimaryAndFallbacksAndAFallbackSuffixIsIgnored)
{
    const ChatRequest request = accepted(body(R"("model":"alpha:floor","models":["beta:nitro","gamma:floor"])"),
                                         rulesWorkspace());
    EXPECT_EQ(request.primaryModel, u"alpha");
    EXPECT_EQ(request.chain, (QStringList{"alpha", "beta", "gamma"}));
    EXPECT_TRUE(request.admitFlex);
    EXPECT_FALSE(request.admitPriority) << "a fallback's :nitro must not change the request";
    EXPECT_EQ(request.preferences.sort->by, SortBy::Price);

    // A plain primary: the fallback's suffix neither sorts nor admits a tier.
    const ChatRequest plain = accepted(body(R"("model":"alpha","models":["beta:nitro"])"), rulesWorkspace());
    EXPECT_EQ(plain.chain, (QStringList{"alpha", "beta"}));
    EXPECT_FALSE(plain.admitPriority);
    EXPECT_FALSE(plain.preferences.sort.has_value());

    // The primary taken from models[0] keeps its suffix's meaning and is not listed twice.
    const ChatRequest fromModels = accepted(body(R"("models":["beta:nitro","alpha","beta"])"), rulesWorkspace());
    EXPECT_EQ(fromModels.primaryModel, u"beta");
    EXPECT_EQ(fromModels.chain, (QStringList{"beta", "alpha"}));
    EXPECT_TRUE(fromModels.admitPriority);
}

// --- capabilities (SPEC §3.3) ---

TEST(ChatRequestRulesTest, PrimaryWithoutChatIsUnsupportedModelApiEvenWithFallbacks)
{
    for (const QByteArray &fields : {QByteArray(R"("model":"embed")"), QByteArray(R"("model":"embed","models":["alpha"])"),
                                    QByteArray(R"("model":"embedder")")}) {
        SCOPED_TRACE(fields.toStdString());
        const ErrorReply error = rejected(body(fields), rulesWorkspace(QStringLiteral("alpha")));
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "unsupported_model_api");
        EXPECT_EQ(error.param, u"model");
        EXPECT_TRUE(error.message.contains(u"embed")) << error.message.toStdString();
    }
}

TEST(ChatRequestRulesTest, ImageInputToATextPrimaryIsUnsupportedModelInput)
{
    for (const QByteArray &type : {QByteArray("image_url"), QByteArray("input_image"), QByteArray("image")}) {
        SCOPED_TRACE(type.toStdString());
        const ErrorReply error = rejected(body(R"("model":"alpha","models":["eye"])", imageMessages(type)),
                                          rulesWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "unsupported_model_input");
        EXPECT_EQ(error.param, u"model");
        EXPECT_TRUE(error.message.contains(u"alpha")) << error.message.toStdString();
    }
}

TEST(ChatRequestRulesTest, TextPartsAndVisionPrimariesAreAccepted)
{
    const QByteArray textParts = R"([{"role":"user","content":[{"type":"text","text":"hi"}]}])";
    EXPECT_EQ(accepted(body(R"("model":"alpha")", textParts), rulesWorkspace()).chain, QStringList{"alpha"});
    const ChatRequest vision = accepted(body(R"("model":"eye")", imageMessages()), rulesWorkspace());
    EXPECT_EQ(vision.chain, QStringList{"eye"});
    EXPECT_TRUE(vision.incapableFallbacks.isEmpty());
}

TEST(ChatRequestRulesTest, IncapableFallbacksAreSkippedAndRecordedWithTheReason)
{
    // alpha cannot see the image, embed cannot chat: both skipped; eye2 stays.
    const ChatRequest request = accepted(body(R"("model":"eye","models":["alpha","embed","eye2"])", imageMessages()),
                                         rulesWorkspace());
    EXPECT_EQ(request.chain, (QStringList{"eye", "eye2"}));
    EXPECT_EQ(incapableIds(request), (QStringList{"alpha", "embed"}));
    ASSERT_EQ(request.incapableFallbacks.size(), 2);
    EXPECT_TRUE(request.incapableFallbacks.at(0).second.contains(u"image")) << request.incapableFallbacks.at(0).second.toStdString();
    EXPECT_TRUE(request.incapableFallbacks.at(1).second.contains(u"chat")) << request.incapableFallbacks.at(1).second.toStdString();

    // The same for a virtual model's fallbacks and for the default model.
    const ChatRequest team = accepted(body(R"("model":"team")", imageMessages()), rulesWorkspace(QStringLiteral("beta")));
    EXPECT_EQ(team.chain, (QStringList{"eye", "eye2"}));
    EXPECT_EQ(incapableIds(team), (QStringList{"alpha", "beta"}));

    // Without an image nothing is incapable (embed still is: it cannot chat).
    const ChatRequest text = accepted(body(R"("model":"eye","models":["alpha","embed"])"), rulesWorkspace());
    EXPECT_EQ(text.chain, (QStringList{"eye", "alpha"}));
    EXPECT_EQ(incapableIds(text), QStringList{"embed"});
}

// --- the provider object (SPEC §3.4, §9) ---

TEST(ChatRequestRulesTest, BadProviderObjectIsABadRequestNamingTheField)
{
    const std::pair<QByteArray, QString> rows[] = {
        {R"("fastest")", "provider"},
        {R"([{"order":["a"]}])", "provider"},
        {R"({"sort":"fastest"})", "provider.sort"},
        {R"({"sort":{"partition":"none"}})", "provider.sort.by"},
        {R"({"only":["alpha",3]})", "provider.only[1]"},
        {R"({"allow_fallbacks":"no"})", "provider.allow_fallbacks"},
        {R"({"max_price":{"prompt":-1}})", "provider.max_price.prompt"},
        {R"({"preferred_max_latency":{"p95":2}})", "provider.preferred_max_latency.p95"},
        {R"({"bogus":1})", "provider.bogus"},
    };
    for (const auto &[provider, param] : rows) {
        SCOPED_TRACE(provider.toStdString());
        const ErrorReply error = rejected(body(R"("model":"alpha","provider":)" + provider), rulesWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "invalid_provider_preferences");
        EXPECT_EQ(error.param, param);
        EXPECT_FALSE(error.message.isEmpty());
    }
    // null is "not given".
    EXPECT_EQ(accepted(body(R"("model":"alpha","provider":null)"), rulesWorkspace()).chain, QStringList{"alpha"});
}

} // namespace
} // namespace sy::service
