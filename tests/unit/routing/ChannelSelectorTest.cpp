// ChannelSelector modes (SPEC §3.5): model groups in chain order, provider.order with and without
// allow_fallbacks, allow_fallbacks alone, sort overriding order, partition model vs none,
// stickiness, and the trace notes.
#include "RoutingTestSupport.h"

namespace sy::routing::test {
namespace {

class ChannelSelectorTest : public RoutingTest {};

TEST_F(ChannelSelectorTest, ModelGroupsFollowTheChainAndSkipDuplicates)
{
    add("fb", "qwen", 0.1, {kFallback});
    add("pri", "deepseek", 5.0, {kModel});
    add("both", "cloudru", 1.0, {kModel, kFallback});
    const Selection selection = select(requestFor({kModel, kFallback, kModel}));
    EXPECT_EQ(orderedIds(selection), QStringList({"pri@" + kModel, "both@" + kModel, "fb@" + kFallback,
                                                  "both@" + kFallback}));
    ASSERT_EQ(selection.ordered.size(), 4u);
    EXPECT_DOUBLE_EQ(selection.ordered[3].served->price.prompt, 0.5);   // the fallback's own price
}

TEST_F(ChannelSelectorTest, EmptyChainOrNoChannelGivesAnEmptySelection)
{
    EXPECT_TRUE(select(requestFor({})).ordered.empty());
    const Selection selection = select(requestFor());
    EXPECT_TRUE(selection.ordered.empty());
    EXPECT_EQ(selection.notes, QStringList({kModel + ": no channel left after filters"}));
}

// --- order ---------------------------------------------------------------------------------

TEST_F(ChannelSelectorTest, OrderPutsListedProvidersFirstThenTheRestInDefaultOrder)
{
    add("mws-1", "mws");
    add("cr-1", "cloudru");
    add("ya-1", "yandex");
    add("cr-2", "cloudru");
    add("ds-1", "deepseek");
    health.failed = {"mws-1"};   // the rest in default order: recently failed last
    ProviderPreferences prefs;
    prefs.order = {"yandex", "cloudru"};
    const Selection selection = select(requestFor({kModel}, prefs));
    // cloudru's two channels keep default order among themselves.
    EXPECT_EQ(channelIds(selection), QStringList({"ya-1", "cr-1", "cr-2", "ds-1", "mws-1"}));
    EXPECT_TRUE(selection.filtered.empty());
    EXPECT_TRUE(selection.notes.first().contains("provider.order [yandex, cloudru] first; the rest in default order"));
}

TEST_F(ChannelSelectorTest, OrderMatchesChannelIdsToo)
{
    add("cr-1", "cloudru");
    add("cr-2", "cloudru");
    ProviderPreferences prefs;
    prefs.order = {"cr-2", "cloudru"};
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"cr-2", "cr-1"}));
}

TEST_F(ChannelSelectorTest, OrderWithoutFallbacksKeepsOnlyListedProviders)
{
    add("mws-1", "mws");
    add("cr-1", "cloudru");
    add("ya-1", "yandex");
    ProviderPreferences prefs;
    prefs.order = {"yandex", "cloudru"};
    prefs.allowFallbacks = false;
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"ya-1", "cr-1"}));
    EXPECT_EQ(reasonFor(selection, "mws-1"), "not in provider.order and allow_fallbacks is false");
}

TEST_F(ChannelSelectorTest, NoFallbacksWithoutOrderKeepsTheFirstChannelOfEachModel)
{
    add("a", "a", 1.0, {kModel, kFallback});
    add("b", "b", 1.0, {kModel, kFallback});
    add("c", "c", 1.0, {kModel});
    health.failed = {"a"};
    ProviderPreferences prefs;
    prefs.allowFallbacks = false;
    const Selection selection = select(requestFor({kModel, kFallback}, prefs));
    EXPECT_EQ(orderedIds(selection), QStringList({"b@" + kModel, "b@" + kFallback}));
    EXPECT_EQ(reasonFor(selection, "c"), "allow_fallbacks is false: only the first channel is tried");
    EXPECT_FALSE(reasonFor(selection, "a").isEmpty());
    EXPECT_FALSE(reasonFor(selection, "a", kFallback).isEmpty());
}

