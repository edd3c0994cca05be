// RouteKeys and the selector's use of them: every route of a route table is numbered by the
// views once, then read by its slot; another table (another configuration) is numbered again; a
// selection asks the views by those numbers.
#include "RoutingTestSupport.h"

#include "routing/RouteKeys.h"
#include "routing/RouteTable.h"

namespace sy::routing::test {
namespace {

// A view that numbers (channel, model) pairs in the order asked and counts the questions.
class NumberingHealth final : public HealthView {
public:
    mutable QHash<QString, int> numbers;   // "channel|model" → number
    mutable int keysAsked = 0;
    mutable std::vector<HealthKey> filledBy;   // the keys fillFacts() was given
    bool failedRecently(const QString &) const override { return false; }
    bool isCoolingDown(const QString &) const override { return false; }
    double healthFactor(const QString &, const QString &) const override { return 1.0; }
    HealthKey keyOf(const QString &channelId, const QString &modelId) const override
    {
        ++keysAsked;
        const QString name = channelId + QLatin1Char('|') + modelId;
        if (!numbers.contains(name))
            numbers.insert(name, int(numbers.size()));
        return {numbers.value(name), 0};
    }
    void fillFacts(std::span<Candidate> candidates) const override
    {
        for (Candidate &candidate : candidates) {
            filledBy.push_back(candidate.keys.health);
            candidate.health = {};
        }
    }
};

class RouteKeysTest : public RoutingTest {
protected:
    NumberingHealth numbering;
};

TEST_F(RouteKeysTest, EachRouteIsNumberedOncePerTable)
{
    add("a", "x", 1.0, {kModel, kFallback});
    add("b", "y", 1.0, {kModel});
    const RouteTable table(channels);
    RouteKeys keys(metrics, numbering);
    for (int round = 0; round < 3; ++round) {
        for (const QString &model : {kModel, kFallback}) {
            for (const Route &route : table.routesOf(model))
                keys.of(table, route, channels[size_t(route.channel)].id, model);
        }
    }
    EXPECT_EQ(keys.resolvedCount(), 3);
    EXPECT_EQ(numbering.keysAsked, 3);

    const Route &b = table.routesOf(kModel)[1];
    const StateKeys &bKeys = keys.of(table, b, "b", kModel);
    EXPECT_EQ(bKeys.health.channel, numbering.numbers.value("b|" + kModel));
    EXPECT_EQ(bKeys.metrics, metrics.idOf({"b", kModel}));
}

TEST_F(RouteKeysTest, AnotherTableIsNumberedAgainAndACopyIsNot)
{
    add("a", "x");
    const RouteTable first(channels);
    const RouteTable copy = first;
    const RouteTable second(channels);
    EXPECT_NE(first.serial(), second.serial());
    EXPECT_EQ(first.serial(), copy.serial());
    RouteKeys keys(metrics, numbering);
    keys.of(first, first.routesOf(kModel)[0], "a", kModel);
    keys.of(copy, copy.routesOf(kModel)[0], "a", kModel);
    EXPECT_EQ(keys.resolvedCount(), 1);
    keys.of(second, second.routesOf(kModel)[0], "a", kModel);
    EXPECT_EQ(keys.resolvedCount(), 2);
}

TEST_F(RouteKeysTest, RoutesAreNumberedDenselyInTheTable)
{
    add("a", "x", 1.0, {kModel, kFallback});
    add("b", "y", 1.0, {kFallback});
    const RouteTable table(channels);
    EXPECT_EQ(table.routeCount(), 3);
    QList<int> slotNumbers;
    for (const QString &model : {kModel, kFallback}) {
        for (const Route &route : table.routesOf(model))
            slotNumbers.append(route.slot);
    }
    std::sort(slotNumbers.begin(), slotNumbers.end());
    EXPECT_EQ(slotNumbers, QList<int>({0, 1, 2}));
}

TEST_F(RouteKeysTest, SelectionsOnOneTableAskTheViewByNumberAndNumberOnce)
{
    add("a", "x", 1.0, {kModel, kFallback});
    add("b", "y", 1.0, {kModel});
    const RouteTable table(channels);
    ChannelSelector numberingSelector{metrics, numbering, random};
    for (int round = 0; round < 2; ++round)
        numberingSelector.select(channels, table, requestFor({kModel, kFallback}));
    EXPECT_EQ(numbering.keysAsked, 3);   // once per route, not once per selection
    ASSERT_EQ(numbering.filledBy.size(), 6u);
    for (const HealthKey &key : numbering.filledBy)
        EXPECT_GE(key.channel, 0);
}

TEST_F(RouteKeysTest, SortReadsTheMetricsOfTheCandidatesNumber)
{
    add("slow", "x");
    add("fast", "y");
    recordThroughput("slow", 10.0);
    recordThroughput("fast", 90.0);
    const RouteTable table(channels);
    ChannelSelector numberingSelector{metrics, numbering, random};
    SelectionRequest request = requestFor();
    request.preferences.sort = SortSpec{SortBy::Throughput, SortPartition::Model};
    const Selection selection = numberingSelector.select(channels, table, request);
    EXPECT_EQ(channelIds(selection), QStringList({"fast", "slow"}));
    ASSERT_EQ(selection.ordered.size(), 2u);
    EXPECT_EQ(selection.ordered[0].keys.metrics, metrics.idOf({"fast", kModel}));
}

} // namespace
} // namespace sy::routing::test
