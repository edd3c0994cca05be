#include "ChannelTilesModel.h"
#include "ModelTesting.h"
#include "Snapshots.h"

#include <gmock/gmock.h>

using namespace sy;
using namespace sy::test;
using sy::app::ChannelTilesModel;

namespace {

QVariant roleAt(const ChannelTilesModel &model, int row, int role)
{
    return model.data(model.index(row), role);
}

} // namespace

TEST(ChannelTilesModelTest, OneRowPerChannelInSnapshotOrder)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(snapshot(0, {tile("a"), tile("b"), tile("c")}));
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(roleAt(model, 0, ChannelTilesModel::ChannelIdRole).toString(), "a");
    EXPECT_EQ(roleAt(model, 2, ChannelTilesModel::ChannelIdRole).toString(), "c");
    EXPECT_EQ(roleAt(model, 1, ChannelTilesModel::CapacityRole).toInt(), 8);
    EXPECT_EQ(model.roleNames().value(ChannelTilesModel::StateRole), "healthState");
}

TEST(ChannelTilesModelTest, RequestsPerSecondComesFromConsecutiveSnapshots)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(snapshot(0, {tile("a", 10, 0)}));
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::RequestsPerSecondRole).toDouble(), 0);
    model.apply(snapshot(500, {tile("a", 12, 1)}));
    model.apply(snapshot(1000, {tile("a", 14, 2)}));
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::RequestsPerSecondRole).toDouble(), 4.0);
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::ErrorsPerSecondRole).toDouble(), 2.0);
}

TEST(ChannelTilesModelTest, DataChangedCarriesOnlyTheRolesThatChanged)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(snapshot(0, {tile("a"), tile("b")}));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

    service::ChannelTile busy = tile("b");
    busy.inFlight = 3;
    busy.state = QStringLiteral("degraded");
    model.apply(snapshot(250, {tile("a"), busy}));

    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.at(0).at(0).toModelIndex().row(), 1);
    EXPECT_EQ(changedRoles(changed), (QSet<int>{ChannelTilesModel::InFlightRole, ChannelTilesModel::StateRole}));
    EXPECT_EQ(inserted.count(), 0);
}

TEST(ChannelTilesModelTest, AbsentPercentilesAreMinusOneAndOutageIsShown)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    service::ChannelTile t = tile("a");
    t.ttftP90Ms = 812;
    t.outage = QStringLiteral("503 for 30 s");
    model.apply(snapshot(0, {t}));
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::TtftP50Role).toDouble(), -1);
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::TtftP90Role).toDouble(), 812);
    EXPECT_EQ(roleAt(model, 0, ChannelTilesModel::OutageRole).toString(), "503 for 30 s");
}

TEST(ChannelTilesModelTest, AChannelThatSkipsTlsChecksSaysSo)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    service::ChannelTile insecure = tile("b");
    insecure.tlsInsecure = true;
    model.apply(snapshot(0, {tile("a"), insecure}));
    EXPECT_FALSE(roleAt(model, 0, ChannelTilesModel::TlsInsecureRole).toBool());
    EXPECT_TRUE(roleAt(model, 1, ChannelTilesModel::TlsInsecureRole).toBool());
    EXPECT_TRUE(model.roleNames().values().contains("tlsInsecure"));
}

TEST(ChannelTilesModelTest, ChannelsAddedRemovedAndReorderedKeepTheirRates)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy count(&model, &ChannelTilesModel::countChanged);
    model.apply(snapshot(0, {tile("a", 0), tile("b", 0), tile("c", 0)}));
    model.apply(snapshot(1000, {tile("c", 5), tile("a", 2), tile("d", 0)}));
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(roleAt(model, 0, ChannelTilesModel::ChannelIdRole).toString(), "c");
    EXPECT_EQ(roleAt(model, 1, ChannelTilesModel::ChannelIdRole).toString(), "a");
    EXPECT_EQ(roleAt(model, 2, ChannelTilesModel::ChannelIdRole).toString(), "d");
    EXPECT_DOUBLE_EQ(roleAt(model, 0, ChannelTilesModel::RequestsPerSecondRole).toDouble(), 5.0);
    EXPECT_DOUBLE_EQ(roleAt(model, 1, ChannelTilesModel::RequestsPerSecondRole).toDouble(), 2.0);
    EXPECT_EQ(count.count(), 1);   // 0 -> 3; the second snapshot keeps three rows
}

TEST(ChannelTilesModelTest, LabOutageChangesTheStateToSimulatedDown)
{
    ChannelTilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(snapshot(0, {tile("a")}));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    service::ChannelTile down = tile("a");
    down.state = QStringLiteral("simulated_down");
    down.outage = QStringLiteral("503 for 60 s");
    model.apply(snapshot(250, {down}));
    EXPECT_EQ(roleAt(model, 0, ChannelTilesModel::StateRole).toString(), "simulated_down");
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changedRoles(changed), (QSet<int>{ChannelTilesModel::StateRole, ChannelTilesModel::OutageRole}));
}
