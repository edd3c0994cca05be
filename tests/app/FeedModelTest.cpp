#include "FeedModel.h"
#include "ModelTesting.h"
#include "Snapshots.h"

#include <gmock/gmock.h>

using namespace sy;
using namespace sy::test;
using sy::app::FeedModel;

namespace {

service::DashboardSnapshot withFeed(std::vector<service::FeedEvent> feed)
{
    service::DashboardSnapshot s = snapshot(0, {});
    s.feed = std::move(feed);
    return s;
}

QString idAt(const FeedModel &model, int row)
{
    return model.data(model.index(row), FeedModel::RequestIdRole).toString();
}

} // namespace

TEST(FeedModelTest, ShowsFailoversAndFailuresByDefault)
{
    FeedModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(withFeed({event("r3", 200, true), event("r2", 200, false), event("r1", 502, true)}));
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(idAt(model, 0), "r3");
    EXPECT_EQ(idAt(model, 1), "r1");
    EXPECT_EQ(model.data(model.index(0), FeedModel::SummaryRole).toString(), "summary r3");
    EXPECT_TRUE(model.data(model.index(0), FeedModel::FailedOverRole).toBool());
}

TEST(FeedModelTest, ShowAllListsEveryRequest)
{
    FeedModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(withFeed({event("r3", 200, true), event("r2", 200, false), event("r1", 502, true)}));
    model.setShowAll(true);
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(idAt(model, 1), "r2");
    model.setShowAll(false);
    EXPECT_EQ(model.rowCount(), 2);
}

TEST(FeedModelTest, KeepsFailoversAfterTheSnapshotMovesOn)
{
    FeedModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(withFeed({event("r1", 200, true)}));
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    // The next snapshot's window no longer has r1; a new failover arrived on top.
    model.apply(withFeed({event("r3", 503, true), event("r2", 200, false)}));
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(idAt(model, 0), "r3");
    EXPECT_EQ(idAt(model, 1), "r1");
    EXPECT_EQ(inserted.count(), 1);
    EXPECT_EQ(removed.count(), 0);
}

TEST(FeedModelTest, ShowsAtMostFiftyRows)
{
    FeedModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    for (int batch = 0; batch < 3; ++batch) {
        std::vector<service::FeedEvent> feed;
        for (int i = 29; i >= 0; --i) {
            const QByteArray id = "r" + QByteArray::number(batch * 100 + i);
            feed.push_back({id, t0(), QStringLiteral("m"), QString(), 503, true});
        }
        model.apply(withFeed(feed));
    }
    EXPECT_EQ(model.rowCount(), 50);
    EXPECT_EQ(idAt(model, 0), "r229");
}

TEST(FeedModelTest, FailoversOutliveAnyAmountOfPlainTraffic)
{
    FeedModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.apply(withFeed({event("failover", 200, true), event("error", 503, false)}));
    // A busy gateway: 2,000 plain requests after them, 50 per frame as the snapshot carries.
    for (int frame = 0; frame < 40; ++frame) {
        std::vector<service::FeedEvent> feed;
        for (int i = 49; i >= 0; --i)
            feed.push_back(event(QByteArray("plain-") + QByteArray::number(frame * 50 + i), 200, false));
        model.apply(withFeed(std::move(feed)));
    }
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(idAt(model, 0), "failover");
    EXPECT_EQ(idAt(model, 1), "error");
    model.setShowAll(true);
    EXPECT_EQ(model.rowCount(), 50);
    EXPECT_EQ(idAt(model, 0), "plain-1999");
}
