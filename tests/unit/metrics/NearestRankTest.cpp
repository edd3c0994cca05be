// nearestRankPercentiles: nearest rank with unit weights, and weighted ranks.
#include "metrics/NearestRank.h"

#include <gtest/gtest.h>

namespace sy::metrics {
namespace {

TEST(NearestRankTest, EmptyInputHasNoPercentiles)
{
    std::vector<WeightedValue> values;
    EXPECT_FALSE(nearestRankPercentiles(values));
}

TEST(NearestRankTest, SingleValueIsEveryPercentile)
{
    std::vector<WeightedValue> values{{7.5, 1}};
    const auto result = nearestRankPercentiles(values);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->p50, 7.5);
    EXPECT_EQ(result->p99, 7.5);
}

TEST(NearestRankTest, TwoValuesGiveTheLowerForMedianAndUpperAbove)
{
    std::vector<WeightedValue> values{{20, 1}, {10, 1}};
    const auto result = nearestRankPercentiles(values);
    EXPECT_EQ(result->p50, 10.0);  // rank ceil(1.0) = 1
    EXPECT_EQ(result->p75, 20.0);  // rank ceil(1.5) = 2
}

TEST(NearestRankTest, HundredValuesGiveTheirOwnRanks)
{
    std::vector<WeightedValue> values;
    for (int i = 100; i >= 1; --i)
        values.push_back({static_cast<double>(i), 1});
    const auto result = nearestRankPercentiles(values);
    EXPECT_EQ(result->p50, 50.0);
    EXPECT_EQ(result->p75, 75.0);
    EXPECT_EQ(result->p90, 90.0);
    EXPECT_EQ(result->p99, 99.0);
}

TEST(NearestRankTest, WeightsCountAsRepeatedValues)
{
    // 1 weighs 3 and 2 weighs 1: same as {1, 1, 1, 2}.
    std::vector<WeightedValue> values{{2, 1}, {1, 3}};
    const auto result = nearestRankPercentiles(values);
    EXPECT_EQ(result->p50, 1.0);
    EXPECT_EQ(result->p75, 1.0);  // 3 of 4 weigh exactly 75 %
    EXPECT_EQ(result->p90, 2.0);
}

TEST(NearestRankTest, FractionalWeightsMeetExactRanks)
{
    // Ten values of weight 0.1 each: p50 is met exactly at the fifth despite float sums.
    std::vector<WeightedValue> values;
    for (int i = 1; i <= 10; ++i)
        values.push_back({static_cast<double>(i), 0.1});
    const auto result = nearestRankPercentiles(values);
    EXPECT_EQ(result->p50, 5.0);
    EXPECT_EQ(result->p90, 9.0);
    EXPECT_EQ(result->p99, 10.0);
}

} // namespace
} // namespace sy::metrics
