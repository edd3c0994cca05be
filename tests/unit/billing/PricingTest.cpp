// Pricing (SPEC §8): a request's charge is usage × the answering channel's price per 1M tokens,
// rounded once per side to the nearest nano and exact over any number of requests; the
// reservation estimate is (characters / 4 + max output tokens) at the highest candidate price.
#include "billing/Pricing.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace sy::billing {
namespace {

config::Price price(double prompt, double completion)
{
    config::Price p;
    p.prompt = prompt;
    p.completion = completion;
    return p;
}

TEST(PricingTest, OneTokenAtPointTwentySevenPerMillionCostsExactly270Nanos)
{
    EXPECT_EQ(chargeForTokens(1, 0.27), 270);
    EXPECT_EQ(chargeFor(1, 0, price(0.27, 1.10)), 270);
    EXPECT_EQ(chargeFor(0, 1, price(0.27, 1.10)), 1'100);
    EXPECT_EQ(chargeFor(1, 1, price(0.27, 1.10)), 1'370);
}

TEST(PricingTest, ChargeAddsPromptAndCompletionSides)
{
    // 1200 × 0.27 + 350 × 1.10 per 1M = 0.000324 + 0.000385 currency.
    EXPECT_EQ(chargeFor(1'200, 350, price(0.27, 1.10)), 324'000 + 385'000);
    EXPECT_EQ(formatCurrency(chargeFor(1'200, 350, price(0.27, 1.10))), QStringLiteral("0.000709"));
}

TEST(PricingTest, EachSideRoundsToTheNearestNanoOnBothSidesOfTheHalf)
{
    // 0.0005 per 1M → 0.5 nano per token; 0.000499 per 1M → 0.499 nano per token.
    EXPECT_EQ(chargeForTokens(1, 0.0005), 1);
    EXPECT_EQ(chargeForTokens(1, 0.000499), 0);
    EXPECT_EQ(chargeForTokens(3, 0.0005), 2);  // 1.5 → 2
    EXPECT_EQ(chargeForTokens(2, 0.0005), 1);  // exactly 1
    // Rounded per side, not over the sum: 0.5 + 0.5 nanos → 1 + 1.
    EXPECT_EQ(chargeFor(1, 1, price(0.0005, 0.0005)), 2);
}

TEST(PricingTest, LargeTokenCountsAreExact)
{
    EXPECT_EQ(chargeForTokens(1'000'000, 0.27), 270'000'000);
    EXPECT_EQ(chargeForTokens(1'000'000'000'000, 0.27), 270'000'000'000'000);  // 1e12 tokens → 270 000 currency
    EXPECT_EQ(chargeForTokens(123'456'789, 15.0), 1'851'851'835'000);  // 123.456789 M × 15 = 1851.851835
    EXPECT_EQ(chargeForTokens(2'000'001, 0.0005), 1'000'001);  // 1 000 000.5 → 1 000 001
    // Beyond the Nanos range: saturates instead of wrapping to a credit.
    EXPECT_EQ(chargeForTokens(std::numeric_limits<qint64>::max(), 1000.0), std::numeric_limits<Nanos>::max());
}

TEST(PricingTest, AMillionSmallChargesSumExactlyToTheSingleTotal)
{
    const config::Price p = price(0.27, 1.10);
    Nanos summed = 0;
    double summedAsDouble = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        summed += chargeFor(1, 1, p);
        summedAsDouble += 0.27 / 1e6 + 1.10 / 1e6;
    }
    EXPECT_EQ(summed, chargeFor(1'000'000, 1'000'000, p));
    EXPECT_EQ(summed, fromCurrency(1.37));
    EXPECT_EQ(formatCurrency(summed, 9), QStringLiteral("1.370000000"));
    // The same sum in doubles drifts, which is why the ledger never adds currency doubles.
    EXPECT_NE(summedAsDouble, 1.37);
}

TEST(PricingTest, FreeOrNegativeInputsCostNothing)
{
    EXPECT_EQ(chargeFor(1'000, 1'000, price(0, 0)), 0);
    EXPECT_EQ(chargeFor(-5, 10, price(0.27, 1.10)), 11'000);
    EXPECT_EQ(chargeFor(10, 10, price(-1.0, 1.10)), 11'000);
}

TEST(PricingTest, EstimateUsesCharactersOverFourRoundedUpPlusMaxOutput)
{
    const config::Price p = price(1.0, 2.0);  // 1000 and 2000 nanos per token
    EXPECT_EQ(estimateCharge(400, 100, p), 100 * 1'000 + 100 * 2'000);
    EXPECT_EQ(estimateCharge(401, 100, p), 101 * 1'000 + 100 * 2'000);  // 100.25 tokens → 101
    EXPECT_EQ(estimateCharge(0, 1, p), 2'000);
}

TEST(PricingTest, EstimateFallsBackToTheDefaultMaxOutputTokens)
{
    const config::Price p = price(1.0, 2.0);
    EXPECT_EQ(estimateCharge(4, std::nullopt, p), 1'000 + kDefaultMaxOutputTokens * 2'000);
    EXPECT_EQ(estimateCharge(4, 0, p), 1'000 + kDefaultMaxOutputTokens * 2'000);
    EXPECT_EQ(estimateCharge(4, -7, p), 1'000 + kDefaultMaxOutputTokens * 2'000);
    EXPECT_EQ(kDefaultMaxOutputTokens, 1024);
}

TEST(PricingTest, HighestPriceTakesEachSideFromTheDearestCandidate)
{
    const std::vector<config::Price> candidates{price(0.27, 1.10), price(3.0, 0.5), price(1.0, 15.0)};
    const config::Price highest = highestPrice(candidates);
    EXPECT_EQ(highest.prompt, 3.0);
    EXPECT_EQ(highest.completion, 15.0);

    const config::Price none = highestPrice({});
    EXPECT_EQ(none.prompt, 0.0);
    EXPECT_EQ(none.completion, 0.0);
}

} // namespace
} // namespace sy::billing
