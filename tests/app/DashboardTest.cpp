// The dashboard end to end: the real GatewayHost (gateway + demo workspace on its worker thread,
// a temporary database) with the dashboard's root QML offscreen. Drives demo traffic and a
// failure-lab outage and checks what the pages show; and a gateway that cannot start (port in
// use, a database that is not SQLite, a bad configuration file) says why in the window.
// Bounded waits only.
#include "GatewayHost.h"
#include "SystemTheme.h"
#include "WindowShownTracker.h"
#include "support/HttpTestClient.h"
#include "support/Waits.h"

#include <QAbstractSeries>
#include <QApplication>
#include <QFile>
#include <QGuiApplication>
#include <QPalette>
#include <QQmlContext>
#include <QQmlExpression>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTest>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QXYSeries>
#include <QtQml/qqmlextensionplugin.h>
#include <gmock/gmock.h>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)
Q_IMPORT_QML_PLUGIN(Switchyard_ModelsPlugin)

using namespace std::chrono_literals;
using sy::app::GatewayHost;
using sy::test::waitUntil;

namespace {

class DashboardFixture : public ::testing::Test {
protected:
    // The demo workspace on a free port with its own temporary database.
    sy::app::GatewayStartOptions demoOptions() const
    {
        sy::app::GatewayStartOptions options;
        options.port = 0;
        options.databasePath = dir.filePath(QStringLiteral("demo.db"));
        return options;
    }

    // Starts the host; true once it runs or has given up (error() set).
    bool startAndSettle(const sy::app::GatewayStartOptions &options)
    {
        host.start(options);
        return waitUntil([&] { return host.listening() || !host.error().isEmpty(); }, 20s);
    }

    void loadWindow()
    {
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

    // The start-failure panel shows `message` in full, over the pages.
    void expectWindowShows(const QString &message)
    {
        QQuickItem *panel = child("startFailurePanel");
        ASSERT_NE(panel, nullptr);
        EXPECT_TRUE(waitUntil([&] { return panel->isVisible(); }, 5s));
        QObject *text = child<QObject>("startFailureText");
        ASSERT_NE(text, nullptr);
        EXPECT_EQ(text->property("text").toString(), message);
        QObject *status = child<QObject>("gatewayStatus");
        ASSERT_NE(status, nullptr);
        EXPECT_THAT(status->property("text").toString().toStdString(), ::testing::HasSubstr("failed to start"));
    }

    QTemporaryDir dir;
    GatewayHost host;
    QQmlApplicationEngine engine;
    QObject *window = nullptr;
};

class DashboardTest : public DashboardFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir.isValid());
        ASSERT_TRUE(startAndSettle(demoOptions()));
        ASSERT_TRUE(host.listening()) << host.error().toStdString();
        loadWindow();
    }
};


// The Configure page's editors against the real host: GatewayHost::admin answers reach QML as
// real JS objects and arrays (not text), and a key created in the form is listed.
TEST_F(DashboardTest, KeysEditorListsAndCreatesKeysThroughTheRealHost)
{
    window->setProperty("currentPage", 3);   // Configure; Keys is its first section
    QObject *keys = child<QObject>("keysEditor");
    ASSERT_NE(keys, nullptr);
    auto names = [keys] {
        QStringList out;
        for (const QVariant &key : keys->property("keys").toList())
            out << key.toMap().value("name").toString();
        return out;
    };
    ASSERT_TRUE(waitUntil([&] { return names() == QStringList{"demo"}; }, 10s)) << names().join(',').toStdString();
    // The model list comes with its own answer, after the keys'.
    EXPECT_TRUE(waitUntil([&] { return keys->property("models").toList().contains(QStringLiteral("deepseek/deepseek-v4-flash")); }, 10s));

    QObject *nameField = child<QObject>("newKeyName");
    ASSERT_NE(nameField, nullptr);
    nameField->setProperty("text", QStringLiteral("ide"));
    ASSERT_TRUE(QMetaObject::invokeMethod(keys, "create"));
    EXPECT_TRUE(waitUntil([&] { return names().contains(QStringLiteral("ide")); }, 10s)) << names().join(',').toStdString();
    EXPECT_TRUE(keys->property("secret").toString().startsWith(QStringLiteral("sk-sy-"))) << "shown once, after creation";
}

