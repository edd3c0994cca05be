#include "ModelTesting.h"
#include "Snapshots.h"
#include "TraceModel.h"

#include <gmock/gmock.h>

using namespace sy;
using namespace sy::test;
using sy::app::TraceModel;

namespace {

service::RequestRecord failedOverRecord()
{
    service::RequestRecord r = record("req-1", 200, 2);
    r.orderedChannels = {QStringLiteral("m@ch0"), QStringLiteral("m@ch1"), QStringLiteral("ch2")};
    r.filtered.push_back({QStringLiteral("mws"), QStringLiteral("m"), QStringLiteral("capacity full")});
    r.orderNotes = {QStringLiteral("sorted by health")};
    return r;
}

QStringList column(const TraceModel &model, int role)
{
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row)
        values << model.data(model.index(row), role).toString();
    return values;
}

} // namespace

TEST(TraceModelTest, RowsAreCandidatesFilteredAttemptsThenNotes)
{
    TraceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setRecord(failedOverRecord());
    EXPECT_EQ(column(model, TraceModel::SectionRole),
              (QStringList{"candidates", "candidates", "candidates", "filtered", "attempts", "attempts", "notes"}));
    EXPECT_EQ(column(model, TraceModel::ChannelRole),
              (QStringList{"ch0", "ch1", "ch2", "mws", "ch0", "ch1", ""}));
    EXPECT_EQ(column(model, TraceModel::PositionRole), (QStringList{"1", "2", "3", "1", "1", "2", "1"}));
    // The answering candidate is marked; the first attempt failed with its reason and latency.
    EXPECT_EQ(model.data(model.index(1), TraceModel::StatusRole).toString(), "answered");
    EXPECT_EQ(model.data(model.index(1), TraceModel::ModelRole).toString(), "m");   // "m@ch1" split
    EXPECT_EQ(model.data(model.index(2), TraceModel::ModelRole).toString(), "");    // a bare channel id
    EXPECT_EQ(model.data(model.index(3), TraceModel::ReasonRole).toString(), "capacity full");
    EXPECT_EQ(model.data(model.index(4), TraceModel::StatusRole).toString(), "error");
    EXPECT_EQ(model.data(model.index(4), TraceModel::ReasonRole).toString(), "HTTP 503: down");
    EXPECT_EQ(model.data(model.index(4), TraceModel::LatencyMsRole).toLongLong(), 100);
    EXPECT_EQ(model.data(model.index(0), TraceModel::LatencyMsRole).toLongLong(), -1);
    EXPECT_EQ(model.data(model.index(5), TraceModel::StatusRole).toString(), "ok");
}

TEST(TraceModelTest, PropertiesDescribeTheRequest)
{
    TraceModel model;
    EXPECT_FALSE(model.loaded());
    model.setRecord(failedOverRecord());
    EXPECT_TRUE(model.loaded());
    EXPECT_EQ(model.requestId(), "req-1");
    EXPECT_EQ(model.status(), 200);
    EXPECT_TRUE(model.failedOver());
    EXPECT_EQ(model.answeringChannel(), "ch1");
    EXPECT_FALSE(model.time().isEmpty());
}

TEST(TraceModelTest, SameRequestIsNotReloadedAndClearEmpties)
{
    TraceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &TraceModel::requestChanged);
    model.setRecord(failedOverRecord());
    model.setRecord(failedOverRecord());
    EXPECT_EQ(reset.count(), 1);
    EXPECT_EQ(changed.count(), 1);
    model.setRecord(record("req-2", 502, 3));
    EXPECT_EQ(reset.count(), 2);
    EXPECT_EQ(model.rowCount(), 3);   // three attempts, no candidates recorded
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_FALSE(model.loaded());
    EXPECT_EQ(changed.count(), 3);
}
