// parseChatRequest: body checks (400s), the primary model's fate (SPEC §3.1) and the model chain
// (SPEC §3.2): primary, then `models`, then the virtual model's fallbacks, then the default model.
#include "service/ChatRequest.h"

#include "ConfigBuilders.h"
#include "QtPrinters.h"

#include <QJsonArray>
#include <gtest/gtest.h>

namespace sy::service {
namespace {

using namespace builders;

const QDate kSunset(2025, 6, 30);
const QDate kToday(2025, 6, 1);

config::Config sampleConfig()
{
    config::Config cfg;
    cfg.models = {model("alpha"), model("beta"), model("gamma"), model("delta"), model("off", false),
                  model("old", true, kSunset)};
    cfg.virtualModels = {config::VirtualModel{"team", "alpha", {"gamma", "nope", "beta"}},
                         config::VirtualModel{"pair", "beta", {"gamma"}}};
    return cfg;
}

QByteArray body(const QByteArray &modelFields, const QByteArray &extra = {})
{
    QByteArray json = "{" + modelFields;
    if (!modelFields.isEmpty())
        json += ",";
    json += R"("messages":[{"role":"user","content":"hi"}])";
    if (!extra.isEmpty())
        json += "," + extra;
    return json + "}";
}

ChatRequest accepted(const QByteArray &raw, const Workspace &ws, const QDate &today = kToday)
{
    auto parsed = parseChatRequest(raw, ws, today);
    if (const ErrorReply *error = std::get_if<ErrorReply>(&parsed)) {
        ADD_FAILURE() << "rejected with " << error->status << ": " << error->message.toStdString();
        return {};
    }
    return std::get<ChatRequest>(std::move(parsed));
}

ErrorReply rejected(const QByteArray &raw, const Workspace &ws, const QDate &today = kToday)
{
    auto parsed = parseChatRequest(raw, ws, today);
    if (std::holds_alternative<ChatRequest>(parsed)) {
        ADD_FAILURE() << "accepted: " << raw.toStdString();
        return {};
    }
    return std::get<ErrorReply>(parsed);
}

Workspace sampleWorkspace(std::optional<QString> defaultModel = {})
{
    config::Config cfg = sampleConfig();
    cfg.defaultModel = std::move(defaultModel);
    return Workspace(std::move(cfg));
}

// --- body checks ---

TEST(ChatRequestTest, MalformedJsonIsRejectedNamingTheProblem)
{
    const ErrorReply error = rejected(R"({"model":"alpha","messages":[)", sampleWorkspace());
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.code, "invalid_json");
    EXPECT_TRUE(error.message.contains(u"not valid JSON")) << error.message.toStdString();
    EXPECT_TRUE(error.message.contains(u"offset")) << error.message.toStdString();
}

TEST(ChatRequestTest, BodyThatIsNotAnObjectIsRejected)
{
    for (const QByteArray &raw : {QByteArray(R"([{"model":"alpha"}])"), QByteArray("[]")}) {
        SCOPED_TRACE(raw.toStdString());
        const ErrorReply error = rejected(raw, sampleWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_TRUE(error.message.contains(u"JSON object")) << error.message.toStdString();
    }
}

TEST(ChatRequestTest, MissingModelIsRejectedWithoutADefaultModel)
{
    for (const QByteArray &fields : {QByteArray(), QByteArray(R"("model":null)"), QByteArray(R"("models":[])")}) {
        SCOPED_TRACE(fields.toStdString());
        const ErrorReply error = rejected(body(fields), sampleWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.param, u"model");
        EXPECT_TRUE(error.message.contains(u"model")) << error.message.toStdString();
    }
}

TEST(ChatRequestTest, MissingModelUsesTheDefaultModel)
{
    const ChatRequest request = accepted(body({}), sampleWorkspace(QStringLiteral("delta")));
    EXPECT_EQ(request.primaryModel, u"delta");
    EXPECT_EQ(request.chain, QStringList{"delta"});
}

TEST(ChatRequestTest, ModelOfTheWrongTypeIsRejected)
{
    for (const QByteArray &fields : {QByteArray(R"("model":42)"), QByteArray(R"("model":["alpha"])")}) {
        SCOPED_TRACE(fields.toStdString());
        const ErrorReply error = rejected(body(fields), sampleWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.param, u"model");
    }
    const ErrorReply error = rejected(body(R"("models":"alpha")"), sampleWorkspace());
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.param, u"models");
}

TEST(ChatRequestTest, MissingOrEmptyMessagesAreRejected)
{
    for (const QByteArray &raw : {QByteArray(R"({"model":"alpha"})"), QByteArray(R"({"model":"alpha","messages":[]})"),
                                 QByteArray(R"({"model":"alpha","messages":{"role":"user"}})")}) {
        SCOPED_TRACE(raw.toStdString());
        const ErrorReply error = rejected(raw, sampleWorkspace());
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.param, u"messages");
    }
}

