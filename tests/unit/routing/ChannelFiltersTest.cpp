// The hard exclusions of SPEC §3.4, through ChannelSelector::select: each filter on both sides,
// with the reason recorded for the dropped channel.
#include "RoutingTestSupport.h"
#include "routing/ChannelFilters.h"

namespace sy::routing::test {
namespace {

class ChannelFiltersTest : public RoutingTest {};

TEST_F(ChannelFiltersTest, OnlyChannelsServingTheModelAreCandidates)
{
    add("a", "deepseek");
    add("b", "qwen", 1.0, {kFallback});
    const Selection selection = select(requestFor());
    EXPECT_EQ(channelIds(selection), QStringList({"a"}));
    EXPECT_TRUE(selection.filtered.empty());   // not serving the model is not a filter decision
}

TEST_F(ChannelFiltersTest, DisabledChannelIsDropped)
{
    add("on", "deepseek");
    add("off", "deepseek").enabled = false;
    const Selection selection = select(requestFor());
    EXPECT_EQ(channelIds(selection), QStringList({"on"}));
    EXPECT_EQ(reasonFor(selection, "off"), "channel disabled");
}

TEST_F(ChannelFiltersTest, TiersAreAdmittedByNitroAndFloor)
{
    add("std", "deepseek");
    add("prio", "deepseek").tier = "priority";
    add("flex", "deepseek").tier = "flex";

    struct Row {
        bool admitPriority;
        bool admitFlex;
        QStringList expected;
    };
    const Row rows[] = {{false, false, {"std"}},
                        {true, false, {"std", "prio"}},
                        {false, true, {"std", "flex"}},
                        {true, true, {"std", "prio", "flex"}}};
    for (const Row &row : rows) {
        SelectionRequest request = requestFor();
        request.admitPriority = row.admitPriority;
        request.admitFlex = row.admitFlex;
        const Selection selection = select(request);
        EXPECT_EQ(channelIds(selection), row.expected) << row.admitPriority << row.admitFlex;
        EXPECT_EQ(reasonFor(selection, "prio").isEmpty(), row.admitPriority);
        EXPECT_EQ(reasonFor(selection, "flex").isEmpty(), row.admitFlex);
    }
    SelectionRequest plain = requestFor();
    EXPECT_EQ(reasonFor(select(plain), "prio"), "priority tier is admitted only with :nitro");
    EXPECT_EQ(reasonFor(select(plain), "flex"), "flex tier is admitted only with :floor");
}

TEST_F(ChannelFiltersTest, OnlyKeepsListedProvidersBySlugOrChannelId)
{
    add("ya-1", "yandex");
    add("cr-1", "cloudru");
    add("mws-1", "mws");
    ProviderPreferences prefs;
    prefs.only = {"cloudru", "MWS-1"};   // a slug and a channel id (case-insensitive)
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"cr-1", "mws-1"}));
    EXPECT_EQ(reasonFor(selection, "ya-1"), "not in provider.only");
}

TEST_F(ChannelFiltersTest, IgnoreDropsListedProvidersBySlugOrChannelId)
{
    add("ya-1", "yandex");
    add("cr-1", "cloudru");
    add("mws-1", "mws");
    ProviderPreferences prefs;
    prefs.ignore = {"mws", "ya-1"};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"cr-1"}));
    EXPECT_EQ(reasonFor(selection, "mws-1"), "ignored by provider.ignore");
    EXPECT_EQ(reasonFor(selection, "ya-1"), "ignored by provider.ignore");
}

TEST_F(ChannelFiltersTest, OnlyWinsOverIgnore)
{
    add("cr-1", "cloudru");
    add("mws-1", "mws");
    ProviderPreferences prefs;
    prefs.only = {"cloudru"};
    prefs.ignore = {"cloudru", "mws"};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"cr-1"}));
    EXPECT_EQ(reasonFor(selection, "mws-1"), "not in provider.only");
}

TEST_F(ChannelFiltersTest, MaxPriceKeepsTheLimitAndDropsAbove)
{
    config::Channel &atLimit = add("at", "a");
    atLimit.models[0].price = config::Price{500, 1000};
    config::Channel &promptAbove = add("prompt-above", "b");
    promptAbove.models[0].price = config::Price{500.01, 10};
    config::Channel &completionAbove = add("completion-above", "c");
    completionAbove.models[0].price = config::Price{1, 1000.5};

    ProviderPreferences prefs;
    prefs.maxPrice = config::Price{500, 1000};
    prefs.maxPriceHasPrompt = prefs.maxPriceHasCompletion = true;
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"at"}));
    EXPECT_TRUE(reasonFor(selection, "prompt-above").contains("max_price.prompt"));
    EXPECT_TRUE(reasonFor(selection, "completion-above").contains("max_price.completion"));
}

TEST_F(ChannelFiltersTest, MaxPriceAbsentSideHasNoLimit)
{
    add("expensive-prompt", "a").models[0].price = config::Price{9000, 1};
    ProviderPreferences prefs;
    prefs.maxPrice = config::Price{0, 1};
    prefs.maxPriceHasCompletion = true;   // prompt side not given
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"expensive-prompt"}));
}

