// The dashboard window against the real host (DashboardFixture.h): page shortcuts, what stops
// while it is hidden, the system palette, and a gateway that cannot start (port in use, a
// database that is not SQLite, a bad configuration file) saying why in the window.
#include "DashboardFixture.h"
#include "SystemTheme.h"
#include "ThemeChoice.h"
#include "WindowSession.h"
#include "WindowShownTracker.h"

#include <QFile>
#include <QGuiApplication>
#include <QPalette>
#include <QQuickWindow>
#include <QTcpServer>
#include <QTest>
#include <functional>

namespace sy::apptest {
namespace {

using DashboardWindowTest = DashboardTest;

// What of the window's item tree runs past its right or bottom edge: each visible item whose
// rectangle leaves `bound` (the window, then the visible part of any clipping ancestor). Inside a
// Flickable (a list, a scroll view) content may run on in the directions it scrolls; a clipping
// item that does not scroll cuts its children off, so they are not looked at. A text counts with
// the width its text is drawn at when that is wider than the item (no eliding, no wrapping).
void collectOutside(QQuickItem *item, QQuickItem *root, QRectF bound, QStringList &out)
{
    if (!item->isVisible() || item->opacity() <= 0)
        return;
    qreal width = item->width();
    const QVariant drawn = item->property("contentWidth");
    if (item->inherits("QQuickText") && drawn.isValid() && item->property("elide").toInt() == 0
        && item->property("wrapMode").toInt() == 0)
        width = std::max(width, drawn.toReal());
    const QRectF rect = item->mapRectToItem(root, QRectF(0, 0, width, item->height()));
    if (rect.width() > 0 && rect.height() > 0 && (rect.right() > bound.right() + 0.5 || rect.bottom() > bound.bottom() + 0.5)) {
        const QString text = item->property("text").toString().left(40);
        out << QStringLiteral("%1 '%2'%3 right %4 bottom %5 (bound %6, %7)")
                   .arg(QString::fromLatin1(item->metaObject()->className()), item->objectName(),
                        text.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(text))
                   .arg(rect.right()).arg(rect.bottom()).arg(bound.right()).arg(bound.bottom());
    }
    if (item->clip()) {
        if (!item->inherits("QQuickFlickable"))
            return;
        constexpr qreal kOpen = 1e9;
        const QRectF visible = item->mapRectToItem(root, QRectF(0, 0, item->width(), item->height()));
        const bool scrollsAcross = item->property("contentWidth").toReal() > item->width() + 0.5;
        bound = QRectF(QPointF(visible.left(), visible.top()),
                       QPointF(scrollsAcross ? kOpen : std::min(bound.right(), visible.right()), kOpen));
    }
    for (QQuickItem *child : item->childItems())
        collectOutside(child, root, bound, out);
}

QStringList itemsOutside(QQuickWindow *window)
{
    QStringList out;
    QQuickItem *root = window->contentItem();
    collectOutside(root, root, QRectF(0, 0, root->width(), root->height()), out);
    return out;
}

// Ctrl+1 … Ctrl+N switch pages, one shortcut per tab.
TEST_F(DashboardWindowTest, CtrlAndADigitSwitchesToThatPage)
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
TEST_F(DashboardWindowTest, HidingTheWindowStopsDrawingAndShowingResumes)
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
TEST_F(DashboardWindowTest, PagesFollowTheSystemPaletteWhenItChanges)
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

// At the size the window opens at on a 1400×900 screen (80 % of it: 1120×720) and at its
// minimum size, every page fits: nothing runs past the window's right or bottom edge; what does
// not fit wraps, elides or scrolls.
TEST_F(DashboardWindowTest, EveryPageFitsTheStartSizeAndTheMinimumSize)
{
    auto *quickWindow = qobject_cast<QQuickWindow *>(window);
    ASSERT_NE(quickWindow, nullptr);
    const QSize start = sy::app::WindowSession::fittedGeometry(QRect(0, 0, 1400, 900)).size();
    ASSERT_EQ(start, QSize(1120, 720));
    ASSERT_LE(quickWindow->minimumWidth(), start.width());
    ASSERT_LE(quickWindow->minimumHeight(), start.height());
    quickWindow->resize(start);
    quickWindow->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(quickWindow, 5000));
    // Each page with what it shows once its data is in.
    const std::vector<std::pair<int, std::function<bool()>>> pages{
        {0, [&] { return child("tileRepeater")->property("count").toInt() == 6; }},
        {1, [&] { return child("requestList") != nullptr; }},
        {2, [&] { return child("failureLabPage") != nullptr; }},
        {3, [&] { return child("keysEditor") && child("keysEditor")->property("keys").toList().size() == 1; }},
        {4, [&] { return child("addProviderPage") && child("addProviderPage")->property("presets").toList().size() >= 15; }},
        {5, [&] { return child<QObject>("setupText") && !child<QObject>("setupText")->property("text").toString().isEmpty(); }},
        {6, [&] { return child("spendPage") && !child("spendPage")->property("loading").toBool(); }},
    };
    for (const QSize size : {start, quickWindow->minimumSize()}) {
        quickWindow->resize(size);
        for (const auto &[page, ready] : pages) {
            window->setProperty("currentPage", page);
            ASSERT_TRUE(waitUntil(ready, 10s)) << "page " << page;
            // Configure: each of its editors in turn, with its first entry's form shown.
            const std::vector<const char *> forms{"keyForm", "channelForm", "modelForm", "virtualModelForm",
                                                  "workspaceEditor", "importExportEditor"};
            const int sections = page == 3 ? int(forms.size()) : 1;
            for (int section = 0; section < sections; ++section) {
                if (page == 3) {
                    child("configureSections")->setProperty("currentIndex", section);
                    ASSERT_TRUE(waitUntil([&] { return child(forms[section]) && child(forms[section])->isVisible(); }, 10s))
                        << forms[section];
                }
                // Layouts settle on the next polish; a page that fits stays fitting.
                QStringList outside;
                waitUntil([&] { outside = itemsOutside(quickWindow); return outside.isEmpty(); }, 2s);
                EXPECT_TRUE(outside.isEmpty()) << "page " << page << " section " << section << " at " << size.width()
                                               << "x" << size.height() << ":\n  "
                                               << outside.mid(0, 40).join(QStringLiteral("\n  ")).toStdString();
            }
        }
    }
}

using StartThemeTest = DashboardFixture;

// Dark chosen at start (a dark desktop, SWITCHYARD_THEME=dark): the window, its cards, its text
// and its charts are dark with light text from the first frame, not Fusion's light default.
TEST_F(StartThemeTest, ADarkChoiceAtStartDrawsTheWindowDark)
{
    ASSERT_TRUE(dir.isValid());
    ASSERT_TRUE(startAndSettle(demoOptions()));
    const QPalette light = QGuiApplication::palette();
    ASSERT_FALSE(sy::app::SystemTheme::isDark(light)) << "the tests start light";
    // As the app does: the window is made, then the palette chosen, before it is shown.
    loadWindow();
    ASSERT_TRUE(sy::app::applyThemeMode(sy::app::ThemeMode::Dark, {}));
    auto lightness = [&](QObject *object, const char *property) {
        return object ? object->property(property).value<QColor>().lightnessF() : -1.0;
    };
    EXPECT_TRUE(waitUntil([&] { return window->property("dark").toBool(); }, 5s));
    EXPECT_TRUE(waitUntil([&] { return lightness(window, "color") < 0.5; }, 5s)) << "the window's background";
    EXPECT_TRUE(waitUntil([&] { return lightness(child<QObject>("statValue"), "color") > 0.5; }, 5s)) << "a card's figure";
    EXPECT_TRUE(waitUntil([&] { return lightness(child<QObject>("requestsChart"), "textColor") > 0.5; }, 5s)) << "the charts' labels";
    QGuiApplication::setPalette(light);
    EXPECT_TRUE(waitUntil([&] { return !window->property("dark").toBool(); }, 5s)) << "and back, as SystemTheme follows";
}

using StartFailureTest = DashboardFixture;

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
} // namespace sy::apptest