TEST(ChatRequestTest, StreamFlagsAreRead)
{
    const Workspace ws = sampleWorkspace();
    const ChatRequest plain = accepted(body(R"("model":"alpha")"), ws);
    EXPECT_FALSE(plain.stream);
    EXPECT_FALSE(plain.clientWantsUsage);

    const ChatRequest streamed = accepted(body(R"("model":"alpha")", R"("stream":true)"), ws);
    EXPECT_TRUE(streamed.stream);
    EXPECT_FALSE(streamed.clientWantsUsage);

    const ChatRequest withUsage = accepted(
        body(R"("model":"alpha")", R"("stream":true,"stream_options":{"include_usage":true})"), ws);
    EXPECT_TRUE(withUsage.stream);
    EXPECT_TRUE(withUsage.clientWantsUsage);

    EXPECT_FALSE(accepted(body(R"("model":"alpha")", R"("stream":null)"), ws).stream);
}

TEST(ChatRequestTest, StreamThatIsNotABooleanIsRejected)
{
    const ErrorReply error = rejected(body(R"("model":"alpha")", R"("stream":"yes")"), sampleWorkspace());
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.param, u"stream");
}

TEST(ChatRequestTest, BodyIsKeptAsTheClientSentIt)
{
    const ChatRequest request = accepted(body(R"("model":"alpha")", R"("temperature":0.25)"), sampleWorkspace());
    EXPECT_EQ(request.body.value("model").toString(), u"alpha");
    EXPECT_DOUBLE_EQ(request.body.value("temperature").toDouble(), 0.25);
    EXPECT_EQ(request.body.value("messages").toArray().size(), 1);
}

// --- the primary model (SPEC §3.1) ---

TEST(ChatRequestTest, FirstOfModelsIsThePrimaryWhenModelIsAbsent)
{
    const ChatRequest request = accepted(body(R"("models":["beta","alpha"])"), sampleWorkspace());
    EXPECT_EQ(request.primaryModel, u"beta");
    EXPECT_EQ(request.chain, (QStringList{"beta", "alpha"}));
}

TEST(ChatRequestTest, UnknownPrimaryIsABadRequestWithModelNotFound)
{
    for (const QByteArray &fields : {QByteArray(R"("model":"nope")"), QByteArray(R"("models":["nope","alpha"])")}) {
        SCOPED_TRACE(fields.toStdString());
        const ErrorReply error = rejected(body(fields), sampleWorkspace(QStringLiteral("alpha")));
        EXPECT_EQ(error.status, 400);
        EXPECT_EQ(error.code, "model_not_found");
        EXPECT_EQ(error.param, u"model");
        EXPECT_TRUE(error.message.contains(u"nope")) << error.message.toStdString();
    }
}

TEST(ChatRequestTest, DisabledPrimaryIsUnavailableEvenWithFallbacks)
{
    const ErrorReply error = rejected(body(R"("model":"off","models":["alpha"])"), sampleWorkspace(QStringLiteral("beta")));
    EXPECT_EQ(error.status, 503);
    EXPECT_EQ(error.code, "model_disabled");
    EXPECT_GE(error.retryAfterS, 1);
    EXPECT_TRUE(error.message.contains(u"off")) << error.message.toStdString();
}

TEST(ChatRequestTest, PrimaryPastItsSunsetIsUnavailable)
{
    const ErrorReply error = rejected(body(R"("model":"old")"), sampleWorkspace(), kSunset.addDays(1));
    EXPECT_EQ(error.status, 503);
    EXPECT_EQ(error.code, "model_retired");
    EXPECT_GE(error.retryAfterS, 1);
    EXPECT_TRUE(error.message.contains(u"2025-06-30")) << error.message.toStdString();
}

