// WindowSession: the window's size on a first start, and its geometry and page across runs
// (settings in a temporary INI file; a plain QWindow with a `currentPage` property).
#include "WindowSession.h"

#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QTemporaryDir>
#include <QWindow>
#include <gmock/gmock.h>

using sy::app::WindowSession;

namespace {

class WindowSessionTest : public ::testing::Test {
protected:
    QSettings settings() const { return QSettings(dir.filePath(QStringLiteral("dashboard.conf")), QSettings::IniFormat); }
    QRect available() const { return QGuiApplication::primaryScreen()->availableGeometry(); }

    QTemporaryDir dir;
};

TEST(WindowSessionFit, EightyPercentOfTheScreenCentred)
{
    EXPECT_EQ(WindowSession::fittedGeometry(QRect(0, 0, 1920, 1080)), QRect(192, 108, 1536, 864));
    // A second screen to the right: centred in it.
    EXPECT_EQ(WindowSession::fittedGeometry(QRect(1920, 0, 2560, 1440)), QRect(1920 + 256, 144, 2048, 1152));
}

TEST(WindowSessionFit, AtLeastTheMinimumButNeverLargerThanTheScreen)
{
    EXPECT_EQ(WindowSession::fittedGeometry(QRect(0, 0, 1024, 768)).size(), QSize(960, 640));
    EXPECT_EQ(WindowSession::fittedGeometry(QRect(0, 0, 800, 600)), QRect(0, 0, 800, 600));
}

TEST_F(WindowSessionTest, FirstStartFitsTheScreenAndKeepsThePage)
{
    QSettings store = settings();
    QWindow window;
    window.setProperty("currentPage", 0);
    WindowSession session(window, store);
    session.restore();
    EXPECT_EQ(window.geometry(), WindowSession::fittedGeometry(available()));
    EXPECT_EQ(window.property("currentPage").toInt(), 0);
}

TEST_F(WindowSessionTest, GeometryAndPageComeBackOnTheNextRun)
{
    const QRect chosen(available().topLeft() + QPoint(40, 30), available().size() * 0.7);
    {
        QSettings store = settings();
        QWindow window;
        window.setProperty("currentPage", 0);
        WindowSession session(window, store);
        session.restore();
        window.setGeometry(chosen);
        window.setProperty("currentPage", 5);
        session.save();
    }
    QSettings store = settings();
    QWindow window;
    window.setProperty("currentPage", 0);
    WindowSession session(window, store);
    session.restore();
    EXPECT_EQ(window.geometry(), chosen);
    EXPECT_EQ(window.property("currentPage").toInt(), 5);
}

TEST_F(WindowSessionTest, GeometryOfAScreenThatIsGoneIsNotRestored)
{
    {
        QSettings store = settings();
        store.setValue("window/geometry", QRect(3000, 100, 1000, 700));
        store.setValue("window/screen", "HDMI-that-was-unplugged");
        store.setValue("window/page", 2);
    }
    QSettings store = settings();
    QWindow window;
    window.setProperty("currentPage", 0);
    WindowSession session(window, store);
    session.restore();
    EXPECT_EQ(window.geometry(), WindowSession::fittedGeometry(available()));
    EXPECT_EQ(window.property("currentPage").toInt(), 2) << "the page is restored anyway";
}

TEST_F(WindowSessionTest, SavedOnHide)
{
    QSettings store = settings();
    QWindow window;
    window.setProperty("currentPage", 3);
    WindowSession session(window, store);
    session.restore();
    window.show();
    window.hide();
    EXPECT_EQ(settings().value("window/page").toInt(), 3);
    EXPECT_EQ(settings().value("window/screen").toString(), window.screen()->name());
}

} // namespace
