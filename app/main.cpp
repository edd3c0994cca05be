// switchyard: the desktop app. Starts the gateway on its worker thread (the demo workspace when
// no configuration is given) and shows the dashboard.
#include "GatewayHost.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QtQml/qqmlextensionplugin.h>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)
Q_IMPORT_QML_PLUGIN(Switchyard_ModelsPlugin)

int main(int argc, char **argv)
{
    QApplication app(argc, argv);  // QApplication, not QGuiApplication: Qt Charts needs it
    QApplication::setApplicationName(QStringLiteral("switchyard"));
    QApplication::setApplicationDisplayName(QStringLiteral("Switchyard"));
    QApplication::setApplicationVersion(QStringLiteral(SWITCHYARD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Switchyard: a local LLM router with a live dashboard."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption config(QStringList{"c", "config"}, QStringLiteral("Configuration file (YAML or JSON); the demo workspace without it."), QStringLiteral("FILE"));
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("Gateway port (overrides the configuration; 0 = any free port)."), QStringLiteral("PORT"));
    const QCommandLineOption traffic(QStringLiteral("demo-traffic"), QStringLiteral("Start the demo traffic generator at RATE requests per second."), QStringLiteral("RATE"));
    parser.addOptions({config, port, traffic});
    parser.process(app);

    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        QQuickStyle::setStyle(QStringLiteral("Fusion"));

    sy::app::GatewayHost gateway;
    gateway.start(parser.value(config), parser.isSet(port) ? parser.value(port).toInt() : sy::app::GatewayHost::kConfiguredPort);
    if (parser.isSet(traffic)) {
        const double rate = parser.value(traffic).toDouble();
        QObject::connect(&gateway, &sy::app::GatewayHost::frameChanged, &gateway, [&gateway, rate] {
            gateway.setTraffic(true, rate, 0.5, gateway.modelIds());   // the first frame names the models
        }, Qt::SingleShotConnection);
    }

    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    engine.setInitialProperties({{"gateway", QVariant::fromValue(&gateway)}});
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app,
                     [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/Switchyard/Dashboard/Main.qml")));
    return app.exec();
}