TEST_F(ChannelFiltersTest, MaxPriceUsesThePriceOfEachModel)
{
    config::Channel &channel = add("multi", "a", 1.0, {kModel, kFallback});
    channel.models[1].price = config::Price{50, 50};
    ProviderPreferences prefs;
    prefs.maxPrice = config::Price{10, 10};
    prefs.maxPriceHasPrompt = prefs.maxPriceHasCompletion = true;
    const Selection selection = select(requestFor({kModel, kFallback}, prefs));
    EXPECT_EQ(orderedIds(selection), QStringList({"multi@" + kModel}));
    EXPECT_FALSE(reasonFor(selection, "multi", kFallback).isEmpty());
}

TEST_F(ChannelFiltersTest, QuantizationsKeepListedLevelsOnly)
{
    add("q4", "a").quantization = "int4";
    add("q8", "b").quantization = "FP8";
    add("bf", "c").quantization = "bf16";
    add("unknown", "d");
    ProviderPreferences prefs;
    prefs.quantizations = {"int4", "fp8"};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"q4", "q8"}));
    EXPECT_EQ(reasonFor(selection, "bf"), "quantization bf16 not in provider.quantizations");
    EXPECT_EQ(reasonFor(selection, "unknown"), "quantization unknown not in provider.quantizations");

    prefs.quantizations = {"unknown"};
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"unknown"}));
}

TEST_F(ChannelFiltersTest, RequireParametersNeedsEveryKnownRequestParameter)
{
    add("full", "a").supportedParameters = {"tools", "tool_choice", "temperature"};
    add("no-tools", "b").supportedParameters = {"temperature"};
    add("none", "c");
    SelectionRequest request = requestFor();
    // model/messages/stream/user are not LLM parameters and are never required.
    request.requestParameters = {"model", "messages", "stream", "user", "tools", "temperature"};

    Selection selection = select(request);
    EXPECT_EQ(channelIds(selection), QStringList({"full", "no-tools", "none"}));   // off by default

    request.preferences.requireParameters = true;
    selection = select(request);
    EXPECT_EQ(channelIds(selection), QStringList({"full"}));
    EXPECT_EQ(reasonFor(selection, "no-tools"), "does not support tools (require_parameters)");
    EXPECT_EQ(reasonFor(selection, "none"), "does not support temperature, tools (require_parameters)");

    request.requestParameters = {"model", "messages", "stream"};
    EXPECT_EQ(channelIds(select(request)), QStringList({"full", "no-tools", "none"}));
}

TEST_F(ChannelFiltersTest, KnownParameterListCoversTheSamplingAndToolControls)
{
    for (const char *name : {"tools", "tool_choice", "response_format", "temperature", "top_p", "top_k",
                             "max_tokens", "max_completion_tokens", "stop", "seed", "frequency_penalty",
                             "presence_penalty", "logprobs", "top_logprobs", "logit_bias",
                             "parallel_tool_calls", "reasoning", "structured_outputs"})
        EXPECT_TRUE(isKnownLlmParameter(QString::fromLatin1(name))) << name;
    for (const char *name : {"model", "messages", "stream", "provider", "models", "user", "metadata"})
        EXPECT_FALSE(isKnownLlmParameter(QString::fromLatin1(name))) << name;
}

TEST_F(ChannelFiltersTest, DataCollectionDenyDropsCollectingChannels)
{
    add("collects", "a").dataCollection = "allow";
    add("private", "b").dataCollection = "deny";
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"collects", "private"}));

    ProviderPreferences prefs;
    prefs.denyDataCollection = true;
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"private"}));
    EXPECT_EQ(reasonFor(selection, "collects"), "may collect data (data_collection: deny)");
}

TEST_F(ChannelFiltersTest, ZdrDropsChannelsWithoutZeroRetention)
{
    add("retains", "a");
    add("zdr", "b").zdr = true;
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"retains", "zdr"}));

    ProviderPreferences prefs;
    prefs.zdr = true;
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"zdr"}));
    EXPECT_EQ(reasonFor(selection, "retains"), "no zero data retention (zdr)");
}

TEST_F(ChannelFiltersTest, EnforceDistillableTextDropsNonDistillableChannels)
{
    add("closed", "a");
    add("distillable", "b").distillable = true;
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"closed", "distillable"}));

    ProviderPreferences prefs;
    prefs.enforceDistillableText = true;
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"distillable"}));
    EXPECT_EQ(reasonFor(selection, "closed"), "not distillable (enforce_distillable_text)");
}

TEST_F(ChannelFiltersTest, EachDroppedChannelIsRecordedOncePerModel)
{
    config::Channel &channel = add("off", "a", 1.0, {kModel, kFallback});
    channel.enabled = false;
    const Selection selection = select(requestFor({kModel, kFallback}));
    EXPECT_TRUE(selection.ordered.empty());
    ASSERT_EQ(selection.filtered.size(), 2u);
    EXPECT_EQ(selection.filtered[0].modelId, kModel);
    EXPECT_EQ(selection.filtered[1].modelId, kFallback);
}

} // namespace
} // namespace sy::routing::test
