// The Spend page's model: the usage history answer becomes table rows (newest day first) and per
// name series over every day of the period.
#include "ModelTesting.h"
#include "UsageHistoryModel.h"

#include <QJsonDocument>
#include <gtest/gtest.h>

using sy::app::UsageHistoryModel;

namespace {

// The answer as QML hands it over: the JSON parsed into a QVariantMap.
QVariant reply(const char *json)
{
    return QJsonDocument::fromJson(json).toVariant();
}

const char *kTwoDaysByKey = R"({"by":"key","days":[
  {"date":"2026-11-30","rows":[{"name":"ide","requests":3,"prompt_tokens":300,"completion_tokens":30,"cost":0.5}]},
  {"date":"2026-11-29","rows":[{"name":"ide","requests":1,"prompt_tokens":100,"completion_tokens":10,"cost":0.25},
                               {"name":"agent","requests":10,"prompt_tokens":1000,"completion_tokens":100,"cost":2}]},
  {"date":"2026-12-01","rows":[]}]})";

} // namespace

TEST(UsageHistoryModelTest, RowsAreNewestDayFirstWithTheirNumbers)
{
    UsageHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.load(reply(kTwoDaysByKey));

    EXPECT_EQ(model.by(), "key");
    EXPECT_EQ(model.dates(), (QStringList{"2026-11-29", "2026-11-30", "2026-12-01"}));
    ASSERT_EQ(model.rowCount(), 3);
    const auto at = [&](int row, int role) { return model.index(row).data(role); };
    EXPECT_EQ(at(0, UsageHistoryModel::DateRole).toString(), "2026-11-30");
    EXPECT_EQ(at(0, UsageHistoryModel::NameRole).toString(), "ide");
    EXPECT_EQ(at(0, UsageHistoryModel::PromptTokensRole).toDouble(), 300);
    EXPECT_EQ(at(0, UsageHistoryModel::CostRole).toDouble(), 0.5);
    // Within a day the name that cost most over the period comes first.
    EXPECT_EQ(at(1, UsageHistoryModel::NameRole).toString(), "agent");
    EXPECT_EQ(at(2, UsageHistoryModel::NameRole).toString(), "ide");
    EXPECT_EQ(model.names(), (QStringList{"agent", "ide"}));
    EXPECT_EQ(model.totalRequests(), 14);
    EXPECT_EQ(model.totalTokens(), 1540);
    EXPECT_DOUBLE_EQ(model.totalCost(), 2.75);
}

TEST(UsageHistoryModelTest, SeriesHaveAValuePerDayAndZeroWhereANameHadNone)
{
    UsageHistoryModel model;
    model.load(reply(kTwoDaysByKey));
    EXPECT_EQ(model.values("ide", "requests"), (QVariantList{1.0, 3.0, 0.0}));
    EXPECT_EQ(model.values("agent", "tokens"), (QVariantList{1100.0, 0.0, 0.0}));
    EXPECT_EQ(model.values("agent", "cost"), (QVariantList{2.0, 0.0, 0.0}));
    EXPECT_EQ(model.values("nobody", "cost"), (QVariantList{0.0, 0.0, 0.0}));
    // The stacked bar of 29 November: 1 + 10 requests.
    EXPECT_EQ(model.maxDayTotal("requests"), 11);
    EXPECT_DOUBLE_EQ(model.maxDayTotal("cost"), 2.25);
}

TEST(UsageHistoryModelTest, AnotherAnswerReplacesTheRowsAndGarbageEmptiesThem)
{
    UsageHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.load(reply(kTwoDaysByKey));
    model.load(reply(R"({"by":"model","days":[{"date":"2026-12-01","rows":[
        {"name":"deepseek/deepseek-v4-flash","requests":2,"prompt_tokens":20,"completion_tokens":2,"cost":0.01},
        {"requests":99}]}]})"));
    EXPECT_EQ(model.by(), "model");
    ASSERT_EQ(model.rowCount(), 1); // the row without a name is skipped
    EXPECT_EQ(model.names(), (QStringList{"deepseek/deepseek-v4-flash"}));

    model.load(QVariant(QStringLiteral("<html>not json</html>")));
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_TRUE(model.dates().isEmpty());
    EXPECT_EQ(model.totalCost(), 0);
}
