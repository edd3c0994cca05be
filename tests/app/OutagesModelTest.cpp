#include "ModelTesting.h"
#include "OutagesModel.h"

#include <gmock/gmock.h>

using sy::app::OutageRow;
using sy::app::OutagesModel;

namespace {

OutageRow outage(quint64 id, const char *target, int secondsLeft)
{
    return {id, QStringLiteral("channel"), QString::fromLatin1(target), QStringLiteral("error:503"),
            QStringLiteral("503 for %1 s").arg(secondsLeft), secondsLeft};
}

} // namespace

TEST(OutagesModelTest, CountdownChangesOnlyTheTimeRoles)
{
    OutagesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setOutages({outage(1, "cloudru", 30), outage(2, "mws", 120)});
    ASSERT_EQ(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setOutages({outage(1, "cloudru", 29), outage(2, "mws", 120)});
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.at(0).at(0).toModelIndex().row(), 0);
    EXPECT_EQ(sy::test::changedRoles(changed),
              (QSet<int>{OutagesModel::DescriptionRole, OutagesModel::SecondsLeftRole}));
    EXPECT_EQ(model.data(model.index(0), OutagesModel::DescriptionRole).toString(), "503 for 29 s");
    EXPECT_DOUBLE_EQ(model.data(model.index(1), OutagesModel::OutageIdRole).toDouble(), 2.0);
}

TEST(OutagesModelTest, RestoredOutagesAreRemoved)
{
    OutagesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy count(&model, &OutagesModel::countChanged);
    model.setOutages({outage(1, "cloudru", 30), outage(2, "mws", 120), outage(3, "yandex", 60)});
    model.setOutages({outage(3, "yandex", 59)});
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.data(model.index(0), OutagesModel::TargetRole).toString(), "yandex");
    model.setOutages({});
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_EQ(count.count(), 3);
}
