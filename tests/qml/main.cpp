// QtQuickTest runner for the dashboard's QML components. A QApplication, not a QGuiApplication:
// Qt Charts needs one. The dashboard module is static and linked in; it is found under qrc:/.
#include <QApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)

class Setup : public QObject {
    Q_OBJECT
public slots:
    void qmlEngineAvailable(QQmlEngine *engine) { engine->addImportPath(QStringLiteral("qrc:/")); }
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    Setup setup;
    return quick_test_main_with_setup(argc, argv, "dashboard_qml", QUICK_TEST_SOURCE_DIR, &setup);
}

#include "main.moc"
