// The dashboard's pages against the real host (DashboardFixture.h): the overview's tiles and
// charts under demo traffic and failure-lab outages, the Requests trace, the Configure editors,
// Add provider, Connect and Spend.
#include "DashboardFixture.h"
#include "support/HttpTestClient.h"

#include <QTcpServer>

namespace sy::apptest {
namespace {

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

// Add provider against the real host, with the demo's simulator as the provider (an
// OpenAI-format server): the presets load, discovery lists the simulator's models, the test
// answers per model, and the saved channel is served and gets its tile.
TEST_F(DashboardTest, AddProviderDiscoversTestsAndSavesAChannelWhoseTileAppears)
{
    window->setProperty("currentPage", 4);
    QObject *page = child<QObject>("addProviderPage");
    ASSERT_NE(page, nullptr);
    ASSERT_TRUE(waitUntil([&] { return page->property("presets").toList().size() >= 15 || routesMissing(page); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    ASSERT_TRUE(waitUntil([&] { return page->property("channelIds").toList().size() == 6; }, 10s));
    // vLLM's preset (local, no key), pointed at the simulator's deepseek provider. In the page
    // file's own context (a field's), where its ids are: the page's root is in Main.qml's.
    QObject *baseUrl = child<QObject>("newBaseUrl");
    ASSERT_NE(baseUrl, nullptr);
    evaluateIn(baseUrl, QStringLiteral("page.choose(page.presets.find(p => p.id === 'vllm'));"
                                       "page.api.admin('GET', '/admin/channels', undefined, (s, r) =>"
                                       " baseUrlField.text = r.find(c => c.id === 'deepseek-main').base_url)"));
    ASSERT_TRUE(waitUntil([&] { return baseUrl->property("text").toString().endsWith("/deepseek/v1"); }, 10s));
    EXPECT_EQ(child<QObject>("newChannelId")->property("text").toString(), "vllm");

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "discover"));
    ASSERT_TRUE(waitUntil([&] { return page->property("step").toInt() == 2 || !page->property("error").toString().isEmpty(); }, 10s));
    ASSERT_EQ(page->property("step").toInt(), 2) << page->property("error").toString().toStdString();
    QObject *models = child<QObject>("discoveredModels");
    EXPECT_GE(models->property("count").toInt(), 1);
    ASSERT_TRUE(QMetaObject::invokeMethod(page, "setAll", Q_ARG(QVariant, true)));

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "test"));
    ASSERT_TRUE(waitUntil([&] { return page->property("tested").toBool() && !page->property("busy").toBool(); }, 20s));
    EXPECT_EQ(page->property("error").toString(), QString());
    EXPECT_EQ(page->property("failedCount").toInt(), 0) << "the simulator answers every model it lists";

    ASSERT_TRUE(QMetaObject::invokeMethod(page, "save", Q_ARG(QVariant, false)));
    ASSERT_TRUE(waitUntil([&] { return page->property("step").toInt() == 4 || !page->property("error").toString().isEmpty(); }, 10s));
    ASSERT_EQ(page->property("step").toInt(), 4) << page->property("error").toString().toStdString();
    EXPECT_TRUE(waitUntil([&] { return host.channelIds().contains(QStringLiteral("vllm")); }, 10s));
    QQuickItem *tiles = child("tileRepeater");
    EXPECT_TRUE(waitUntil([&] { return tiles->property("count").toInt() == 7; }, 10s));
}

// A discovery against an address where nothing listens: the reason, no models, no channel.
TEST_F(DashboardTest, AddProviderShowsADiscoveryFailureAndAddsNothing)
{
    window->setProperty("currentPage", 4);
    QObject *page = child<QObject>("addProviderPage");
    ASSERT_TRUE(waitUntil([&] { return page->property("presets").toList().size() >= 15 || routesMissing(page); }, 10s));
    SKIP_WITHOUT_ONBOARDING_ROUTES(page);
    QTcpServer closed;
    ASSERT_TRUE(closed.listen(QHostAddress::LocalHost));
    const QString url = QStringLiteral("http://127.0.0.1:%1/v1").arg(closed.serverPort());
    closed.close();
    evaluateIn(page, QStringLiteral("choose(presets.find(p => p.id === 'ollama'))"));
    QObject *baseUrl = child<QObject>("newBaseUrl");
    ASSERT_NE(baseUrl, nullptr);
    baseUrl->setProperty("text", url);
    ASSERT_TRUE(QMetaObject::invokeMethod(page, "discover"));
    ASSERT_TRUE(waitUntil([&] { return !page->property("error").toString().isEmpty(); }, 20s));
    EXPECT_TRUE(page->property("error").toString().startsWith("Model discovery failed, nothing was added")) << page->property("error").toString().toStdString();
    EXPECT_EQ(page->property("step").toInt(), 1);
    EXPECT_EQ(host.channelIds().size(), 6);
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
    // Every model id was offered: the embeddings-only one gets no chat requests (they would be 400s).
    ASSERT_TRUE(host.modelIds().contains(QStringLiteral("text-embedding-3-small")));
    EXPECT_FALSE(host.trafficModels().contains(QStringLiteral("text-embedding-3-small")));
    EXPECT_TRUE(host.trafficModels().contains(QStringLiteral("deepseek/deepseek-v4-flash")));
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

} // namespace

QVariant evaluateIn(QObject *item, const QString &script)
{
    QQmlExpression expression(qmlContext(item), item, script);
    const QVariant result = expression.evaluate();
    EXPECT_FALSE(expression.hasError()) << expression.error().toString().toStdString();
    return result;
}

} // namespace sy::apptest
