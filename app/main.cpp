// switchyard: the desktop app. Starts the gateway on its worker thread (the demo workspace when
// no configuration is given) and shows the dashboard.
#include "GatewayHost.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>

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
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("Gateway port (overrides the configuration)."), QStringLiteral("PORT"));
    parser.addOptions({config, port});
    parser.process(app);

    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        QQuickStyle::setStyle(QStringLiteral("Fusion"));

    sy::app::GatewayHost gateway;
    gateway.start(parser.value(config), quint16(parser.value(port).toUInt()));

    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    engine.setInitialProperties({{"gateway", QVariant::fromValue(&gateway)}});
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app,
                     [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    engine.load(QUrl(QStringLiteral("qrc:/Switchyard/Dashboard/Main.qml")));
    return app.exec();
}
