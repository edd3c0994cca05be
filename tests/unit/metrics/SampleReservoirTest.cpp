// SampleReservoir: keeps everything up to its capacity, never more, and weights what it keeps.
#include "metrics/SampleReservoir.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace sy::metrics {
namespace {

TEST(SampleReservoirTest, KeepsEveryValueUpToCapacity)
{
    SampleReservoir reservoir(4);
    std::uint64_t random = 1;
    for (int i = 0; i < 4; ++i)
        reservoir.offer(i, random);
    EXPECT_EQ(reservoir.values(), (std::vector<double>{0, 1, 2, 3}));
    EXPECT_EQ(reservoir.weightPerValue(), 1.0);
}

TEST(SampleReservoirTest, NeverHoldsMoreThanCapacityAndWeighsWhatItDropped)
{
    SampleReservoir reservoir(8);
    std::uint64_t random = 1;
    for (int i = 0; i < 1000; ++i)
        reservoir.offer(i, random);
    EXPECT_EQ(reservoir.values().size(), 8u);
    EXPECT_EQ(reservoir.seenCount(), 1000u);
    EXPECT_DOUBLE_EQ(reservoir.weightPerValue(), 125.0);
    // Later values do get in: a reservoir that froze on the first eight would hold only 0..7.
    EXPECT_GT(*std::max_element(reservoir.values().begin(), reservoir.values().end()), 7.0);
}

TEST(SampleReservoirTest, ClearForgetsValuesAndCounts)
{
    SampleReservoir reservoir(2);
    std::uint64_t random = 1;
    for (int i = 0; i < 5; ++i)
        reservoir.offer(i, random);
    reservoir.clear();
    EXPECT_TRUE(reservoir.values().empty());
    EXPECT_EQ(reservoir.seenCount(), 0u);
    EXPECT_EQ(reservoir.weightPerValue(), 0.0);
}

} // namespace
} // namespace sy::metrics