// Runs `script` in the context of `item`'s QML file (its ids and functions), as its own code would.
QVariant evaluateIn(QObject *item, const QString &script)
{
    QQmlExpression expression(qmlContext(item), item, script);
    const QVariant result = expression.evaluate();
    EXPECT_FALSE(expression.hasError()) << expression.error().toString().toStdString();
    return result;
}

// The onboarding routes (presets, discovery, test, connect, usage history) come with the
// gateway's onboarding admin API; a build without them answers "Unknown admin route" and these
// page tests have nothing to drive.
bool routesMissing(QObject *page)
{
    return page->property("error").toString().startsWith(QStringLiteral("Unknown admin route"));
}
#define SKIP_WITHOUT_ONBOARDING_ROUTES(page)                                                  \
    if (routesMissing(page))                                                                 \
    GTEST_SKIP() << "no onboarding admin routes in this build: " << page->property("error").toString().toStdString()

// Add provider against the real host, with the demo's simulator as the provider (an
// OpenAI-format server): the presets load, discovery lists the simulator's models, the test
// answers per model, and the saved channel is served and gets its tile.
TEST_F(DashboardTest, DISABLED_AddProviderDiscoversTestsAndSavesAChannelWhoseTileAppears)
{
    window->setProperty("currentPage", 4);
    QObject *page = child<QObject>("addProviderPage");
    ASSERT_NE(page, nullptr);
    ASSERT_TRUE(waitUntil([&] { return page->property("presets").toList().size() >= 15 || routesMissing(page); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    ASSERT_TRUE(waitUntil([&] { return page->property("channelIds").toList().size() == 5; }, 10s));
    // vLLM's preset (local, no key), pointed at the simulator's deepseek provider.
    evaluateIn(page, QStringLiteral("choose(presets.find(p => p.id === 'vllm'));"
                                    "api.admin('GET', '/admin/channels', undefined, (s, r) =>"
                                    " baseUrlField.text = r.find(c => c.id === 'deepseek-main').base_url)"));
    QObject *baseUrl = child<QObject>("newBaseUrl");
    ASSERT_TRUE(waitUntil([&] { return baseUrl->property("text").toString().endsWith("/deepseek/v1"); }, 10s));
    EXPECT_EQ(child<QObject>("newChannelId")->property("text").toString(), "vllm");

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "discover"));
    ASSERT_TRUE(waitUntil([&] { return page->property("step").toInt() == 2 || !page->property("error").toString().isEmpty(); }, 10s));
    ASSERT_EQ(page->property("step").toInt(), 2) << page->property("error").toString().toStdString();
    QObject *models = child<QObject>("discoveredModels");
    EXPECT_GE(models->property("count").toInt(), 1);
    evaluateIn(page, QStringLiteral("setAll(true)"));

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "test"));
    ASSERT_TRUE(waitUntil([&] { return page->property("tested").toBool() && !page->property("busy").toBool(); }, 20s));
    EXPECT_EQ(page->property("error").toString(), QString());
    EXPECT_EQ(page->property("failedCount").toInt(), 0) << "the simulator answers every model it lists";

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "save", Q_ARG(QVariant, false)));
    ASSERT_TRUE(waitUntil([&] { return page->property("step").toInt() == 4 || !page->property("error").toString().isEmpty(); }, 10s));
    ASSERT_EQ(page->property("step").toInt(), 4) << page->property("error").toString().toStdString();
    EXPECT_TRUE(waitUntil([&] { return host.channelIds().contains(QStringLiteral("vllm")); }, 10s));
    QQuickItem *tiles = child("tileRepeater");
    EXPECT_TRUE(waitUntil([&] { return tiles->property("count").toInt() == 6; }, 10s));
}

