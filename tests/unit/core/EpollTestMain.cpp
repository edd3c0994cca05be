// Entry point of the event dispatcher tests: the main thread runs sy::EpollEventDispatcher
// (installed before the application exists, as switchyard-gateway does), so every socket, timer
// and event loop of these tests goes through it.
#include "core/EpollEventDispatcher.h"

#include <QCoreApplication>
#include <gmock/gmock.h>

int main(int argc, char **argv)
{
    qputenv("SWITCHYARD_CREDENTIALS", "database");
    QCoreApplication::setEventDispatcher(new sy::EpollEventDispatcher);
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleMock(&argc, argv);
    return RUN_ALL_TESTS();
}
