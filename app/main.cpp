// switchyard: the desktop app. Starts the gateway on its worker thread (the demo workspace when
// no configuration is given), shows the dashboard and puts an icon in the system tray. One runs
// per user: a second start brings the first one's window to the front and ends.
#include "Autostart.h"
#include "GatewayHost.h"
#include "SingleInstance.h"
#include "config/ConfigLoader.h"
#include "SystemTheme.h"
#include "ThemeChoice.h"
#include "Tray.h"
#include "WindowSession.h"
#include "WindowShownTracker.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QSettings>
#include <QSystemTrayIcon>
#include <QtQml/qqmlextensionplugin.h>
#include <cstdio>
#include <memory>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)
Q_IMPORT_QML_PLUGIN(Switchyard_ModelsPlugin)

int main(int argc, char **argv)
{
    QApplication app(argc, argv);  // QApplication, not QGuiApplication: Qt Charts and the tray menu need it
    QApplication::setApplicationName(QStringLiteral("switchyard"));
    QApplication::setApplicationDisplayName(QStringLiteral("Switchyard"));
    QApplication::setApplicationVersion(QStringLiteral(SWITCHYARD_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("switchyard"));   // the window's menu entry and icon on Wayland

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Switchyard: a local LLM router with a live dashboard."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption config(QStringList{"c", "config"}, QStringLiteral("Configuration file (YAML or JSON); the demo workspace without it."), QStringLiteral("FILE"));
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("Gateway port (overrides the configuration; 0 = any free port)."), QStringLiteral("PORT"));
    const QCommandLineOption traffic(QStringLiteral("demo-traffic"), QStringLiteral("Start the demo traffic generator at RATE requests per second."), QStringLiteral("RATE"));
    const QCommandLineOption database(QStringLiteral("database"), QStringLiteral("SQLite database file (overrides the configuration's `database`; the demo's own file is demo.db in the data directory)."), QStringLiteral("FILE"));
    const QCommandLineOption resetDemo(QStringLiteral("reset-demo"), QStringLiteral("Start the demo workspace over: delete its database (edits, ledger, request log) first."));
    const QCommandLineOption listen(QStringLiteral("listen"), QStringLiteral("Gateway address for this run (overrides the configuration; e.g. 127.0.0.1:8080)."), QStringLiteral("HOST:PORT"));
    const QCommandLineOption hidden(QStringLiteral("hidden"), QStringLiteral("Start with the window hidden in the system tray (shown as usual when there is no tray)."));
    parser.addOptions({config, port, listen, traffic, database, resetDemo, hidden});
    parser.process(app);
    QApplication::setWindowIcon(sy::app::applicationIcon());

    // Before the gateway: the first process owns the port and the database.
    sy::app::SingleInstance instance;
    switch (instance.claim()) {
    case sy::app::SingleInstance::Role::Primary:
        break;
    case sy::app::SingleInstance::Role::Secondary:
        std::printf("Switchyard is already running (process %lld): its window was brought to the front.\n"
                    "Quit it from its tray menu first to start it with other options.\n", instance.ownerPid());
        return 0;
    case sy::app::SingleInstance::Role::Failed:
        std::fprintf(stderr, "switchyard: %s\n", qPrintable(instance.error()));
        return 1;
    }

    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        QQuickStyle::setStyle(QStringLiteral("Fusion"));
    // Qt Quick's software renderer, unless a backend is asked for (QSG_RHI_BACKEND=opengl,
    // QT_QUICK_BACKEND): the dashboard is flat 2D (Qt Charts paints with QPainter anyway), and an
    // OpenGL context held all day costs more memory than everything else (bench/app-idle, Mesa:
    // 183 MB RSS with OpenGL, 86 MB without). It also repaints only the regions that changed.
    if (qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND") && qEnvironmentVariableIsEmpty("QSG_RHI_BACKEND"))
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);

    sy::app::GatewayStartOptions options;
    options.configPath = parser.value(config);
    options.databasePath = parser.value(database);
    options.resetDemo = parser.isSet(resetDemo);
    if (parser.isSet(port)) {
        bool ok = false;
        options.port = parser.value(port).toInt(&ok);
        if (!ok || options.port < 0 || options.port > 65535) {
            std::fprintf(stderr, "switchyard: --port expects 0..65535, got '%s'\n", qPrintable(parser.value(port)));
            return 2;
        }
    }
    if (parser.isSet(listen)) {
        quint16 listenPort = 0;
        if (!sy::config::parseListenAddress(parser.value(listen), options.listenHost, listenPort)) {
            std::fprintf(stderr, "switchyard: --listen expects HOST:PORT, got '%s'\n", qPrintable(parser.value(listen)));
            return 2;
        }
        options.port = listenPort;
    }
    sy::app::GatewayHost gateway;
    gateway.start(options);
    if (parser.isSet(traffic)) {
        const double rate = parser.value(traffic).toDouble();
        QObject::connect(&gateway, &sy::app::GatewayHost::frameChanged, &gateway, [&gateway, rate] {
            gateway.setTraffic(true, rate, 0.5, gateway.modelIds());   // the first frame names the models
        }, Qt::SingleShotConnection);
    }

    sy::app::Autostart autostart(QCoreApplication::applicationFilePath());
    const bool startHidden = parser.isSet(hidden) && QSystemTrayIcon::isSystemTrayAvailable();

    // ~/.config/switchyard/dashboard.conf: the window's geometry and page, and appearance/theme.
    QSettings windowSettings(QStringLiteral("switchyard"), QStringLiteral("dashboard"));
    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    // Shown only once its geometry and page are restored (WindowSession below).
    engine.setInitialProperties({{"gateway", QVariant::fromValue(&gateway)},
                                 {"desktop", QVariant::fromValue(&autostart)},
                                 {"visible", false}});
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app,
                     [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/Switchyard/Dashboard/Main.qml")));

    sy::app::Tray tray(gateway, QSystemTrayIcon::isSystemTrayAvailable());
    std::unique_ptr<sy::app::WindowSession> session;
    std::unique_ptr<sy::app::WindowShownTracker> shownTracker;
    if (!engine.rootObjects().isEmpty()) {
        auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
        session = std::make_unique<sy::app::WindowSession>(*window, windowSettings);
        session->restore();
        // Light or dark from the first frame (Fusion would start light): SWITCHYARD_THEME, the
        // setting, the desktop. Set once the window exists: Qt Quick Controls 6.4 takes a palette
        // set before the window is made only at its next change.
        const sy::app::ThemeMode themeMode = sy::app::chosenThemeMode(
            qEnvironmentVariable("SWITCHYARD_THEME"), windowSettings.value(QStringLiteral("appearance/theme")).toString());
        sy::app::applyThemeMode(themeMode, themeMode == sy::app::ThemeMode::System ? sy::app::readDesktopThemeHints()
                                                                                   : sy::app::DesktopThemeHints{});
        shownTracker = std::make_unique<sy::app::WindowShownTracker>(*window, gateway);
        // Light or dark as the palette is (chosen above), also when it changes while the app runs.
        auto *theme = new sy::app::SystemTheme(window);
        window->setProperty("dark", theme->dark());
        QObject::connect(theme, &sy::app::SystemTheme::changed, window, [window, theme] {
            window->setProperty("dark", theme->dark());
        });
        if (!startHidden)
            window->show();
        tray.setWindow(window);
        QObject::connect(&instance, &sy::app::SingleInstance::activationRequested, window, [window] {
            window->show();
            window->raise();
            window->requestActivate();
        });
    }
    return app.exec();
}
