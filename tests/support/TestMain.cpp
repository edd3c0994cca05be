// Entry point of every GoogleTest executable: a QCoreApplication exists for the whole run so
// tests can use sockets, timers and event loops. Its thread runs the event dispatcher the
// gateway's own threads run (core/EpollEventDispatcher; SWITCHYARD_EVENT_DISPATCHER=qt for Qt's),
// so the in-process gateway, simulator and clients of the tests are driven as in production.
#include "core/EpollEventDispatcher.h"

#include <QCoreApplication>
#include <gmock/gmock.h>

int main(int argc, char **argv)
{
    // Never the developer's own OS keychain: tests that want a vault bring a fake or a private one.
    qputenv("SWITCHYARD_CREDENTIALS", "database");
    if (QAbstractEventDispatcher *dispatcher = sy::createGatewayEventDispatcher())
        QCoreApplication::setEventDispatcher(dispatcher);
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleMock(&argc, argv);
    return RUN_ALL_TESTS();
}
