// FrontOptions::reusePort (LimitedTcpServer::listenSharingPort): two fronts listen on one port
// and both answer; without the option the second is refused with "address in use".
#include "RawHttpClient.h"

#include "http/HttpFront.h"

#include <QSet>
#include <memory>

namespace sy::http::test {
namespace {

std::unique_ptr<HttpFront> answeringFront(bool reusePort, const QByteArray &name)
{
    FrontOptions options;
    options.reusePort = reusePort;
    auto front = std::make_unique<HttpFront>(options);
    front->route("GET", "/who", [name](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
        sink->respond(200, {{"Content-Type", "text/plain"}}, name);
    });
    return front;
}

TEST(HttpFrontReusePort, TwoFrontsShareOnePortAndBothAnswer)
{
    auto first = answeringFront(true, "first");
    const quint16 port = first->listenOn(QHostAddress::LocalHost, 0);
    ASSERT_NE(port, 0) << qPrintable(first->errorString());
    auto second = answeringFront(true, "second");
    ASSERT_EQ(second->listenOn(QHostAddress::LocalHost, port), port) << qPrintable(second->errorString());

    // The kernel spreads new connections by a hash of the client's address and port: a few
    // dozen connections reach both.
    QSet<QByteArray> answeredBy;
    for (int i = 0; i < 64 && answeredBy.size() < 2; ++i) {
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", "/who", port));
        const auto response = client.readResponse();
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        answeredBy.insert(response->body);
    }
    EXPECT_EQ(answeredBy.size(), 2);
}

TEST(HttpFrontReusePort, WithoutTheOptionTheSecondListenIsRefused)
{
    auto first = answeringFront(true, "first");
    const quint16 port = first->listenOn(QHostAddress::LocalHost, 0);
    ASSERT_NE(port, 0);
    auto plain = answeringFront(false, "plain");
    EXPECT_EQ(plain->listenOn(QHostAddress::LocalHost, port), 0);
    EXPECT_TRUE(plain->errorString().contains("in use")) << qPrintable(plain->errorString());
    // A sharing listener is refused too when the port's owner did not opt in.
    auto owner = answeringFront(false, "owner");
    const quint16 taken = owner->listenOn(QHostAddress::LocalHost, 0);
    ASSERT_NE(taken, 0);
    auto sharing = answeringFront(true, "sharing");
    EXPECT_EQ(sharing->listenOn(QHostAddress::LocalHost, taken), 0);
    EXPECT_TRUE(sharing->errorString().contains("in use")) << qPrintable(sharing->errorString());
}

} // namespace
} // namespace sy::http::test
