#include "ModelTesting.h"
#include "RequestLogModel.h"
#include "Snapshots.h"

#include <gmock/gmock.h>

using namespace sy;
using namespace sy::test;
using sy::app::RequestLogModel;

namespace {

QString idAt(const RequestLogModel &model, int row)
{
    return model.data(model.index(row), RequestLogModel::RequestIdRole).toString();
}

} // namespace

TEST(RequestLogModelTest, RowsShowTheRecord)
{
    RequestLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setPage({record("r2", 200, 2), record("r1", 502, 3)});
    ASSERT_EQ(model.rowCount(), 2);
    const QModelIndex first = model.index(0);
    EXPECT_EQ(model.data(first, RequestLogModel::RequestIdRole).toString(), "r2");
    EXPECT_EQ(model.data(first, RequestLogModel::StatusRole).toInt(), 200);
    EXPECT_EQ(model.data(first, RequestLogModel::AttemptsRole).toInt(), 2);
    EXPECT_TRUE(model.data(first, RequestLogModel::FailedOverRole).toBool());
    EXPECT_EQ(model.data(first, RequestLogModel::ChannelRole).toString(), "ch1");
    EXPECT_EQ(model.data(model.index(1), RequestLogModel::ChannelRole).toString(), "");
}

TEST(RequestLogModelTest, NewerPageInsertsOnTopAndDropsTheOldest)
{
    RequestLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setPage({record("r3", 200), record("r2", 200), record("r1", 200)});
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setPage({record("r5", 200), record("r4", 200), record("r3", 200)});
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(idAt(model, 0), "r5");
    EXPECT_EQ(idAt(model, 2), "r3");
    EXPECT_EQ(inserted.count(), 1);     // one block of two rows
    EXPECT_EQ(inserted.at(0).at(1).toInt(), 0);
    EXPECT_EQ(inserted.at(0).at(2).toInt(), 1);
    EXPECT_EQ(removed.count(), 1);      // one block of two rows
    EXPECT_EQ(changed.count(), 0);      // a logged request does not change
    EXPECT_EQ(reset.count(), 0);
}

TEST(RequestLogModelTest, FilterMapsToTheLogQuery)
{
    RequestLogModel model;
    EXPECT_FALSE(model.filter().status.has_value());
    EXPECT_FALSE(model.filter().failedOnly.has_value());
    model.setKeyName(QStringLiteral("ci"));
    model.setModel(QStringLiteral("m"));
    model.setStatus(QStringLiteral("429"));
    model.setFailedOverOnly(true);
    service::RequestFilter f = model.filter();
    EXPECT_EQ(f.keyName, "ci");
    EXPECT_EQ(f.model, "m");
    EXPECT_EQ(f.status, 429);
    EXPECT_EQ(f.failedOver, true);
    model.setStatus(QStringLiteral("failed"));
    f = model.filter();
    EXPECT_FALSE(f.status.has_value());
    EXPECT_EQ(f.failedOnly, true);
    model.setStatus(QStringLiteral("ok"));
    EXPECT_EQ(model.filter().failedOnly, false);
}

TEST(RequestLogModelTest, ChangingAFilterEmitsAndDropsRowsThatNoLongerFit)
{
    RequestLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setPage({record("r3", 502, 2), record("r2", 200, 1), record("r1", 200, 2)});
    QSignalSpy filterChanged(&model, &RequestLogModel::filterChanged);
    model.setFailedOverOnly(true);
    EXPECT_EQ(filterChanged.count(), 1);
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(idAt(model, 0), "r3");
    EXPECT_EQ(idAt(model, 1), "r1");
    model.setStatus(QStringLiteral("failed"));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(idAt(model, 0), "r3");
    model.setStatus(QStringLiteral("failed"));   // unchanged: no signal
    EXPECT_EQ(filterChanged.count(), 2);
}

TEST(RequestLogModelTest, AStalePageIsFilteredToTheCurrentFilter)
{
    RequestLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setStatus(QStringLiteral("ok"));
    model.setPage({record("r2", 503), record("r1", 200)});
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(idAt(model, 0), "r1");
}
