// Ordering rules of SPEC §3.5 through ChannelSelector::select: the default weighted draw (scripted
// and statistical), recently failed last, sort by each key with and without metrics, preferred_*
// thresholds, cooling down last in every mode.
#include "RoutingTestSupport.h"
#include "routing/ChannelOrdering.h"

namespace sy::routing::test {
namespace {

class ChannelOrderingTest : public RoutingTest {
protected:
    static ProviderPreferences sortedBy(SortBy by, SortPartition partition = SortPartition::Model)
    {
        ProviderPreferences prefs;
        prefs.sort = SortSpec{by, partition};
        return prefs;
    }
    // Channels p1, p2, p4 at prices 1, 2, 4: weights 1, 1/4, 1/16 (total 1.3125).
    void addPricedOneTwoFour()
    {
        add("p1", "a", 1.0);
        add("p2", "b", 2.0);
        add("p4", "c", 4.0);
    }
};

// --- default order -------------------------------------------------------------------------

TEST_F(ChannelOrderingTest, DefaultDrawFollowsCumulativeWeightsOfInversePriceSquared)
{
    addPricedOneTwoFour();
    // Weights 1, 1/4, 1/16 (total 1.3125). 0.8 × 1.3125 = 1.05 falls in p2's slice; then over
    // p1, p4 (total 1.0625) 0.99 × 1.0625 = 1.0519 falls in p4's slice; p1 is left.
    random.values = {0.8, 0.99};
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"p2", "p4", "p1"}));

    random.values = {0.7};   // 0.7 × 1.3125 = 0.919 < 1: the cheapest first, then cumulative from 0
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"p1", "p2", "p4"}));

    // The drawn candidate's weight leaves the total: after p2, 0.9 × 1.0625 = 0.956 < 1 is p1's.
    random.values = {0.8, 0.9};
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"p2", "p1", "p4"}));
}

TEST_F(ChannelOrderingTest, HealthFactorScalesTheWeight)
{
    add("weak", "a");
    add("strong", "b");
    health.factors["weak"] = 0.25;   // weights 0.25 and 1 (total 1.25)
    random.values = {0.19};          // 0.2375 < 0.25
    EXPECT_EQ(channelIds(select(requestFor())).first(), "weak");
    random.values = {0.21};          // 0.2625 ≥ 0.25
    EXPECT_EQ(channelIds(select(requestFor())).first(), "strong");
}

TEST_F(ChannelOrderingTest, FreeChannelIsCheapestWithAFiniteWeight)
{
    add("free", "a", 0.0);
    add("paid", "b", 1.0);
    // Free counts as kMinWeightedPrice: weights 10^4 and 1 (total 10001).
    random.values = {0.5};
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"free", "paid"}));
    random.values = {0.99995};       // 10000.5 > 10^4: the paid channel still gets its share
    EXPECT_EQ(channelIds(select(requestFor())), QStringList({"paid", "free"}));
}

TEST_F(ChannelOrderingTest, FirstPositionShareMatchesNormalisedWeights)
{
    addPricedOneTwoFour();
    SeededRandom seeded(20240601);
    ChannelSelector seededSelector(metrics, health, seeded);

    const int draws = 4000;
    QHash<QString, int> firsts;
    for (int i = 0; i < draws; ++i) {
        const Selection selection = seededSelector.select(channels, requestFor());
        ASSERT_EQ(selection.ordered.size(), 3u);
        ++firsts[selection.ordered.front().channel->id];
    }
    const double total = 1.0 + 1.0 / 4 + 1.0 / 16;
    const std::pair<const char *, double> expected[] = {{"p1", 1.0 / total}, {"p2", 0.25 / total},
                                                        {"p4", 0.0625 / total}};
    for (const auto &[id, share] : expected) {
        const double observed = double(firsts.value(QString::fromLatin1(id))) / draws;
        EXPECT_NEAR(observed, share, 0.03) << id;   // ±3 percentage points (≈ 4 standard errors)
    }
}

