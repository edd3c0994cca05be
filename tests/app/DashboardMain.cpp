// The dashboard tests' own main: a QApplication (Qt Charts needs one), offscreen, and the
// dashboard's static QML modules. The test support library's TestMain is then not linked in.
#include <QApplication>
#include <QQuickStyle>
#include <QtQml/qqmlextensionplugin.h>
#include <gmock/gmock.h>

Q_IMPORT_QML_PLUGIN(Switchyard_DashboardPlugin)
Q_IMPORT_QML_PLUGIN(Switchyard_ModelsPlugin)

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
