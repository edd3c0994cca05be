#include "ChannelHistoryModel.h"
#include "ModelTesting.h"
#include "Snapshots.h"

#include <gmock/gmock.h>

using namespace sy;
using namespace sy::test;
using sy::app::ChannelHistoryModel;

TEST(ChannelHistoryModelTest, OneSamplePerSecondWithRatesFromCounters)
{
    ChannelHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy sampled(&model, &ChannelHistoryModel::sampled);
    model.addSnapshot(snapshot(0, {tile("a", 0, 0, 0), tile("b", 0, 0, 0)}));
    model.addSnapshot(snapshot(250, {tile("a", 1, 0, 10), tile("b", 0, 0, 0)}));
    model.addSnapshot(snapshot(750, {tile("a", 2, 0, 20), tile("b", 0, 0, 0)}));
    EXPECT_EQ(sampled.count(), 0);
    service::ChannelTile a = tile("a", 4, 1, 50);
    a.ttftP50Ms = 300;
    a.ttftP90Ms = 900;
    model.addSnapshot(snapshot(1000, {a, tile("b", 0, 0, 0)}));
    EXPECT_EQ(sampled.count(), 1);
    ASSERT_EQ(model.rowCount(), 2);
    ASSERT_EQ(model.samples(0).size(), 1u);
    const ChannelHistoryModel::Sample &s = model.samples(0).back();
    EXPECT_DOUBLE_EQ(s.requests, 4.0);
    EXPECT_DOUBLE_EQ(s.errors, 1.0);
    EXPECT_DOUBLE_EQ(s.tokens, 50.0);
    EXPECT_DOUBLE_EQ(s.ttftP90, 900.0);
    EXPECT_DOUBLE_EQ(model.samples(1).back().ttftP50, -1.0);
    EXPECT_EQ(model.data(model.index(0), ChannelHistoryModel::ChannelIdRole).toString(), "a");
    EXPECT_DOUBLE_EQ(model.data(model.index(0), ChannelHistoryModel::RequestsPerSecondRole).toDouble(), 4.0);
}

TEST(ChannelHistoryModelTest, KeepsFiveMinutes)
{
    ChannelHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    for (int second = 0; second <= 400; ++second)
        model.addSnapshot(snapshot(qint64(second) * 1000, {tile("a", quint64(second) * 2)}));
    EXPECT_EQ(model.samples(0).size(), 301u);   // 100 .. 400 s: five minutes, both ends
    EXPECT_EQ(model.data(model.index(0), ChannelHistoryModel::SampleCountRole).toInt(), 301);
}

TEST(ChannelHistoryModelTest, PointsAreSecondsBeforeTheNewestSampleAndSkipMissingData)
{
    ChannelHistoryModel model;
    model.addSnapshot(snapshot(0, {tile("a", 0)}));
    model.addSnapshot(snapshot(1000, {tile("a", 3)}));
    service::ChannelTile withTtft = tile("a", 9);
    withTtft.ttftP50Ms = 420;
    model.addSnapshot(snapshot(3000, {withTtft}));
    const QList<QPointF> requests = model.points(0, QStringLiteral("requests"));
    ASSERT_EQ(requests.size(), 2);
    EXPECT_EQ(requests[0], QPointF(-2, 3));
    EXPECT_EQ(requests[1], QPointF(0, 3));
    const QList<QPointF> ttft = model.points(0, QStringLiteral("ttftP50"));
    ASSERT_EQ(ttft.size(), 1);
    EXPECT_EQ(ttft[0], QPointF(0, 420));
    EXPECT_DOUBLE_EQ(model.maxValue(QStringLiteral("ttftP50")), 420);
    EXPECT_DOUBLE_EQ(model.maxValue(QStringLiteral("errors")), 0);
    EXPECT_TRUE(model.points(5, QStringLiteral("requests")).isEmpty());
    EXPECT_TRUE(model.points(0, QStringLiteral("unknown")).isEmpty());
}

TEST(ChannelHistoryModelTest, ChannelsFollowTheSnapshot)
{
    ChannelHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy count(&model, &ChannelHistoryModel::countChanged);
    model.addSnapshot(snapshot(0, {tile("a"), tile("b")}));
    model.addSnapshot(snapshot(1000, {tile("b"), tile("c")}));
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.channelId(0), "b");
    EXPECT_EQ(model.channelId(1), "c");
    EXPECT_EQ(model.samples(0).size(), 1u);
    EXPECT_EQ(count.count(), 4);   // +a +b -a +c
}

TEST(ChannelHistoryModelTest, RatesAreAveragedOverTheLastFiveSeconds)
{
    ChannelHistoryModel model;
    // Ten requests land between 5 s and 6 s, none before or after.
    for (int second = 0; second <= 11; ++second)
        model.addSnapshot(snapshot(qint64(second) * 1000, {tile("a", second >= 6 ? 10 : 0)}));
    const std::deque<ChannelHistoryModel::Sample> &samples = model.samples(0);
    ASSERT_EQ(samples.size(), 11u);
    EXPECT_DOUBLE_EQ(samples[4].requests, 0.0);    // at 5 s
    EXPECT_DOUBLE_EQ(samples[5].requests, 2.0);    // at 6 s: 10 over the last 5 s
    EXPECT_DOUBLE_EQ(samples[9].requests, 2.0);    // at 10 s: still in the window
    EXPECT_DOUBLE_EQ(samples[10].requests, 0.0);   // at 11 s: out of it
}

// An idle gateway: once every line is flat at zero, further samples do not ask the charts to
// redraw; the first sample with data does.
TEST(ChannelHistoryModelTest, IdleSamplesDoNotAskForARedrawOnceFlat)
{
    ChannelHistoryModel model;
    QSignalSpy sampled(&model, &ChannelHistoryModel::sampled);
    model.addSnapshot(snapshot(0, {tile("a", 0)}));
    model.addSnapshot(snapshot(1000, {tile("a", 0)}));
    EXPECT_EQ(sampled.count(), 1) << "the first flat picture is drawn";
    for (int second = 2; second <= 30; ++second)
        model.addSnapshot(snapshot(qint64(second) * 1000, {tile("a", 0)}));
    EXPECT_EQ(sampled.count(), 1);
    EXPECT_EQ(model.samples(0).size(), 30u) << "samples are still taken";
    model.addSnapshot(snapshot(31'000, {tile("a", 5)}));
    EXPECT_EQ(sampled.count(), 2);
}
