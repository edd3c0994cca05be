// Money (SPEC §8): currency ↔ nanos rounds once to the nearest nano, exact decimal formatting,
// saturation at the Nanos range.
#include "billing/Money.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sy::billing {
namespace {

constexpr Nanos kMax = std::numeric_limits<Nanos>::max();
constexpr Nanos kMin = std::numeric_limits<Nanos>::min();

TEST(MoneyTest, WholeAndDecimalCurrencyConvertToExactNanos)
{
    EXPECT_EQ(fromCurrency(25.00), 25'000'000'000);
    EXPECT_EQ(fromCurrency(0.27), 270'000'000);  // 0.27 is not exact as a double; rounding fixes it
    EXPECT_EQ(fromCurrency(0.1) * 3, fromCurrency(0.3));
    EXPECT_EQ(fromCurrency(-1.5), -1'500'000'000);
    EXPECT_EQ(fromCurrency(0.0), 0);
}

TEST(MoneyTest, ConversionRoundsToTheNearestNano)
{
    EXPECT_EQ(fromCurrency(0.0000000014), 1);   // 1.4 nanos → 1
    EXPECT_EQ(fromCurrency(0.0000000016), 2);   // 1.6 nanos → 2
    EXPECT_EQ(fromCurrency(0.0000000004), 0);   // below half a nano → 0
    EXPECT_EQ(fromCurrency(-0.0000000016), -2); // negatives round symmetrically
}

TEST(MoneyTest, ConversionSaturatesAtTheRangeAndIgnoresNaN)
{
    EXPECT_EQ(fromCurrency(1e12), kMax);
    EXPECT_EQ(fromCurrency(-1e12), kMin);
    EXPECT_EQ(fromCurrency(std::numeric_limits<double>::infinity()), kMax);
    EXPECT_EQ(fromCurrency(std::nan("")), 0);
    EXPECT_EQ(fromCurrency(9.0e9), 9'000'000'000'000'000'000);  // just inside the range
}

TEST(MoneyTest, ToCurrencyIsTheInverseForDisplay)
{
    EXPECT_DOUBLE_EQ(toCurrency(25'000'000'000), 25.0);
    EXPECT_DOUBLE_EQ(toCurrency(270), 0.00000027);
    EXPECT_DOUBLE_EQ(toCurrency(-1'500'000'000), -1.5);
}

TEST(MoneyTest, FormatPrintsExactDecimalsWithSixByDefault)
{
    EXPECT_EQ(formatCurrency(25'000'000'000), QStringLiteral("25.000000"));
    EXPECT_EQ(formatCurrency(270), QStringLiteral("0.000000"));
    EXPECT_EQ(formatCurrency(270, 9), QStringLiteral("0.000000270"));
    EXPECT_EQ(formatCurrency(-1'500'000), QStringLiteral("-0.001500"));
    EXPECT_EQ(formatCurrency(1'234'567'890'123, 2), QStringLiteral("1234.57"));
    EXPECT_EQ(formatCurrency(7'000'000'000, 0), QStringLiteral("7"));
}

TEST(MoneyTest, FormatRoundsHalvesAwayFromZeroOnBothSidesOfTheHalf)
{
    EXPECT_EQ(formatCurrency(499, 6), QStringLiteral("0.000000"));
    EXPECT_EQ(formatCurrency(500, 6), QStringLiteral("0.000001"));
    EXPECT_EQ(formatCurrency(-500, 6), QStringLiteral("-0.000001"));
    EXPECT_EQ(formatCurrency(-499, 6), QStringLiteral("0.000000"));  // rounds to zero: no sign
    EXPECT_EQ(formatCurrency(999'999'500, 6), QStringLiteral("1.000000"));  // carry into units
}

TEST(MoneyTest, FormatHandlesTheExtremesAndClampsDecimals)
{
    EXPECT_EQ(formatCurrency(kMax, 9), QStringLiteral("9223372036.854775807"));
    EXPECT_EQ(formatCurrency(kMin, 9), QStringLiteral("-9223372036.854775808"));
    EXPECT_EQ(formatCurrency(1, 12), QStringLiteral("0.000000001"));
    EXPECT_EQ(formatCurrency(1'600'000'000, -3), QStringLiteral("2"));
}

TEST(MoneyTest, AddSaturatingClampsInsteadOfWrapping)
{
    EXPECT_EQ(addSaturating(2, 3), 5);
    EXPECT_EQ(addSaturating(kMax - 1, 1), kMax);
    EXPECT_EQ(addSaturating(kMax, 1), kMax);
    EXPECT_EQ(addSaturating(kMin, -1), kMin);
    EXPECT_EQ(addSaturating(kMin + 1, -1), kMin);
}

} // namespace
} // namespace sy::billing
