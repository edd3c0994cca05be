// Connection-level failures and their UpstreamErrorKind: refused, connect timeout, truncation.
#include "DescriptorsExhausted.h"
#include "UpstreamTestSupport.h"

#include <QElapsedTimer>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sy::upstream::test {
namespace {

using CurlUpstreamFailureTest = UpstreamTest;

// A loopback listener that never accepts and whose accept queue is full, so the kernel drops
// further SYNs and a connect() to it can only time out. Linux keeps backlog+1 connections queued
// (backlog 0: one); the queue is filled until a filler connection stays pending.
class SaturatedListener {
public:
    SaturatedListener()
    {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr *>(&address), length) != 0
            || ::listen(fd_, 0) != 0
            || ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) != 0)
            return;
        port_ = ntohs(address.sin_port);
        for (int i = 0; i < 16 && !saturated_; ++i) {
            auto *filler = new QTcpSocket;
            fillers_.emplace_back(filler);
            filler->connectToHost(QHostAddress::LocalHost, port_);
            saturated_ = !sy::test::waitUntil(
                [&] { return filler->state() == QAbstractSocket::ConnectedState; }, 300ms);
        }
    }
    ~SaturatedListener()
    {
        fillers_.clear();
        if (fd_ >= 0)
            ::close(fd_);
    }

    bool saturated() const { return saturated_; }
    quint16 port() const { return port_; }

private:
    int fd_ = -1;
    quint16 port_ = 0;
    bool saturated_ = false;
    std::vector<std::unique_ptr<QTcpSocket>> fillers_;
};

quint16 unusedLoopbackPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();  // closed again when `probe` goes
}

TEST_F(CurlUpstreamFailureTest, ConnectionRefusedIsConnectError)
{
    RecordingHandler handler;
    client.send(get("http://127.0.0.1:" + QByteArray::number(unusedLoopbackPort()) + "/"), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Connect) << handler.error->message.toStdString();
    EXPECT_EQ(handler.headerCalls, 0);
    EXPECT_EQ(client.activeTransfers(), 0);
}

TEST_F(CurlUpstreamFailureTest, NoFreeDescriptorIsLocalResourcesNotAConnectError)
{
    // curl itself reports it as "Couldn't connect to server": the channel would be blamed.
    RecordingHandler handler;
    {
        DescriptorsExhausted exhausted;
        client.send(get(server.url("/")), &handler);
        ASSERT_TRUE(waitFinished(handler));
    }
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::LocalResources) << handler.error->message.toStdString();
    EXPECT_TRUE(handler.error->message.contains(QStringLiteral("open-file limit"))) << handler.error->message.toStdString();
    EXPECT_EQ(server.acceptedConnections(), 0);

    RecordingHandler after;
    client.send(get(server.url("/")), &after);
    ASSERT_TRUE(waitFinished(after));
    EXPECT_TRUE(after.completed) << "with descriptors free again the same client connects";
}

TEST_F(CurlUpstreamFailureTest, ConnectTimeoutIsConnectError)
{
    SaturatedListener listener;
    ASSERT_TRUE(listener.saturated()) << "could not fill the accept queue of a loopback listener";
    UpstreamRequest request = get("http://127.0.0.1:" + QByteArray::number(listener.port()) + "/");
    request.connectTimeout = 300ms;
    request.firstByteTimeout = 10s;
    RecordingHandler handler;
    QElapsedTimer elapsed;
    elapsed.start();
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Connect) << handler.error->message.toStdString();
    EXPECT_GE(elapsed.elapsed(), 250);
    EXPECT_LT(elapsed.elapsed(), 5000);
}

TEST_F(CurlUpstreamFailureTest, ResetMidBodyIsReset)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"),
                           Step::reset(50ms)};
    });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Reset) << handler.error->message.toStdString();
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, "0123456789");
}

TEST_F(CurlUpstreamFailureTest, CloseMidBodyIsReset)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200)),
                           Step::write(LoopbackHttpServer::chunk("partial")),
                           Step::close(50ms)};
    });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Reset) << handler.error->message.toStdString();
    EXPECT_EQ(handler.body, "partial");
}

TEST_F(CurlUpstreamFailureTest, CloseBeforeAnyResponseIsReset)
{
    server.setScript([](const ReceivedRequest &) { return QList<Step>{Step::close()}; });
    RecordingHandler handler;
    client.send(get(server.url()), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Reset) << handler.error->message.toStdString();
    EXPECT_EQ(handler.headerCalls, 0);
}

} // namespace
} // namespace sy::upstream::test
