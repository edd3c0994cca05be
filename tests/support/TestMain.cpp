// Entry point of every GoogleTest executable: a QCoreApplication exists for the whole run so
// tests can use sockets, timers and event loops.
#include <QCoreApplication>
#include <gmock/gmock.h>

int main(int argc, char **argv)
{
    // Never the developer's own OS keychain: tests that want a vault bring a fake or a private one.
    qputenv("SWITCHYARD_CREDENTIALS", "database");
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleMock(&argc, argv);
    return RUN_ALL_TESTS();
}
