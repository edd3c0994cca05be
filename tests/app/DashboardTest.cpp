// The dashboard end to end: the real GatewayHost (gateway + demo workspace on its worker thread)
// with the dashboard's root QML offscreen. Drives demo traffic and a failure-lab outage and
// checks what the pages show. Bounded waits only.
#include "GatewayHost.h"
#include "support/Waits.h"

#include <QAbstractSeries>
#include <QApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QXYSeries>
#include <QtQml/qqmlextensionplugin.h>
#include <gmock/gmock.h>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)
Q_IMPORT_QML_PLUGIN(Switchyard_ModelsPlugin)

using namespace std::chrono_literals;
using sy::app::GatewayHost;
using sy::test::waitUntil;

namespace {

class DashboardTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        host.start(QString(), 0);   // the demo workspace on a free port
        ASSERT_TRUE(waitUntil([&] { return host.listening() || !host.error().isEmpty(); }, 20s));
        ASSERT_TRUE(host.listening()) << host.error().toStdString();
        engine.addImportPath(QStringLiteral("qrc:/"));
        engine.setInitialProperties({{"gateway", QVariant::fromValue(&host)}});
        engine.load(QUrl(QStringLiteral("qrc:/Switchyard/Dashboard/Main.qml")));
        ASSERT_EQ(engine.rootObjects().size(), 1);
        window = engine.rootObjects().first();
    }

    template <class T = QQuickItem>
    T *child(const char *objectName) const
    {
        return window->findChild<T *>(QString::fromLatin1(objectName));
    }

    // Points of the first series of a chart of the overview (0 when it has no series yet).
    int pointsOfFirstSeries(const char *chartName) const
    {
        QObject *chart = child<QObject>(chartName);
        if (!chart || chart->property("count").toInt() == 0)
            return 0;
        QAbstractSeries *series = nullptr;
        QMetaObject::invokeMethod(chart, "series", Q_RETURN_ARG(QAbstractSeries *, series), Q_ARG(int, 0));
        auto *xy = qobject_cast<QXYSeries *>(series);
        return xy ? int(xy->count()) : 0;
    }

    GatewayHost host;
    QQmlApplicationEngine engine;
    QObject *window = nullptr;
};

TEST_F(DashboardTest, OverviewShowsATilePerDemoChannel)
{
    QQuickItem *repeater = child("tileRepeater");
    ASSERT_NE(repeater, nullptr);
    EXPECT_TRUE(waitUntil([&] { return repeater->property("count").toInt() == 4; }, 10s));
    EXPECT_EQ(host.channelIds(), (QStringList{"deepseek-main", "cloudru", "yandex", "mws"}));
    QObject *baseUrl = child<QObject>("baseUrlField");
    ASSERT_NE(baseUrl, nullptr);
    EXPECT_EQ(baseUrl->property("text").toString(), host.url() + "/v1");
}

TEST_F(DashboardTest, ChartsGetPointsOnceTrafficFlows)
{
    ASSERT_TRUE(waitUntil([&] { return !host.modelIds().isEmpty(); }, 10s));
    host.setTraffic(true, 10, 0.3, host.modelIds());
    ASSERT_TRUE(waitUntil([&] { return host.trafficRunning(); }, 5s));
    EXPECT_TRUE(waitUntil([&] { return host.requests() >= 10; }, 20s)) << host.requests();
    // A point a second per channel: a line needs at least two.
    EXPECT_TRUE(waitUntil([&] { return pointsOfFirstSeries("requestsChart") >= 2; }, 20s));
    EXPECT_EQ(child<QObject>("requestsChart")->property("count").toInt(), 4);
    EXPECT_GE(pointsOfFirstSeries("tokensChart"), 2);
    EXPECT_GT(host.history()->maxValue(QStringLiteral("requests")), 0);
    host.setTraffic(false, 10, 0.3, host.modelIds());
    EXPECT_TRUE(waitUntil([&] { return !host.trafficRunning(); }, 5s));
}

TEST_F(DashboardTest, RequestsPageShowsTheRouteTraceOfAFailedOverRequest)
{
    ASSERT_TRUE(waitUntil([&] { return !host.modelIds().isEmpty(); }, 10s));
    // cloudru serves both deepseek and Qwen: with it down, requests routed there fail over.
    host.setOutage(QStringLiteral("channel"), QStringLiteral("cloudru"), QStringLiteral("error:503"), 120);
    ASSERT_TRUE(waitUntil([&] { return host.outages()->rowCount() == 1; }, 5s));
    QObject *tiles = host.tiles();
    EXPECT_TRUE(waitUntil([&] {
        const QModelIndex cloudru = host.tiles()->index(1);
        return !cloudru.data(sy::app::ChannelTilesModel::OutageRole).toString().isEmpty();
    }, 5s)) << tiles->objectName().toStdString();
    host.setTraffic(true, 20, 0, {QStringLiteral("Qwen/Qwen3.6-35B-A3B"), QStringLiteral("deepseek/deepseek-v4-flash")});
    ASSERT_TRUE(waitUntil([&] { return host.failedOver() >= 1; }, 30s)) << host.requests();
    host.setTraffic(false, 20, 0, {});

    window->setProperty("currentPage", 1);   // Requests: the log is fetched live
    QObject *requestsPage = child<QObject>("requestsPage");
    requestsPage->setProperty("failedOverOnly", true);
    QQuickItem *list = child("requestList");
    ASSERT_NE(list, nullptr);
    ASSERT_TRUE(waitUntil([&] { return list->property("count").toInt() >= 1; }, 10s));
    list->setProperty("currentIndex", 0);

    sy::app::TraceModel *trace = host.trace();
    ASSERT_TRUE(waitUntil([&] { return trace->loaded(); }, 10s));
    EXPECT_TRUE(trace->failedOver());
    std::vector<QString> attemptStatuses;
    QString firstReason;
    for (int row = 0; row < trace->rowCount(); ++row) {
        const QModelIndex i = trace->index(row);
        if (i.data(sy::app::TraceModel::SectionRole).toString() != QLatin1String("attempts"))
            continue;
        attemptStatuses.push_back(i.data(sy::app::TraceModel::StatusRole).toString());
        if (firstReason.isEmpty())
            firstReason = i.data(sy::app::TraceModel::ReasonRole).toString();
    }
    ASSERT_GE(attemptStatuses.size(), 2u);
    EXPECT_EQ(attemptStatuses.front(), "error");
    EXPECT_THAT(firstReason.toStdString(), ::testing::HasSubstr("503"));
    QQuickItem *traceList = child("traceList");
    ASSERT_NE(traceList, nullptr);
    EXPECT_TRUE(waitUntil([&] { return traceList->property("count").toInt() == trace->rowCount(); }, 5s));
    EXPECT_TRUE(child<QObject>("traceStatus")->property("text").toString().contains("failed over"));
}

} // namespace

// This binary's own main: a QApplication (Qt Charts needs one), offscreen. The test support
// library's TestMain is then not linked in.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    ::testing::InitGoogleMock(&argc, argv);
    return RUN_ALL_TESTS();
}
