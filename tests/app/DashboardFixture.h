#pragma once
// The dashboard end to end, shared by its test files: the real GatewayHost (gateway + demo
// workspace on its worker thread, a temporary database) with the dashboard's root QML
// offscreen, and helpers to reach into the window's items. Bounded waits only.
#include "GatewayHost.h"
#include "support/Waits.h"

#include <QAbstractSeries>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQmlExpression>
#include <QQuickItem>
#include <QTemporaryDir>
#include <QXYSeries>
#include <gmock/gmock.h>

namespace sy::apptest {

using namespace std::chrono_literals;
using sy::app::GatewayHost;
using sy::test::waitUntil;

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

// Runs `script` with `item` as its scope, in the context `item` was declared in: the ids of the
// file that declares it. (A page's root object is declared in Main.qml, so for the page's own ids
// pass one of its inner items.)
QVariant evaluateIn(QObject *item, const QString &script);

// The onboarding routes (presets, discovery, test, connect, usage history) come with the
// gateway's onboarding admin API; a build without them answers "Unknown admin route" and these
// page tests have nothing to drive.
inline bool routesMissing(QObject *page)
{
    return page->property("error").toString().startsWith(QStringLiteral("Unknown admin route"));
}
#define SKIP_WITHOUT_ONBOARDING_ROUTES(page)                                                  \
    if (routesMissing(page))                                                                 \
    GTEST_SKIP() << "no onboarding admin routes in this build: " << page->property("error").toString().toStdString()

} // namespace sy::apptest