// A discovery against an address where nothing listens: the reason, no models, no channel.
TEST_F(DashboardTest, DISABLED_AddProviderShowsADiscoveryFailureAndAddsNothing)
{
    window->setProperty("currentPage", 4);
    QObject *page = child<QObject>("addProviderPage");
    ASSERT_TRUE(waitUntil([&] { return page->property("presets").toList().size() >= 15 || routesMissing(page); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    QTcpServer closed;
    ASSERT_TRUE(closed.listen(QHostAddress::LocalHost));
    const QString url = QStringLiteral("http://127.0.0.1:%1/v1").arg(closed.serverPort());
    closed.close();
    evaluateIn(page, QStringLiteral("choose(presets.find(p => p.id === 'ollama')); baseUrlField.text = '%1'").arg(url));
    ASSERT_TRUE(QMetaObject::invokeMethod(page, "discover"));
    ASSERT_TRUE(waitUntil([&] { return !page->property("error").toString().isEmpty(); }, 20s));
    EXPECT_TRUE(page->property("error").toString().startsWith("Discovery failed")) << page->property("error").toString().toStdString();
    EXPECT_EQ(page->property("step").toInt(), 1);
    EXPECT_EQ(host.channelIds().size(), 5);
}

// Connect: the real setup text names this gateway's URL and the demo key.
TEST_F(DashboardTest, ConnectPageShowsTheSetupWithThisGatewaysUrlAndKey)
{
    window->setProperty("currentPage", 5);
    QObject *page = child<QObject>("connectPage");
    ASSERT_NE(page, nullptr);
    ASSERT_TRUE(waitUntil([&] { return page->property("clients").toList().size() >= 10 || routesMissing(page); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    QObject *text = child<QObject>("setupText");
    ASSERT_TRUE(waitUntil([&] { return !text->property("text").toString().isEmpty(); }, 10s));
    EXPECT_TRUE(text->property("text").toString().contains(host.url())) << text->property("text").toString().toStdString();
    EXPECT_TRUE(text->property("text").toString().contains(host.demoKey()));
}

// Spend: demo traffic shows in today's row of the history, by key.
TEST_F(DashboardTest, SpendPageShowsTodaysDemoTrafficByKey)
{
    ASSERT_TRUE(waitUntil([&] { return !host.modelIds().isEmpty(); }, 10s));
    host.setTraffic(true, 20, 0, host.modelIds());
    ASSERT_TRUE(waitUntil([&] { return host.requests() >= 10; }, 20s));
    host.setTraffic(false, 20, 0, {});
    window->setProperty("currentPage", 6);
    QObject *page = child<QObject>("spendPage");
    ASSERT_NE(page, nullptr);
    QObject *table = child<QObject>("spendTable");
    ASSERT_TRUE(waitUntil([&] { return !page->property("loading").toBool(); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    // The ledger books charges within a few seconds: refresh until they are there.
    EXPECT_TRUE(waitUntil([&] {
        if (table->property("count").toInt() == 0 && !page->property("loading").toBool())
            QMetaObject::invokeMethod(page, "reload");
        return table->property("count").toInt() >= 1 && page->property("error").toString().isEmpty();
    }, 20s)) << page->property("error").toString().toStdString();
    QObject *history = page->property("history").value<QObject *>();
    ASSERT_NE(history, nullptr);
    EXPECT_EQ(history->property("names").toStringList(), QStringList{"demo"});
    EXPECT_GT(history->property("totalRequests").toDouble(), 0);
}


// Ctrl+1 … Ctrl+N switch pages, one shortcut per tab.
TEST_F(DashboardTest, CtrlAndADigitSwitchesToThatPage)
{
    auto *quickWindow = qobject_cast<QQuickWindow *>(window);
    ASSERT_NE(quickWindow, nullptr);
    quickWindow->show();
    quickWindow->requestActivate();
    ASSERT_TRUE(QTest::qWaitForWindowActive(quickWindow, 5000));
    const int pages = child<QObject>("pageTabs")->property("count").toInt();
    ASSERT_EQ(pages, 7);
    for (int page : {2, 6, 0, pages - 1, 3}) {
        QTest::keyClick(quickWindow, Qt::Key(Qt::Key_1 + page), Qt::ControlModifier);
        EXPECT_EQ(window->property("currentPage").toInt(), page) << "Ctrl+" << page + 1;
    }
    QTest::keyClick(quickWindow, Qt::Key_8, Qt::ControlModifier);
    EXPECT_EQ(window->property("currentPage").toInt(), 3) << "no eighth page";
}

// Hidden (to the tray, minimized, unmapped): the host is told, frames slow down, and the
// overview's charts stop drawing; shown again, they catch up.
TEST_F(DashboardTest, HidingTheWindowStopsDrawingAndShowingResumes)
{
    auto *quickWindow = qobject_cast<QQuickWindow *>(window);
    ASSERT_NE(quickWindow, nullptr);
    sy::app::WindowShownTracker tracker(*quickWindow, host);
    quickWindow->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(quickWindow, 5000));
    QObject *chart = child<QObject>("requestsChart");
    ASSERT_NE(chart, nullptr);
    EXPECT_TRUE(host.windowShown());
    EXPECT_TRUE(chart->property("drawing").toBool());
    window->setProperty("currentPage", 1);   // Requests: its log is polled while shown
    EXPECT_TRUE(host.requestLogLive());
    window->setProperty("currentPage", 0);
    EXPECT_TRUE(chart->property("drawing").toBool());
    window->setProperty("currentPage", 1);
    quickWindow->hide();
    EXPECT_FALSE(host.windowShown());
    EXPECT_FALSE(window->property("shown").toBool());
    EXPECT_FALSE(host.requestLogLive()) << "no log polling for a hidden window";
    window->setProperty("currentPage", 0);
    EXPECT_FALSE(chart->property("drawing").toBool()) << "the overview is current but off screen";
    quickWindow->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(quickWindow, 5000));
    EXPECT_TRUE(host.windowShown());
    EXPECT_TRUE(chart->property("drawing").toBool());
}


// The system palette turns dark while the app runs (a desktop switching theme): the window's
// pages follow at once, and SystemTheme says so; back to light, they follow again.
TEST_F(DashboardTest, PagesFollowTheSystemPaletteWhenItChanges)
{
    const QPalette light = QGuiApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
    sy::app::SystemTheme theme;
    ASSERT_FALSE(theme.dark()) << "the tests start light";
    QObject *label = child<QObject>("gatewayStatus");
    ASSERT_NE(label, nullptr);
    auto lightness = [&] { return label->property("color").value<QColor>().lightnessF(); };
    EXPECT_LT(lightness(), 0.5) << "dark text on a light window";

    QGuiApplication::setPalette(dark);
    EXPECT_TRUE(theme.dark());
    EXPECT_TRUE(waitUntil([&] { return lightness() > 0.5; }, 5s)) << "light text on a dark window";
    QGuiApplication::setPalette(light);
    EXPECT_FALSE(theme.dark());
    EXPECT_TRUE(waitUntil([&] { return lightness() < 0.5; }, 5s));
}

using StartFailureTest = DashboardFixture;

TEST_F(DashboardTest, OverviewShowsATilePerDemoChannel)
{
    QQuickItem *repeater = child("tileRepeater");
    ASSERT_NE(repeater, nullptr);
    EXPECT_TRUE(waitUntil([&] { return repeater->property("count").toInt() == 6; }, 10s));
    EXPECT_EQ(host.channelIds(), (QStringList{"deepseek-main", "cloudru", "yandex", "mws", "anthropic-sim", "gemini-sim"}));
    QObject *baseUrl = child<QObject>("baseUrlField");
    ASSERT_NE(baseUrl, nullptr);
    EXPECT_EQ(baseUrl->property("text").toString(), host.url() + "/v1");
    QQuickItem *panel = child("startFailurePanel");
    ASSERT_NE(panel, nullptr);
    EXPECT_FALSE(panel->isVisible()) << "a running gateway shows no start failure";
}

// The lab's outage is the tile's state at once (SPEC §5 "simulated down"), not only a badge:
// on the channel itself, and on every channel serving a model taken down.
TEST_F(DashboardTest, LabOutageShowsAsSimulatedDownOnTheTile)
{
    using sy::app::ChannelTilesModel;
    auto stateOf = [&](const QString &channel) {
        for (int row = 0; row < host.tiles()->rowCount(); ++row) {
            const QModelIndex i = host.tiles()->index(row);
            if (i.data(ChannelTilesModel::ChannelIdRole).toString() == channel)
                return i.data(ChannelTilesModel::StateRole).toString();
        }
        return QString();
    };
    ASSERT_TRUE(waitUntil([&] { return host.tiles()->rowCount() == 6; }, 10s));
    EXPECT_EQ(stateOf(QStringLiteral("cloudru")), "healthy");

    host.setOutage(QStringLiteral("channel"), QStringLiteral("cloudru"), QStringLiteral("timeout"), 120);
    EXPECT_TRUE(waitUntil([&] { return stateOf(QStringLiteral("cloudru")) == QLatin1String("simulated_down"); }, 5s));
    EXPECT_EQ(stateOf(QStringLiteral("yandex")), "healthy");
    QQuickItem *repeater = child("tileRepeater");
    ASSERT_NE(repeater, nullptr);
    QQuickItem *cloudruTile = nullptr;
    QMetaObject::invokeMethod(repeater, "itemAt", Q_RETURN_ARG(QQuickItem *, cloudruTile), Q_ARG(int, 1));
    ASSERT_NE(cloudruTile, nullptr);
    EXPECT_EQ(cloudruTile->property("healthState").toString(), "simulated_down");
    // /metrics says the same.
    sy::test::HttpTestClient metrics(quint16(QUrl(host.url()).port()));
    metrics.send("GET", "/metrics");
    ASSERT_TRUE(metrics.waitForEnd(5s));
    EXPECT_THAT(metrics.body().toStdString(), ::testing::HasSubstr(R"(,channel="cloudru",state="simulated_down"} 1)"));
    EXPECT_THAT(metrics.body().toStdString(), ::testing::HasSubstr(R"(,channel="yandex",state="healthy"} 1)"));

    host.clearOutages();
    EXPECT_TRUE(waitUntil([&] { return stateOf(QStringLiteral("cloudru")) == QLatin1String("healthy"); }, 5s));

    // Qwen is served by cloudru and yandex (not by deepseek-main).
    host.setOutage(QStringLiteral("model"), QStringLiteral("Qwen/Qwen3.6-35B-A3B"), QStringLiteral("error:503"), 120);
    EXPECT_TRUE(waitUntil([&] { return stateOf(QStringLiteral("yandex")) == QLatin1String("simulated_down"); }, 5s));
    EXPECT_EQ(stateOf(QStringLiteral("cloudru")), "simulated_down");
    EXPECT_EQ(stateOf(QStringLiteral("deepseek-main")), "healthy");
}

TEST_F(DashboardTest, ChartsGetPointsOnceTrafficFlows)
{
    ASSERT_TRUE(waitUntil([&] { return !host.modelIds().isEmpty(); }, 10s));
    host.setTraffic(true, 10, 0.3, host.modelIds());
    ASSERT_TRUE(waitUntil([&] { return host.trafficRunning(); }, 5s));
    EXPECT_TRUE(waitUntil([&] { return host.requests() >= 10; }, 20s)) << host.requests();
    // A point a second per channel: a line needs at least two.
    EXPECT_TRUE(waitUntil([&] { return pointsOfFirstSeries("requestsChart") >= 2; }, 20s));
    EXPECT_EQ(child<QObject>("requestsChart")->property("count").toInt(), 6);
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

TEST_F(StartFailureTest, AddressOfAnotherComputerSaysHowToListenPrivately)
{
    sy::app::GatewayStartOptions options = demoOptions();
    options.listenHost = QStringLiteral("192.0.2.1");   // TEST-NET-1: never an address of this machine
    options.port = 0;
    ASSERT_TRUE(startAndSettle(options));
    ASSERT_FALSE(host.listening());
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("192.0.2.1 is not an address of this computer"));
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("--listen 127.0.0.1:"));
}

TEST_F(StartFailureTest, PortInUseNamesThePortInTheWindow)
{
    QTcpServer occupant;
    ASSERT_TRUE(occupant.listen(QHostAddress::LocalHost, 0));
    sy::app::GatewayStartOptions options = demoOptions();
    options.port = occupant.serverPort();
    ASSERT_TRUE(startAndSettle(options));
    ASSERT_FALSE(host.listening());
    const QString port = QString::number(occupant.serverPort());
    EXPECT_THAT(host.error().toStdString(),
                ::testing::HasSubstr(QStringLiteral("Port %1 is already in use by another program").arg(port).toStdString()));
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("--port"));
    loadWindow();
    expectWindowShows(host.error());
}

TEST_F(StartFailureTest, DatabaseThatIsNotSqliteNamesTheFile)
{
    sy::app::GatewayStartOptions options = demoOptions();
    QFile file(options.databasePath);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(4096, 'x'));
    file.close();
    ASSERT_TRUE(startAndSettle(options));
    ASSERT_FALSE(host.listening());
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr(options.databasePath.toStdString()));
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("not a SQLite database"));
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("--database FILE"));
    loadWindow();
    expectWindowShows(host.error());
}

TEST_F(StartFailureTest, InvalidConfigurationFileNamesTheFileAndLine)
{
    sy::app::GatewayStartOptions options = demoOptions();
    options.configPath = dir.filePath(QStringLiteral("broken.yaml"));
    QFile file(options.configPath);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("listen: 127.0.0.1:0\nsettings:\n  max_attempts: lots\n");
    file.close();
    ASSERT_TRUE(startAndSettle(options));
    ASSERT_FALSE(host.listening());
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr(("The configuration file " + options.configPath + " is not valid").toStdString()));
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("broken.yaml:3"));
    loadWindow();
    expectWindowShows(host.error());
}

TEST_F(StartFailureTest, AnUnreachablePostgresDatabaseIsRefusedWithoutEchoingThePassword)
{
    sy::app::GatewayStartOptions options = demoOptions();
    options.databasePath = QStringLiteral("postgres://router:hunter2@127.0.0.1:1/switchyard");
    ASSERT_TRUE(startAndSettle(options));
    ASSERT_FALSE(host.listening());
    EXPECT_THAT(host.error().toStdString(), ::testing::HasSubstr("cannot connect to PostgreSQL at postgres://router@127.0.0.1:1/switchyard"));
    EXPECT_THAT(host.error().toStdString(), ::testing::Not(::testing::HasSubstr("hunter2")));
}

} // namespace

// This binary's own main: a QApplication (Qt Charts needs one), offscreen. The test support
// library's TestMain is then not linked in.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("SWITCHYARD_CREDENTIALS", "database");   // never the developer's own OS keychain
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    ::testing::InitGoogleMock(&argc, argv);
    return RUN_ALL_TESTS();
}
