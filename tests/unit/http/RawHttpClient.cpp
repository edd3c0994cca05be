#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QHostAddress>

namespace sy::http::test {

void FrontTest::TearDown()
{
    destroyFront();
}

HttpFront &FrontTest::startFront(FrontOptions options)
{
    front = std::make_unique<HttpFront>(std::move(options));
    port = front->listenOn(QHostAddress::LocalHost, 0);
    EXPECT_NE(port, 0) << front->errorString().toStdString();
    return *front;
}

void FrontTest::destroyFront()
{
    front.reset();
    sy::test::processEventsFor(10ms);
}

} // namespace sy::http::test
