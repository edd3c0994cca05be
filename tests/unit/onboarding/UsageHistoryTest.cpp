// Usage per day: every day of the window present, requests and tokens from the log, cost from
// the ledger, each request counted once, CSV export.
#include "onboarding/UsageHistory.h"

#include <QJsonArray>
#include <QTimeZone>
#include <gtest/gtest.h>

namespace sy::onboarding {
namespace {

const QDate kToday(2026, 11, 30);

QDateTime at(int day, int hour = 12)
{
    return QDateTime(QDate(2026, 11, day), QTime(hour, 0), Qt::UTC);
}

TEST(UsageHistoryTest, EveryDayOfTheWindowIsPresentOldestFirst)
{
    const std::vector<UsageDay> days = usageHistory({}, {}, UsageGrouping::Key, kToday, 30);
    ASSERT_EQ(days.size(), 30u);
    EXPECT_EQ(days.front().date, QDate(2026, 11, 1));
    EXPECT_EQ(days.back().date, kToday);
    for (const UsageDay &day : days)
        EXPECT_TRUE(day.rows.empty());
}

TEST(UsageHistoryTest, RequestsComeFromTheLogAndCostFromTheLedger)
{
    const std::vector<UsageRequest> requests{{"r1", at(29), "ide", "acme/a", 10, 5},
                                             {"r2", at(29), "ide", "acme/b", 20, 10},
                                             {"r3", at(30), "ci", "acme/a", 1, 1}};
    const std::vector<UsageCharge> charges{{"r1", at(29), "ide", "acme/a", 10, 5, 1'500'000},
                                           {"r3", at(30), "ci", "acme/a", 1, 1, 250'000}};
    const std::vector<UsageDay> byKey = usageHistory(requests, charges, UsageGrouping::Key, kToday, 2);
    ASSERT_EQ(byKey.size(), 2u);
    ASSERT_EQ(byKey[0].rows.size(), 1u);
    EXPECT_EQ(byKey[0].rows[0].name.toStdString(), "ide");
    EXPECT_EQ(byKey[0].rows[0].requests, 2);
    EXPECT_EQ(byKey[0].rows[0].promptTokens, 30);
    EXPECT_EQ(byKey[0].rows[0].completionTokens, 15);
    EXPECT_EQ(byKey[0].rows[0].costNanos, 1'500'000);
    ASSERT_EQ(byKey[1].rows.size(), 1u);
    EXPECT_EQ(byKey[1].rows[0].name.toStdString(), "ci");

    const std::vector<UsageDay> byModel = usageHistory(requests, charges, UsageGrouping::Model, kToday, 2);
    ASSERT_EQ(byModel[0].rows.size(), 2u);
    EXPECT_EQ(byModel[0].rows[0].name.toStdString(), "acme/a");
    EXPECT_EQ(byModel[0].rows[1].name.toStdString(), "acme/b");
    EXPECT_EQ(byModel[0].rows[1].costNanos, 0);
}

TEST(UsageHistoryTest, AChargeWhoseRequestLeftTheLogStillCountsOnce)
{
    const std::vector<UsageCharge> charges{{"gone", at(28), "ide", "acme/a", 7, 3, 1'000}};
    const std::vector<UsageDay> days = usageHistory({}, charges, UsageGrouping::Key, kToday, 3);
    ASSERT_EQ(days[0].rows.size(), 1u);
    EXPECT_EQ(days[0].rows[0].requests, 1);
    EXPECT_EQ(days[0].rows[0].promptTokens, 7);
}

TEST(UsageHistoryTest, RequestsOutsideTheWindowAreLeftOut)
{
    const std::vector<UsageRequest> requests{{"old", at(1), "ide", "acme/a", 1, 1}};
    const std::vector<UsageDay> days = usageHistory(requests, {}, UsageGrouping::Key, kToday, 7);
    for (const UsageDay &day : days)
        EXPECT_TRUE(day.rows.empty());
}

TEST(UsageHistoryTest, JsonAndCsvCarryTheSameRows)
{
    const std::vector<UsageRequest> requests{{"r1", at(30), "team, ops", "acme/a", 10, 5}};
    const std::vector<UsageCharge> charges{{"r1", at(30), "team, ops", "acme/a", 10, 5, 12'300'000}};
    const std::vector<UsageDay> days = usageHistory(requests, charges, UsageGrouping::Key, kToday, 2);
    const QJsonObject json = usageHistoryJson(days, UsageGrouping::Key);
    EXPECT_EQ(json.value("by").toString().toStdString(), "key");
    const QJsonArray list = json.value("days").toArray();
    ASSERT_EQ(list.size(), 2);
    EXPECT_EQ(list[1].toObject().value("date").toString().toStdString(), "2026-11-30");
    const QJsonObject row = list[1].toObject().value("rows").toArray().first().toObject();
    EXPECT_EQ(row.value("requests").toInt(), 1);
    EXPECT_EQ(row.value("prompt_tokens").toInt(), 10);
    EXPECT_EQ(row.value("completion_tokens").toInt(), 5);
    EXPECT_DOUBLE_EQ(row.value("cost").toDouble(), 0.0123);
    EXPECT_EQ(usageHistoryCsv(days).toStdString(),
              "date,name,requests,prompt_tokens,completion_tokens,cost\n"
              "2026-11-30,\"team, ops\",1,10,5,0.012300\n");
}

} // namespace
} // namespace sy::onboarding
