// UsageArchive: the charges that left the ledger's memory, summed per UTC day, key and model, come
// back as charges the usage history counts exactly as it counted them one by one; bounded by age.
#include "onboarding/UsageArchive.h"

#include <gtest/gtest.h>

namespace sy::onboarding {
namespace {

QDateTime at(QDate day, int hour)
{
    return QDateTime(day, QTime(hour, 0), Qt::UTC);
}

const QDate kToday(2026, 11, 30);

TEST(UsageArchiveTest, SumsGiveTheUsageHistoryOfTheChargesOneByOne)
{
    std::vector<UsageCharge> oneByOne;
    for (int i = 0; i < 40; ++i)
        oneByOne.push_back({QStringLiteral("r%1").arg(i), at(kToday.addDays(-(i % 3)), i % 24),
                            i % 2 ? QStringLiteral("ide") : QStringLiteral("ci"),
                            i % 4 ? QStringLiteral("acme/a") : QStringLiteral("acme/b"), 10 + i, i, 1'000 + i});
    UsageArchive archive;
    for (const UsageCharge &charge : oneByOne)
        archive.record(charge);
    EXPECT_LE(archive.size(), 3u * 2u * 2u);

    for (UsageGrouping by : {UsageGrouping::Key, UsageGrouping::Model}) {
        const std::vector<UsageDay> expected = usageHistory({}, oneByOne, by, kToday, 5);
        const std::vector<UsageDay> summed = usageHistory({}, archive.charges(), by, kToday, 5);
        EXPECT_EQ(usageHistoryCsv(summed), usageHistoryCsv(expected));
    }
}

TEST(UsageArchiveTest, KeepsTheDaysTheUsageHistoryCanAskFor)
{
    UsageArchive archive;
    const QDate first = kToday.addDays(-1'000);
    for (QDate day = first; day <= kToday; day = day.addDays(1))
        archive.record({QString(), at(day, 12), QStringLiteral("ide"), QStringLiteral("acme/a"), 1, 1, 5});
    EXPECT_EQ(archive.size(), std::size_t(UsageArchive::kKeptDays + 1));
    EXPECT_EQ(archive.charges().front().at, QDateTime(kToday.addDays(-UsageArchive::kKeptDays), QTime(0, 0), Qt::UTC));
    archive.record({QString(), at(first, 12), QStringLiteral("ide"), QStringLiteral("acme/a"), 1, 1, 5});
    EXPECT_EQ(archive.size(), std::size_t(UsageArchive::kKeptDays + 1));  // older than kept: nothing
}

} // namespace
} // namespace sy::onboarding
