// The tray, offscreen: its menu drives the real host (copy the base URL and the demo key, demo
// traffic on and off, restore all outages), its state follows the gateway, and closing the
// window hides it when a tray is available and closes it (the app quits) when not.
#include "GatewayHost.h"
#include "Tray.h"
#include "support/Waits.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QImage>
#include <QMenu>
#include <QQuickWindow>
#include <QTcpServer>
#include <QTemporaryDir>
#include <gmock/gmock.h>

using namespace std::chrono_literals;
using sy::app::GatewayHost;
using sy::app::Tray;
using sy::test::waitUntil;

namespace {

class TrayTest : public ::testing::Test {
protected:
    void startDemo(int port = 0)
    {
        ASSERT_TRUE(dir.isValid());
        sy::app::GatewayStartOptions options;
        options.port = port;
        options.databasePath = dir.filePath(QStringLiteral("demo.db"));
        host.start(options);
        ASSERT_TRUE(waitUntil([&] { return host.listening() || !host.error().isEmpty(); }, 20s));
    }

    QTemporaryDir dir;
    GatewayHost host;
};

TEST_F(TrayTest, MenuActionsDriveTheHost)
{
    startDemo();
    ASSERT_TRUE(host.listening()) << host.error().toStdString();
    ASSERT_TRUE(waitUntil([&] { return !host.modelIds().isEmpty(); }, 10s));
    Tray tray(host, false);
    EXPECT_EQ(tray.state(), Tray::State::Listening);
    EXPECT_THAT(tray.toolTip().toStdString(), ::testing::HasSubstr((host.url() + "/v1").toStdString()));
    EXPECT_THAT(tray.toolTip().toStdString(), ::testing::HasSubstr("req/s"));

    tray.action("copyBaseUrl")->trigger();
    EXPECT_EQ(QGuiApplication::clipboard()->text(), host.url() + "/v1");
    ASSERT_TRUE(tray.action("copyDemoKey")->isVisible());
    tray.action("copyDemoKey")->trigger();
    EXPECT_EQ(QGuiApplication::clipboard()->text(), host.demoKey());

    QAction *traffic = tray.action("toggleTraffic");
    ASSERT_TRUE(traffic->isVisible());
    traffic->trigger();
    EXPECT_TRUE(waitUntil([&] { return host.trafficRunning(); }, 5s));
    EXPECT_EQ(traffic->text(), "Stop demo traffic");
    traffic->trigger();
    EXPECT_TRUE(waitUntil([&] { return !host.trafficRunning(); }, 5s));
    EXPECT_EQ(traffic->text(), "Start demo traffic");

    host.setOutage(QStringLiteral("channel"), QStringLiteral("mws"), QStringLiteral("error:503"), 120);
    QAction *restore = tray.action("restoreOutages");
    ASSERT_TRUE(waitUntil([&] { return restore->isEnabled(); }, 5s));
    restore->trigger();
    EXPECT_TRUE(waitUntil([&] { return host.outages()->rowCount() == 0; }, 5s));
    EXPECT_NE(tray.action("quit"), nullptr);
    EXPECT_NE(tray.action("showDashboard"), nullptr);
}

TEST_F(TrayTest, GatewayThatCannotStartIsFailing)
{
    QTcpServer occupant;
    ASSERT_TRUE(occupant.listen(QHostAddress::LocalHost, 0));
    startDemo(occupant.serverPort());
    ASSERT_FALSE(host.listening());
    Tray tray(host, false);
    EXPECT_EQ(tray.state(), Tray::State::Failing);
    EXPECT_THAT(tray.toolTip().toStdString(), ::testing::HasSubstr("not running"));
    EXPECT_THAT(tray.toolTip().toStdString(), ::testing::HasSubstr("already in use"));
    EXPECT_FALSE(tray.action("copyBaseUrl")->isEnabled());
}

TEST_F(TrayTest, WithoutATrayClosingTheWindowClosesIt)
{
    startDemo();
    QQuickWindow window;
    Tray tray(host, false);
    tray.setWindow(&window);
    EXPECT_TRUE(QGuiApplication::quitOnLastWindowClosed());
    window.show();
    ASSERT_TRUE(waitUntil([&] { return window.isVisible(); }, 5s));
    EXPECT_TRUE(window.close());
    EXPECT_FALSE(window.isVisible());
}

TEST_F(TrayTest, WithATrayClosingTheWindowHidesItAndTheGatewayKeepsRunning)
{
    startDemo();
    ASSERT_TRUE(host.listening());
    QQuickWindow window;
    {
        Tray tray(host, true);
        tray.setWindow(&window);
        EXPECT_FALSE(QGuiApplication::quitOnLastWindowClosed());
        window.show();
        ASSERT_TRUE(waitUntil([&] { return window.isVisible(); }, 5s));
        EXPECT_FALSE(window.close()) << "the close is refused: the window hides instead";
        EXPECT_FALSE(window.isVisible());
        EXPECT_TRUE(host.listening());
        tray.action("showDashboard")->trigger();
        EXPECT_TRUE(window.isVisible());
    }
    EXPECT_TRUE(QGuiApplication::quitOnLastWindowClosed()) << "the app's setting is restored";
}

TEST(TrayIconTest, OneColourPerState)
{
    auto centre = [](Tray::State state) { return Tray::iconFor(state).pixmap(64, 64).toImage().pixelColor(Tray::kBadgeCentre, Tray::kBadgeCentre); };
    EXPECT_EQ(centre(Tray::State::Listening), QColor(0x2e, 0x9d, 0x57));
    EXPECT_EQ(centre(Tray::State::Failing), QColor(0xd0, 0x47, 0x3b));
    EXPECT_EQ(centre(Tray::State::Stopped), QColor(0x8a, 0x8a, 0x8a));
}

TEST(TrayIconTest, IsTheApplicationIconWithABadge)
{
    ASSERT_FALSE(sy::app::applicationIcon().isNull()) << "the PNGs are built into the program";
    const QImage image = Tray::iconFor(Tray::State::Listening).pixmap(64, 64).toImage();
    const QColor tile = image.pixelColor(28, 8);   // the app icon's green tile, above the tracks
    EXPECT_EQ(tile.alpha(), 255);
    EXPECT_GT(tile.green(), tile.red() + 40);
    EXPECT_EQ(image.pixelColor(1, 63).alpha(), 0) << "outside the icon and the badge";
}

} // namespace