TEST_F(ChannelOrderingTest, SecondPositionShareMatchesTheWeightsLeftAfterTheFirst)
{
    addPricedOneTwoFour();
    SeededRandom seeded(20261207);
    ChannelSelector seededSelector(metrics, health, seeded);

    // After p2 is drawn first, p1 comes second with 1 / (1 + 1/16) ≈ 0.941.
    int p2First = 0;
    int p1Second = 0;
    for (int i = 0; i < 6000; ++i) {
        const Selection selection = seededSelector.select(channels, requestFor());
        ASSERT_EQ(selection.ordered.size(), 3u);
        if (selection.ordered[0].channel->id != "p2")
            continue;
        ++p2First;
        p1Second += selection.ordered[1].channel->id == "p1" ? 1 : 0;
    }
    ASSERT_GT(p2First, 800);  // ≈ 19 % of the draws
    EXPECT_NEAR(double(p1Second) / p2First, 1.0 / (1.0 + 1.0 / 16), 0.04);  // ≈ 4 standard errors
}

TEST_F(ChannelOrderingTest, RecentlyFailedGoLastWithTheSameDrawAmongThemselves)
{
    add("cheap-failed", "a", 1.0);
    add("dear-failed", "b", 2.0);
    add("ok", "c", 8.0);
    health.failed = {"cheap-failed", "dear-failed"};
    // Draw over {ok}: one value; then over the failed (weights 1, 1/4): 0.9 × 1.25 = 1.125 → dear.
    random.values = {0.0, 0.9};
    const Selection selection = select(requestFor());
    EXPECT_EQ(channelIds(selection), QStringList({"ok", "dear-failed", "cheap-failed"}));
    ASSERT_EQ(selection.notes.size(), 1);
    EXPECT_EQ(selection.notes.first(),
              kModel + ": weighted random by 1/price² × health; dear-failed, cheap-failed failed recently → last");
}

// --- sort ----------------------------------------------------------------------------------

TEST_F(ChannelOrderingTest, SortByPriceIsCheapestFirstWithTiesInDefaultOrder)
{
    add("three", "a", 3.0);
    add("one-a", "b", 1.0);
    add("two", "c", 2.0);
    add("one-b", "d", 1.0);
    health.failed = {"one-a"};   // the default order (base for ties) puts it after one-b
    EXPECT_EQ(channelIds(select(requestFor({kModel}, sortedBy(SortBy::Price)))),
              QStringList({"one-b", "one-a", "two", "three"}));
}

TEST_F(ChannelOrderingTest, SortByThroughputIsHighestFirstAndWithoutMetricsLast)
{
    add("none-1", "a");
    add("slow", "b");
    add("fast", "c");
    add("none-2", "d");
    recordThroughput("slow", 40);
    recordThroughput("fast", 120);
    const Selection selection = select(requestFor({kModel}, sortedBy(SortBy::Throughput)));
    EXPECT_EQ(channelIds(selection), QStringList({"fast", "slow", "none-1", "none-2"}));
    EXPECT_TRUE(selection.notes.join("\n").contains("none-1, none-2 without metrics → last"));
}

TEST_F(ChannelOrderingTest, SortByLatencyUsesTimeToFirstTokenLowestFirst)
{
    add("no-ttft", "a");
    add("late-start", "b");
    add("early-start", "c");
    recordThroughput("no-ttft", 100);   // metrics, but no time to first token
    // early-start streams its first token soon but its answer takes long overall.
    auto record = [&](const QString &id, int ttftMs, int totalMs) {
        metrics::AttemptSample sample;
        sample.success = true;
        sample.timeToFirstToken = std::chrono::milliseconds(ttftMs);
        sample.totalLatency = std::chrono::milliseconds(totalMs);
        metrics.recordFinish(metrics::ChannelModel{id, kModel}, sample);
    };
    record("late-start", 900, 1000);
    record("early-start", 200, 9000);
    EXPECT_EQ(channelIds(select(requestFor({kModel}, sortedBy(SortBy::Latency)))),
              QStringList({"early-start", "late-start", "no-ttft"}));
}

TEST_F(ChannelOrderingTest, SortWithoutAnyMetricsKeepsDefaultOrder)
{
    add("a", "a", 1.0);
    add("b", "b", 1.0);
    add("c", "c", 1.0);
    health.failed = {"a"};
    for (SortBy by : {SortBy::Throughput, SortBy::Latency})
        EXPECT_EQ(channelIds(select(requestFor({kModel}, sortedBy(by)))), QStringList({"b", "c", "a"}));
}

// --- preferred thresholds ------------------------------------------------------------------

