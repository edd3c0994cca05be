// EpollEventDispatcher: socket notifiers on real descriptors (a loopback TCP pair, a pipe, a
// regular file), then Qt's own networking and libcurl running on it: QTcpServer/QTcpSocket, a
// QHttpServer on a thread with the dispatcher, and CurlUpstreamClient.
#include "EpollDispatcherTestSupport.h"
#include "upstream/CurlUpstreamClient.h"

#include <QHttpServer>
#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryFile>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <memory>
#include <unistd.h>

namespace sy::test {
namespace {

struct Counter {
    int activations = 0;
};

QSocketNotifier *counting(int fd, QSocketNotifier::Type type, Counter &counter)
{
    auto *notifier = new QSocketNotifier(fd, type);
    QObject::connect(notifier, &QSocketNotifier::activated, [&counter] { ++counter.activations; });
    return notifier;
}

TEST_F(EpollDispatcherTest, ReadNotifierFiresWhenBytesArriveOnAPipe)
{
    Pipe pipe;
    Counter read;
    std::unique_ptr<QSocketNotifier> notifier(counting(pipe.readEnd, QSocketNotifier::Read, read));
    processEventsFor(20ms);
    EXPECT_EQ(read.activations, 0);
    writeByte(pipe.writeEnd);
    EXPECT_TRUE(waitUntil([&] { return read.activations > 0; }));
}

TEST_F(EpollDispatcherTest, ReadNotifierFiresOnHangUp)
{
    Pipe pipe;
    Counter read;
    std::unique_ptr<QSocketNotifier> notifier(counting(pipe.readEnd, QSocketNotifier::Read, read));
    ::close(pipe.writeEnd);
    pipe.writeEnd = -1;
    EXPECT_TRUE(waitUntil([&] { return read.activations > 0; }));
}

TEST_F(EpollDispatcherTest, WriteNotifierFiresOnAWritableTcpSocket)
{
    TcpPair pair;
    Counter write;
    std::unique_ptr<QSocketNotifier> notifier(counting(pair.client, QSocketNotifier::Write, write));
    EXPECT_TRUE(waitUntil([&] { return write.activations > 0; }));
}

TEST_F(EpollDispatcherTest, ReadAndWriteNotifiersShareOneDescriptor)
{
    TcpPair pair;
    Counter read, write;
    std::unique_ptr<QSocketNotifier> reader(counting(pair.client, QSocketNotifier::Read, read));
    std::unique_ptr<QSocketNotifier> writer(counting(pair.client, QSocketNotifier::Write, write));
    ASSERT_TRUE(waitUntil([&] { return write.activations > 0; }));
    EXPECT_EQ(read.activations, 0) << "nothing was sent to the client yet";
    writeByte(pair.server);      // both watched: one registration with both events
    ASSERT_TRUE(waitUntil([&] { return read.activations > 0; }));
    drain(pair.client);

    writer->setEnabled(false);  // the read notifier must stay watched
    const int readsBefore = read.activations;
    writeByte(pair.server);
    ASSERT_TRUE(waitUntil([&] { return read.activations > readsBefore; }));
    drain(pair.client);
    const int writesWhileDisabled = write.activations;
    processEventsFor(20ms);
    EXPECT_EQ(write.activations, writesWhileDisabled);

    reader.reset();             // the write notifier alone again
    writer->setEnabled(true);
    EXPECT_TRUE(waitUntil([&] { return write.activations > writesWhileDisabled; }));
}

TEST_F(EpollDispatcherTest, DisabledNotifierIsNotActivatedUntilEnabledAgain)
{
    Pipe pipe;
    Counter read;
    std::unique_ptr<QSocketNotifier> notifier(counting(pipe.readEnd, QSocketNotifier::Read, read));
    notifier->setEnabled(false);
    writeByte(pipe.writeEnd);
    processEventsFor(20ms);
    EXPECT_EQ(read.activations, 0);
    notifier->setEnabled(true);
    EXPECT_TRUE(waitUntil([&] { return read.activations > 0; }));
}

TEST_F(EpollDispatcherTest, NotifierDeletedByAnEarlierHandlerOfTheSameBatchIsNotActivated)
{
    Pipe first, second;
    writeByte(first.writeEnd);
    writeByte(second.writeEnd);
    QSocketNotifier *notifiers[2] = {new QSocketNotifier(first.readEnd, QSocketNotifier::Read),
                                     new QSocketNotifier(second.readEnd, QSocketNotifier::Read)};
    int activations = 0;
    for (int i = 0; i < 2; ++i) {
        QObject::connect(notifiers[i], &QSocketNotifier::activated, [&, i] {
            ++activations;
            delete notifiers[1 - i];  // whichever comes first deletes the other
            notifiers[1 - i] = nullptr;
        });
    }
    dispatcher()->processEvents(QEventLoop::AllEvents);  // both are ready: one batch
    EXPECT_EQ(activations, 1);
    delete notifiers[0];
    delete notifiers[1];
}

TEST_F(EpollDispatcherTest, NotifierReplacedDuringTheBatchWaitsForTheNextOne)
{
    Pipe first, second;
    writeByte(first.writeEnd);
    writeByte(second.writeEnd);
    Counter replacementCount;
    std::unique_ptr<QSocketNotifier> replacement;
    QSocketNotifier *notifiers[2] = {new QSocketNotifier(first.readEnd, QSocketNotifier::Read),
                                     new QSocketNotifier(second.readEnd, QSocketNotifier::Read)};
    const int fds[2] = {first.readEnd, second.readEnd};
    for (int i = 0; i < 2; ++i) {
        QObject::connect(notifiers[i], &QSocketNotifier::activated, [&, i] {
            if (replacement)
                return;
            // A new notifier on the other descriptor, perhaps at the address of the old one.
            delete notifiers[1 - i];
            notifiers[1 - i] = nullptr;
            replacement.reset(counting(fds[1 - i], QSocketNotifier::Read, replacementCount));
        });
    }
    dispatcher()->processEvents(QEventLoop::AllEvents);
    ASSERT_TRUE(replacement);
    EXPECT_EQ(replacementCount.activations, 0) << "registered after the batch was collected";
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(replacementCount.activations, 1);
    delete notifiers[0];
    delete notifiers[1];
}

TEST_F(EpollDispatcherTest, ExcludedSocketNotifiersWaitForALaterPass)
{
    Pipe pipe;
    writeByte(pipe.writeEnd);
    Counter read;
    std::unique_ptr<QSocketNotifier> notifier(counting(pipe.readEnd, QSocketNotifier::Read, read));
    dispatcher()->processEvents(QEventLoop::ExcludeSocketNotifiers);
    EXPECT_EQ(read.activations, 0);
    dispatcher()->processEvents(QEventLoop::AllEvents);
    EXPECT_EQ(read.activations, 1);
}

TEST_F(EpollDispatcherTest, RegularFileIsAlwaysReadyAsWithPoll)
{
    QTemporaryFile file;
    ASSERT_TRUE(file.open());
    Counter read;
    std::unique_ptr<QSocketNotifier> notifier(counting(int(file.handle()), QSocketNotifier::Read, read));
    EXPECT_TRUE(waitUntil([&] { return read.activations > 0; }));
    notifier.reset();
    bool later = false;
    QTimer::singleShot(1, [&] { later = true; });
    EXPECT_TRUE(waitUntil([&] { return later; })) << "the always-ready descriptor is gone with its notifier";
}

// --- Qt networking and libcurl on the dispatcher ------------------------------------------

TEST_F(EpollDispatcherTest, TcpServerAndSocketExchangeBytes)
{
    QTcpServer server;
    ASSERT_TRUE(server.listen(QHostAddress::LocalHost, 0));
    QObject::connect(&server, &QTcpServer::newConnection, [&] {
        QTcpSocket *peer = server.nextPendingConnection();
        QObject::connect(peer, &QTcpSocket::readyRead, [peer] { peer->write(peer->readAll().toUpper()); });
    });
    QTcpSocket client;
    QByteArray received;
    QObject::connect(&client, &QTcpSocket::readyRead, [&] { received += client.readAll(); });
    client.connectToHost(QHostAddress::LocalHost, server.serverPort());
    ASSERT_TRUE(waitUntil([&] { return client.state() == QAbstractSocket::ConnectedState; }));
    const QByteArray big(256 * 1024, 'a');  // more than one socket buffer: write notifiers too
    client.write(big);
    EXPECT_TRUE(waitUntil([&] { return received.size() == big.size(); }));
    EXPECT_EQ(received, QByteArray(big.size(), 'A'));
}

TEST_F(EpollDispatcherTest, HttpServerOnADispatcherThreadAnswersCurl)
{
    // Only loopback may be contacted: no proxy from the environment may sit in between.
    for (const char *name : {"http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})
        qunsetenv(name);
    QThread serverThread;
    serverThread.setEventDispatcher(new EpollEventDispatcher);
    serverThread.start();
    auto *httpServer = new QHttpServer;
    httpServer->route(QStringLiteral("/hello"), [] { return QStringLiteral("hello from the worker"); });
    httpServer->moveToThread(&serverThread);
    std::atomic<int> port{0};
    QMetaObject::invokeMethod(httpServer, [&] { port = httpServer->listen(QHostAddress::LocalHost, 0); },
                              Qt::BlockingQueuedConnection);
    ASSERT_GT(port.load(), 0);

    struct Handler : upstream::StreamHandler {
        int status = 0;
        QByteArray body;
        bool done = false;
        void onHeaders(int code, const upstream::HeaderList &) override { status = code; }
        void onChunk(const QByteArray &bytes) override { body += bytes; }
        void onComplete() override { done = true; }
        void onError(const upstream::UpstreamError &) override { done = true; }
    } handler;
    upstream::CurlUpstreamClient client;
    upstream::UpstreamRequest request;
    request.method = "GET";
    request.url = "http://127.0.0.1:" + QByteArray::number(port.load()) + "/hello";
    client.send(request, &handler);
    EXPECT_TRUE(waitUntil([&] { return handler.done; }));
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, "hello from the worker");

    QMetaObject::invokeMethod(httpServer, [httpServer] { delete httpServer; }, Qt::BlockingQueuedConnection);
    serverThread.quit();
    EXPECT_TRUE(serverThread.wait(10'000));
}

TEST_F(EpollDispatcherTest, ManyConcurrentConnectionsAreAllServed)
{
    QTcpServer server;
    ASSERT_TRUE(server.listen(QHostAddress::LocalHost, 0));
    server.setMaxPendingConnections(1000);
    QObject::connect(&server, &QTcpServer::newConnection, [&] {
        while (QTcpSocket *peer = server.nextPendingConnection())
            QObject::connect(peer, &QTcpSocket::readyRead, [peer] { peer->write(peer->readAll()); });
    });
    constexpr int kConnections = 300;
    std::vector<std::unique_ptr<QTcpSocket>> clients;
    int echoed = 0;
    for (int i = 0; i < kConnections; ++i) {
        auto client = std::make_unique<QTcpSocket>();
        QTcpSocket *raw = client.get();
        QObject::connect(raw, &QTcpSocket::connected, [raw] { raw->write("ping"); });
        QObject::connect(raw, &QTcpSocket::readyRead, [raw, &echoed] {
            if (raw->bytesAvailable() >= 4 && raw->readAll() == "ping")
                ++echoed;
        });
        raw->connectToHost(QHostAddress::LocalHost, server.serverPort());
        clients.push_back(std::move(client));
    }
    EXPECT_TRUE(waitUntil([&] { return echoed == kConnections; }));
}

} // namespace
} // namespace sy::test