TEST_F(ChannelSelectorTest, NoFallbacksKeepsACoolingChannelOnlyWhenItIsTheOnlyOne)
{
    add("cool", "a");
    add("warm", "b");
    health.cooling = {"cool"};
    ProviderPreferences prefs;
    prefs.allowFallbacks = false;
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"warm"}));
    channels.pop_back();
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"cool"}));
}

// --- sort ----------------------------------------------------------------------------------

TEST_F(ChannelSelectorTest, SortOverridesOrder)
{
    add("ya-1", "yandex", 3.0);
    add("cr-1", "cloudru", 1.0);
    ProviderPreferences prefs;
    prefs.order = {"yandex"};
    prefs.sort = SortSpec{SortBy::Price, SortPartition::Model};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"cr-1", "ya-1"}));
    EXPECT_TRUE(selection.notes.contains("provider.sort overrides provider.order"));
}

TEST_F(ChannelSelectorTest, SortKeepsTheOrderFenceWithoutFallbacks)
{
    add("ya-1", "yandex", 3.0);
    add("cr-1", "cloudru", 1.0);
    add("mws-1", "mws", 0.5);
    ProviderPreferences prefs;
    prefs.order = {"yandex", "cloudru"};
    prefs.allowFallbacks = false;
    prefs.sort = SortSpec{SortBy::Price, SortPartition::Model};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"cr-1", "ya-1"}));
    EXPECT_FALSE(reasonFor(selection, "mws-1").isEmpty());
}

TEST_F(ChannelSelectorTest, PartitionModelSortsEachModelGroupInChainOrder)
{
    add("m1-slow", "a", 1.0, {kModel});
    add("m1-fast", "b", 1.0, {kModel});
    add("m2-fastest", "c", 1.0, {kFallback});
    recordThroughput("m1-slow", 10, kModel);
    recordThroughput("m1-fast", 50, kModel);
    recordThroughput("m2-fastest", 500, kFallback);
    ProviderPreferences prefs;
    prefs.sort = SortSpec{SortBy::Throughput, SortPartition::Model};
    EXPECT_EQ(orderedIds(select(requestFor({kModel, kFallback}, prefs))),
              QStringList({"m1-fast@" + kModel, "m1-slow@" + kModel, "m2-fastest@" + kFallback}));
}

TEST_F(ChannelSelectorTest, PartitionNoneSortsAllModelsTogether)
{
    add("m1-slow", "a", 1.0, {kModel});
    add("m1-fast", "b", 1.0, {kModel});
    add("m2-fastest", "c", 1.0, {kFallback});
    add("m2-unmeasured", "d", 1.0, {kFallback});
    recordThroughput("m1-slow", 10, kModel);
    recordThroughput("m1-fast", 50, kModel);
    recordThroughput("m2-fastest", 500, kFallback);
    ProviderPreferences prefs;
    prefs.sort = SortSpec{SortBy::Throughput, SortPartition::None};
    const Selection selection = select(requestFor({kModel, kFallback}, prefs));
    EXPECT_EQ(orderedIds(selection), QStringList({"m2-fastest@" + kFallback, "m1-fast@" + kModel,
                                                  "m1-slow@" + kModel, "m2-unmeasured@" + kFallback}));
    EXPECT_TRUE(selection.notes.join("\n").contains("all models (sort partition none): sort by throughput"));
}

TEST_F(ChannelSelectorTest, PartitionNoneWithPriceAndThresholdPicksTheCheapestThatMeetsIt)
{
    add("m1-dear", "a", 4.0, {kModel});
    add("m2-cheap-slow", "b", 1.0, {kFallback});
    add("m2-mid", "c", 2.0, {kFallback});
    recordThroughput("m1-dear", 90, kModel);
    recordThroughput("m2-cheap-slow", 5, kFallback);
    recordThroughput("m2-mid", 80, kFallback);
    ProviderPreferences prefs;
    prefs.sort = SortSpec{SortBy::Price, SortPartition::None};
    prefs.preferredMinThroughput = PercentileThresholds{30.0, {}, {}, {}};
    EXPECT_EQ(orderedIds(select(requestFor({kModel, kFallback}, prefs))),
              QStringList({"m2-mid@" + kFallback, "m1-dear@" + kModel, "m2-cheap-slow@" + kFallback}));
}

// --- stickiness ----------------------------------------------------------------------------