TEST(ChatRequestTest, PrimaryOnItsSunsetDayOrBeforeIsServed)
{
    for (const QDate &today : {kSunset.addDays(-1), kSunset}) {
        SCOPED_TRACE(today.toString(Qt::ISODate).toStdString());
        const ChatRequest request = accepted(body(R"("model":"old")"), sampleWorkspace(), today);
        EXPECT_EQ(request.chain, QStringList{"old"});
    }
}

// --- the model chain (SPEC §3.2) ---

TEST(ChatRequestTest, VirtualModelExpandsToItsPrimaryAndFallbacks)
{
    // team = alpha, then gamma, nope (unknown: skipped), beta.
    const ChatRequest request = accepted(body(R"("model":"team")"), sampleWorkspace());
    EXPECT_EQ(request.chain, (QStringList{"alpha", "gamma", "beta"}));
}

TEST(ChatRequestTest, ModelsListFollowsThePrimaryInOrder)
{
    const ChatRequest request = accepted(body(R"("model":"alpha","models":["delta","beta"])"), sampleWorkspace());
    EXPECT_EQ(request.primaryModel, u"alpha");
    EXPECT_EQ(request.chain, (QStringList{"alpha", "delta", "beta"}));
}

TEST(ChatRequestTest, ChainIsPrimaryThenModelsThenVirtualFallbacksThenDefaultModel)
{
    // pair = beta with fallback gamma; `models` adds alpha; the default model is delta.
    const ChatRequest request = accepted(body(R"("model":"pair","models":["alpha"])"),
                                         sampleWorkspace(QStringLiteral("delta")));
    EXPECT_EQ(request.chain, (QStringList{"beta", "alpha", "gamma", "delta"}));

    // The same when the virtual model is the primary by being the first of `models`.
    const ChatRequest fromModels = accepted(body(R"("models":["pair","alpha"])"), sampleWorkspace());
    EXPECT_EQ(fromModels.chain, (QStringList{"beta", "alpha", "gamma"}));
}

TEST(ChatRequestTest, UnknownDisabledRetiredAndDuplicateFallbacksAreSkippedSilently)
{
    const ChatRequest request = accepted(
        body(R"("model":"alpha","models":["alpha","nope","off","beta","old","beta",7,"alpha"])"),
        sampleWorkspace(), kSunset.addDays(1));
    EXPECT_EQ(request.chain, (QStringList{"alpha", "beta"}));
}

TEST(ChatRequestTest, DefaultModelComesLastAndOnlyOnce)
{
    const Workspace ws = sampleWorkspace(QStringLiteral("beta"));
    EXPECT_EQ(accepted(body(R"("model":"alpha")"), ws).chain, (QStringList{"alpha", "beta"}));
    EXPECT_EQ(accepted(body(R"("model":"alpha","models":["beta","gamma"])"), ws).chain,
              (QStringList{"alpha", "beta", "gamma"}));
    EXPECT_EQ(accepted(body(R"("model":"beta")"), ws).chain, QStringList{"beta"});
}

TEST(ChatRequestTest, UnavailableDefaultModelIsSkipped)
{
    EXPECT_EQ(accepted(body(R"("model":"alpha")"), sampleWorkspace(QStringLiteral("off"))).chain, QStringList{"alpha"});
    EXPECT_EQ(accepted(body(R"("model":"alpha")"), sampleWorkspace(QStringLiteral("nope"))).chain, QStringList{"alpha"});
}

TEST(ChatRequestTest, TheBodysKeysAreCollectedForRequireParametersOnly)
{
    const ChatRequest required = accepted(body(R"("model":"alpha")", R"("temperature":0.5,"provider":{"require_parameters":true})"),
                                          sampleWorkspace());
    EXPECT_EQ(required.parameters, (QSet<QString>{"model", "messages", "temperature", "provider"}));
    // Nothing reads them otherwise: not collected (a hash per key of every request).
    EXPECT_TRUE(accepted(body(R"("model":"alpha")", R"("temperature":0.5)"), sampleWorkspace()).parameters.isEmpty());
    EXPECT_TRUE(accepted(body(R"("model":"alpha")", R"("provider":{"require_parameters":false})"), sampleWorkspace())
                    .parameters.isEmpty());
}

} // namespace
} // namespace sy::service
