// First-byte and idle timeouts: the client's own deadlines, which never cut a healthy stream.
#include "UpstreamTestSupport.h"

#include <QElapsedTimer>
#include <QTimer>

namespace sy::upstream::test {
namespace {

using CurlUpstreamTimeoutTest = UpstreamTest;

TEST_F(CurlUpstreamTimeoutTest, SilentServerIsFirstByteTimeout)
{
    server.setScript([](const ReceivedRequest &) { return QList<Step>{}; });  // never answers
    UpstreamRequest request = get(server.url());
    request.firstByteTimeout = 200ms;
    request.idleTimeout = 10s;
    RecordingHandler handler;
    QElapsedTimer elapsed;
    elapsed.start();
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::FirstByteTimeout)
        << handler.error->message.toStdString();
    EXPECT_GE(elapsed.elapsed(), 190);
    EXPECT_EQ(server.requests().size(), 1) << "the request was sent before the window ran out";
    EXPECT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));
    EXPECT_EQ(client.activeTransfers(), 0);
}

TEST_F(CurlUpstreamTimeoutTest, SilenceMidStreamIsIdleTimeout)
{
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200)),
                           Step::write(LoopbackHttpServer::chunk("first"), 20ms)};
    });
    UpstreamRequest request = get(server.url());
    request.firstByteTimeout = 10s;
    request.idleTimeout = 200ms;
    RecordingHandler handler;
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::IdleTimeout)
        << handler.error->message.toStdString();
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, "first");
    EXPECT_TRUE(sy::test::waitUntil([&] { return server.connectionsClosedByPeer() == 1; }));
}

TEST_F(CurlUpstreamTimeoutTest, SlowSteadyStreamLongerThanIdleTimeoutCompletes)
{
    // 12 pieces 60 ms apart: the stream lasts about 0.7 s, four times the idle timeout, but no
    // single silence comes near it.
    server.setScript([](const ReceivedRequest &) {
        QList<Step> steps{Step::write(LoopbackHttpServer::chunkedHead(200))};
        for (int i = 0; i < 12; ++i)
            steps.append(Step::write(LoopbackHttpServer::chunk(QByteArray::number(i % 10)), 60ms));
        steps.append(Step::write(LoopbackHttpServer::lastChunk()));
        return steps;
    });
    UpstreamRequest request = get(server.url());
    request.firstByteTimeout = 180ms;
    request.idleTimeout = 180ms;
    RecordingHandler handler;
    QElapsedTimer elapsed;
    elapsed.start();
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(handler.body, "012345678901");
    EXPECT_GT(elapsed.elapsed(), 180 * 3);
}

TEST_F(CurlUpstreamTimeoutTest, ShortIdleTimeoutAppliesAfterLongFirstByteWindow)
{
    // The idle deadline (shorter) replaces the first-byte one as soon as the response starts.
    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200))};
    });
    UpstreamRequest request = get(server.url());
    request.firstByteTimeout = 20s;
    request.idleTimeout = 150ms;
    RecordingHandler handler;
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler, 5s));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::IdleTimeout);
}

TEST_F(CurlUpstreamTimeoutTest, TimeoutOfOneTransferLeavesOthersRunning)
{
    server.setScript([](const ReceivedRequest &request) {
        if (request.target == "/silent")
            return QList<Step>{};
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "fine"), 400ms)};
    });
    UpstreamRequest silent = get(server.url("/silent"));
    silent.firstByteTimeout = 100ms;
    UpstreamRequest slow = get(server.url("/slow"));
    slow.firstByteTimeout = 5s;
    RecordingHandler silentHandler;
    RecordingHandler slowHandler;
    client.send(silent, &silentHandler);
    client.send(slow, &slowHandler);

    ASSERT_TRUE(waitFinished(silentHandler));
    EXPECT_EQ(silentHandler.errorKind(), UpstreamErrorKind::FirstByteTimeout);
    EXPECT_FALSE(slowHandler.finished());
    ASSERT_TRUE(waitFinished(slowHandler));
    EXPECT_TRUE(slowHandler.completed);
    EXPECT_EQ(slowHandler.body, "fine");
}

// Accepts one connection and reads at most `bytesPerTick` every 20 ms (0: never reads), so a large
// request body trickles out at a pace the test chooses; answers 200 once the whole request is in.
class SlowReader : public QObject {
public:
    explicit SlowReader(qint64 bytesPerTick) : bytesPerTick_(bytesPerTick)
    {
        server_.listen(QHostAddress::LocalHost, 0);
        connect(&server_, &QTcpServer::pendingConnectionAvailable, this, [this] {
            socket_ = server_.nextPendingConnection();
            socket_->setReadBufferSize(bytesPerTick_ > 0 ? bytesPerTick_ : 1);
            ticker_.start(20);
        });
        connect(&ticker_, &QTimer::timeout, this, [this] { readSome(); });
    }
    QByteArray url() const { return "http://127.0.0.1:" + QByteArray::number(server_.serverPort()) + "/"; }
    qint64 received() const { return received_; }

private:
    void readSome()
    {
        if (!socket_ || bytesPerTick_ == 0)
            return;
        const QByteArray bytes = socket_->read(bytesPerTick_);
        received_ += bytes.size();
        head_ += bytes.left(4096 - head_.size());
        const qsizetype headEnd = head_.indexOf("\r\n\r\n");
        const qsizetype lengthAt = head_.toLower().indexOf("content-length: ");
        if (headEnd < 0 || lengthAt < 0 || answered_)
            return;
        const qint64 length = head_.mid(lengthAt + 16, head_.indexOf('\r', lengthAt) - lengthAt - 16).toLongLong();
        if (received_ >= headEnd + 4 + length) {
            answered_ = true;
            socket_->write(LoopbackHttpServer::response(200, "done"));
        }
    }

    QTcpServer server_;
    QTimer ticker_;
    QPointer<QTcpSocket> socket_;
    QByteArray head_;
    qint64 bytesPerTick_;
    qint64 received_ = 0;
    bool answered_ = false;
};

UpstreamRequest largeUpload(const QByteArray &url, std::chrono::milliseconds firstByteTimeout)
{
    UpstreamRequest request;
    request.method = "POST";
    request.url = url;
    request.headers = {{"Content-Type", "application/octet-stream"}};
    request.body = QByteArray(48 * 1024 * 1024, 'x');
    request.firstByteTimeout = firstByteTimeout;
    return request;
}

TEST_F(CurlUpstreamTimeoutTest, FirstByteWindowStartsWhenLargeBodyIsSent)
{
    // The upload alone takes several first-byte windows, yet keeps moving; the server answers at
    // once when the body is in, so nothing times out. (The window does include the time the
    // server takes to read what the kernels buffered: a few MB, about 0.2 s at this pace.)
    SlowReader reader(512 * 1024);
    RecordingHandler handler;
    QElapsedTimer elapsed;
    elapsed.start();
    client.send(largeUpload(reader.url(), 600ms), &handler);

    ASSERT_TRUE(waitFinished(handler, 30s));
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(handler.body, "done");
    EXPECT_GT(elapsed.elapsed(), 1200) << "the upload was too fast to tell the windows apart";
}

TEST_F(CurlUpstreamTimeoutTest, StalledUploadIsFirstByteTimeout)
{
    SlowReader reader(0);  // accepts, never reads
    RecordingHandler handler;
    client.send(largeUpload(reader.url(), 300ms), &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::FirstByteTimeout)
        << handler.error->message.toStdString();
}

} // namespace
} // namespace sy::upstream::test