TEST_F(ChannelSelectorTest, StickyChannelGoesFirstWhenHealthy)
{
    add("cheap", "a", 0.1);
    add("sticky", "b", 10.0);
    SelectionRequest request = requestFor();
    request.stickyChannelId = "sticky";
    const Selection selection = select(request);
    EXPECT_EQ(channelIds(selection), QStringList({"sticky", "cheap"}));
    EXPECT_TRUE(selection.notes.first().contains("sticky channel sticky first"));
}

TEST_F(ChannelSelectorTest, StickyChannelIsDroppedWhenFailedRecentlyOrCoolingDown)
{
    add("sticky", "a", 0.1);
    add("other", "b", 10.0);
    SelectionRequest request = requestFor();
    request.stickyChannelId = "sticky";

    health.failed = {"sticky"};
    Selection selection = select(request);
    EXPECT_EQ(channelIds(selection), QStringList({"other", "sticky"}));
    EXPECT_TRUE(selection.notes.first().contains("sticky channel sticky unhealthy → not preferred"));

    health.failed.clear();
    health.cooling = {"sticky"};
    EXPECT_EQ(channelIds(select(request)), QStringList({"other", "sticky"}));
}

TEST_F(ChannelSelectorTest, StickinessAppliesToThePrimaryModelOnly)
{
    add("m1", "a", 1.0, {kModel});
    add("m2-a", "b", 1.0, {kFallback});
    add("m2-sticky", "c", 1.0, {kFallback});
    SelectionRequest request = requestFor({kModel, kFallback});
    request.stickyChannelId = "m2-sticky";
    EXPECT_EQ(orderedIds(select(request)),
              QStringList({"m1@" + kModel, "m2-a@" + kFallback, "m2-sticky@" + kFallback}));
}

TEST_F(ChannelSelectorTest, StickinessIsIgnoredWithSortOrOrder)
{
    add("cheap", "a", 1.0);
    add("sticky", "b", 2.0);
    SelectionRequest request = requestFor();
    request.stickyChannelId = "sticky";

    request.preferences.sort = SortSpec{SortBy::Price, SortPartition::Model};
    Selection selection = select(request);
    EXPECT_EQ(channelIds(selection), QStringList({"cheap", "sticky"}));
    EXPECT_TRUE(selection.notes.contains("stickiness ignored: explicit sort/order"));

    request.preferences.sort.reset();
    request.preferences.order = {"a"};
    EXPECT_EQ(channelIds(select(request)), QStringList({"cheap", "sticky"}));
}

} // namespace
} // namespace sy::routing::test

namespace sy::routing::test {
namespace {

// A view that answers like FakeHealth and counts the questions.
class CountingHealth final : public HealthView {
public:
    mutable int single = 0;   // failedRecently / isCoolingDown / healthFactor
    mutable int factsAsked = 0;
    bool failedRecently(const QString &) const override { return ++single, false; }
    bool isCoolingDown(const QString &channelId) const override { return ++single, channelId == "cool"; }
    double healthFactor(const QString &, const QString &) const override { return ++single, 1.0; }
    HealthFacts facts(const QString &channelId, const QString &) const override
    {
        ++factsAsked;
        return {false, channelId == "cool", 1.0};
    }
};

TEST_F(ChannelSelectorTest, HealthIsAskedOnceForEachCandidateThatPassedTheFilters)
{
    add("a", "x", 1.0, {kModel, kFallback});
    add("cool", "y", 1.0, {kModel});
    add("ignored", "z", 1.0, {kModel});
    CountingHealth counting;
    ChannelSelector countingSelector{metrics, counting, random};
    ProviderPreferences prefs;
    prefs.ignore = {"z"};
    const Selection selection = countingSelector.select(channels, requestFor({kModel, kFallback}, prefs));
    EXPECT_EQ(orderedIds(selection), QStringList({"a@" + kModel, "cool@" + kModel, "a@" + kFallback}));
    EXPECT_EQ(counting.factsAsked, 3);
    EXPECT_EQ(counting.single, 0);
    // ... and every step reads that answer: the cooling channel still went last in its group.
    ASSERT_EQ(selection.ordered.size(), 3u);
    EXPECT_TRUE(selection.ordered[1].health.coolingDown);
}

} // namespace
} // namespace sy::routing::test
