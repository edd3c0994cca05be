// ProviderNames: provider.order / only / ignore names folded once and matched as
// QString::compare(Qt::CaseInsensitive) would, and RouteTable's folded names of each channel.
#include "routing/ProviderNames.h"
#include "routing/RouteTable.h"

#include <gtest/gtest.h>

#include <climits>

namespace sy::routing {
namespace {

config::Channel channel(const QString &id, const QString &provider)
{
    config::Channel c;
    c.id = id;
    c.provider = provider;
    return c;
}

TEST(ProviderNamesTest, AsciiNamesMatchWhateverTheirCase)
{
    EXPECT_TRUE(FoldedName("DeepSeek").matches(FoldedName("deepseek")));
    EXPECT_TRUE(FoldedName("open-AI_2").matches(FoldedName("OPEN-ai_2")));
    EXPECT_FALSE(FoldedName("deepseek").matches(FoldedName("deepseek2")));
    EXPECT_FALSE(FoldedName("provider-3").matches(FoldedName("provider-5")));
    EXPECT_TRUE(FoldedName("").matches(FoldedName("")));
    // Only letters change case: '@' (0x40) and '`' (0x60) are not one letter in two cases.
    EXPECT_FALSE(FoldedName("@").matches(FoldedName("`")));
}

TEST(ProviderNamesTest, NonAsciiNamesMatchAsQtCompares)
{
    // U+212A KELVIN SIGN folds to 'k': an ASCII name and a non-ASCII one may still match.
    const QString kelvin = QString(QChar(0x212A)) + QStringLiteral("imi");
    ASSERT_EQ(kelvin.compare(QStringLiteral("kimi"), Qt::CaseInsensitive), 0);
    EXPECT_TRUE(FoldedName(kelvin).matches(FoldedName("Kimi")));
    EXPECT_TRUE(FoldedName("KIMI").matches(FoldedName(kelvin)));
    EXPECT_TRUE(FoldedName(QStringLiteral("Ünïcode")).matches(FoldedName(QStringLiteral("üNÏCODE"))));
    EXPECT_FALSE(FoldedName(QStringLiteral("Ünïcode")).matches(FoldedName(QStringLiteral("unicode"))));
}

TEST(ProviderNamesTest, MatchesEveryPairAsTheCaseInsensitiveCompare)
{
    const QStringList names = {"a", "A", "ab", "AB", "aB", "b", "", "Ä", "ä", "K",
                               QString(QChar(0x212A)), "k", "provider-1", "Provider-1", "provider-10"};
    for (const QString &a : names) {
        for (const QString &b : names)
            EXPECT_EQ(FoldedName(a).matches(FoldedName(b)), a.compare(b, Qt::CaseInsensitive) == 0)
                << qPrintable(a) << " / " << qPrintable(b);
    }
}

TEST(ProviderNamesTest, ChannelMatchesItsProviderSlugOrItsId)
{
    const ChannelNames names(channel("Fast-EU", "DeepSeek"));
    EXPECT_TRUE(names.matches(FoldedName("deepseek")));
    EXPECT_TRUE(names.matches(FoldedName("fast-eu")));
    EXPECT_FALSE(names.matches(FoldedName("fast")));
    EXPECT_TRUE(anyNameMatches(names, foldedNames({"other", "FAST-EU"})));
    EXPECT_FALSE(anyNameMatches(names, foldedNames({"other"})));
    EXPECT_FALSE(anyNameMatches(names, {}));
}

TEST(ProviderNamesTest, OrderRankIsTheFirstListedPosition)
{
    const ChannelNames names(channel("fast-eu", "deepseek"));
    EXPECT_EQ(orderRank(names, foldedNames({"qwen", "Fast-EU", "deepseek"})), 1);
    EXPECT_EQ(orderRank(names, foldedNames({"DEEPSEEK"})), 0);
    EXPECT_EQ(orderRank(names, foldedNames({"qwen"})), INT_MAX);
}

TEST(ProviderNamesTest, RouteTableKeepsEachChannelsFoldedNamesByPosition)
{
    const std::vector<config::Channel> channels = {channel("One", "Alpha"), channel("two", "BETA")};
    const RouteTable table(channels);
    EXPECT_TRUE(table.namesOf(0).matches(FoldedName("alpha")));
    EXPECT_TRUE(table.namesOf(0).matches(FoldedName("ONE")));
    EXPECT_TRUE(table.namesOf(1).matches(FoldedName("beta")));
    EXPECT_FALSE(table.namesOf(1).matches(FoldedName("alpha")));
}

} // namespace
} // namespace sy::routing