TEST_F(ChannelOrderingTest, MinThroughputMissesMoveToTheEndKeepingOrder)
{
    add("fast", "a");
    add("slow-1", "b");
    add("unmeasured", "c");
    add("slow-2", "d");
    add("ok", "e");
    recordThroughput("fast", 100);
    recordThroughput("slow-1", 50);
    recordThroughput("slow-2", 20);
    recordThroughput("ok", 60);   // exactly at the threshold: met
    ProviderPreferences prefs;
    prefs.preferredMinThroughput = PercentileThresholds{60.0, {}, {}, {}};
    const Selection selection = select(requestFor({kModel}, prefs));
    EXPECT_EQ(channelIds(selection), QStringList({"fast", "unmeasured", "ok", "slow-1", "slow-2"}));
    EXPECT_TRUE(selection.notes.join("\n").contains("slow-1, slow-2 below preferred thresholds → end"));
}

TEST_F(ChannelOrderingTest, MaxLatencyIsInSecondsOfTimeToFirstToken)
{
    add("slow", "a");
    add("at-limit", "b");
    add("quick", "c");
    recordTtft("slow", 1001);
    recordTtft("at-limit", 1000);
    recordTtft("quick", 300);
    ProviderPreferences prefs;
    prefs.preferredMaxLatency = PercentileThresholds{1.0, {}, {}, {}};
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"at-limit", "quick", "slow"}));
}

TEST_F(ChannelOrderingTest, EveryGivenPercentileMustBeMet)
{
    add("tail", "a");
    add("steady", "b");
    for (int i = 0; i < 8; ++i)
        recordTtft("tail", 100);
    recordTtft("tail", 5000);
    recordTtft("tail", 5000);   // p50 = 100 ms, p90 = 5000 ms
    recordTtft("steady", 400);

    ProviderPreferences prefs;
    prefs.preferredMaxLatency = PercentileThresholds{1.0, {}, {}, {}};
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"tail", "steady"}));
    prefs.preferredMaxLatency = PercentileThresholds{1.0, {}, 1.0, {}};
    EXPECT_EQ(channelIds(select(requestFor({kModel}, prefs))), QStringList({"steady", "tail"}));
}

TEST_F(ChannelOrderingTest, ThresholdsApplyAfterSortWithinEachModelGroup)
{
    add("m1-fast-laggy", "a", 1.0, {kModel});
    add("m1-slow", "b", 1.0, {kModel});
    add("m2", "c", 1.0, {kFallback});
    recordSample("m1-fast-laggy", kModel, 200, 3000);
    recordSample("m1-slow", kModel, 50, 200);
    recordSample("m2", kFallback, 300, 5000);
    ProviderPreferences prefs = sortedBy(SortBy::Throughput);
    prefs.preferredMaxLatency = PercentileThresholds{2.0, {}, {}, {}};
    // The primary's laggy channel moves behind m1-slow but stays before the fallback model.
    EXPECT_EQ(orderedIds(select(requestFor({kModel, kFallback}, prefs))),
              QStringList({"m1-slow@" + kModel, "m1-fast-laggy@" + kModel, "m2@" + kFallback}));
}

// --- cooling down --------------------------------------------------------------------------

TEST_F(ChannelOrderingTest, CoolingDownGoesToTheVeryEndInEveryMode)
{
    add("cooling", "a", 0.5);
    add("failed", "b", 1.0);
    add("ok", "c", 2.0);
    recordThroughput("cooling", 500);
    recordThroughput("failed", 100);
    recordThroughput("ok", 50);
    health.cooling = {"cooling"};
    health.failed = {"failed"};

    ProviderPreferences ordered;
    ordered.order = {"a", "b", "c"};
    const std::pair<const char *, ProviderPreferences> modes[] = {
        {"default", ProviderPreferences{}},
        {"sort price", sortedBy(SortBy::Price)},
        {"sort throughput", sortedBy(SortBy::Throughput)},
        {"order", ordered}};
    for (const auto &[mode, prefs] : modes) {
        const Selection selection = select(requestFor({kModel}, prefs));
        ASSERT_EQ(selection.ordered.size(), 3u) << mode;
        EXPECT_EQ(selection.ordered.back().channel->id, "cooling") << mode;
        EXPECT_TRUE(selection.notes.join("\n").contains("cooling cooling down → very end")) << mode;
    }
}

} // namespace
} // namespace sy::routing::test
