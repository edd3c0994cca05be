// Backpressure end to end at the layers below the exchange: an HttpFront route relays an
// upstream answer through a ResponseSink and pauses the transfer while the sink is congested,
// exactly as the chat exchange does. A client that reads nothing while the upstream sends 50 MB
// keeps what the gateway pulls from the upstream bounded; once it reads, everything arrives.
#include "UpstreamTestSupport.h"

#include "http/HttpFront.h"
#include "support/HttpTestClient.h"

#include <QHostAddress>
#include <QTcpSocket>
#include <cstring>

namespace sy::upstream::test {
namespace {

constexpr qint64 kBodyBytes = 50 * 1024 * 1024;

constexpr qint64 kPeriod = 29;

char patternAt(qint64 offset)
{
    return char('A' + offset % kPeriod);
}

// `size` bytes of the pattern starting at `offset` (built by repetition: fast under sanitizers).
QByteArray pattern(qint64 offset, qint64 size)
{
    static const QByteArray period = [] {
        QByteArray out(kPeriod, Qt::Uninitialized);
        for (qint64 i = 0; i < kPeriod; ++i)
            out[i] = patternAt(i);
        return out;
    }();
    const qint64 start = offset % kPeriod;
    return period.repeated((start + size) / kPeriod + 1).mid(start, size);
}

bool matchesPattern(qint64 offset, const char *data, qint64 size)
{
    return std::memcmp(data, pattern(offset, size).constData(), size_t(size)) == 0;
}

// Relays one upstream transfer into a sink, with the backpressure calls the exchange makes.
class Relay : public StreamHandler {
public:
    Relay(CurlUpstreamClient &client, std::shared_ptr<http::ResponseSink> sink)
        : client_(client), sink_(std::move(sink))
    {
        sink_->onDrained([this] { client_.resume(id); });
        sink_->onClientGone([this] { client_.cancel(id); gone = true; });
    }
    void onHeaders(int status, const HeaderList &) override { sink_->begin(status, {}); }
    void onChunk(const QByteArray &bytes) override
    {
        if (!corruptAt && !matchesPattern(pulled, bytes.constData(), bytes.size()))
            corruptAt = pulled + 1;
        pulled += bytes.size();
        sink_->write(bytes);
        if (sink_->isCongested()) {
            ++pauses;
            client_.pause(id);
        }
    }
    void onComplete() override { completed = true; sink_->finish(); }
    void onError(const UpstreamError &e) override { error = e; sink_->abort(); }

    TransferId id = 0;
    qint64 pulled = 0;
    qint64 corruptAt = 0;  // 1 + offset of the first piece that differs from the pattern
    int pauses = 0;
    bool completed = false;
    bool gone = false;
    std::optional<UpstreamError> error;

private:
    CurlUpstreamClient &client_;
    std::shared_ptr<http::ResponseSink> sink_;
};

// Decodes a chunked body incrementally and checks it against the pattern without keeping it.
class ChunkedChecker {
public:
    void feed(const QByteArray &bytes)
    {
        if (ended)
            return;
        buffer_ += bytes;
        while (true) {
            if (!headDone_) {
                const qsizetype end = buffer_.indexOf("\r\n\r\n");
                if (end < 0)
                    return;
                head = buffer_.left(end);
                buffer_.remove(0, end + 4);
                headDone_ = true;
            }
            if (remaining_ == 0) {
                const qsizetype lineEnd = buffer_.indexOf("\r\n");
                if (lineEnd < 0)
                    return;
                bool ok = false;
                remaining_ = buffer_.left(lineEnd).toLongLong(&ok, 16);
                buffer_.remove(0, lineEnd + 2);
                if (!ok)
                    corrupt = true;
                if (remaining_ == 0) {
                    ended = true;
                    return;
                }
                remaining_ += 2;  // the CRLF after the data
            }
            const qint64 take = std::min<qint64>(remaining_, buffer_.size());
            const qint64 data = std::min<qint64>(take, std::max<qint64>(0, remaining_ - 2));
            corrupt = corrupt || !matchesPattern(bodyBytes, buffer_.constData(), data);
            bodyBytes += data;
            remaining_ -= take;
            buffer_.remove(0, take);
            if (buffer_.isEmpty())
                return;
        }
    }

    QByteArray head;
    qint64 bodyBytes = 0;
    bool corrupt = false;
    bool ended = false;

private:
    QByteArray buffer_;
    bool headDone_ = false;
    qint64 remaining_ = 0;
};

class CurlUpstreamPauseTest : public UpstreamTest {
protected:
    void SetUp() override
    {
        server.setScript([](const ReceivedRequest &) {
            return QList<Step>{Step::write(LoopbackHttpServer::response(200, pattern(0, kBodyBytes)))};
        });
        front = std::make_unique<http::HttpFront>();
        port = front->listenOn(QHostAddress::LocalHost, 0);
        ASSERT_NE(port, 0);
        front->route("GET", "/relay", [this](http::HttpRequest &&, std::shared_ptr<http::ResponseSink> sink) {
            relay = std::make_unique<Relay>(client, std::move(sink));
            UpstreamRequest request = get(server.url("/big"));
            // Shorter than the time the client reads nothing: a paused transfer must not time out.
            request.idleTimeout = 300ms;
            relay->id = client.send(request, relay.get());
        });
    }
    void TearDown() override
    {
        if (relay)
            client.cancel(relay->id);
        relay.reset();
        front.reset();
        sy::test::processEventsFor(10ms);
    }

    std::unique_ptr<http::HttpFront> front;
    quint16 port = 0;
    std::unique_ptr<Relay> relay;
};

TEST_F(CurlUpstreamPauseTest, NonReadingClientPausesTheUpstreamAndEverythingArrivesOnceItReads)
{
    QTcpSocket socket;
    socket.setReadBufferSize(4096);  // Qt takes nothing more off the kernel until we read
    socket.connectToHost(QHostAddress::LocalHost, port);
    ASSERT_TRUE(socket.waitForConnected(5000));
    socket.setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 64 * 1024);
    socket.write(sy::test::buildRequest("GET", "/relay", port));

    ASSERT_TRUE(sy::test::waitUntil([&] { return relay && relay->pauses > 0; }, 30s))
        << "the relay never saw a congested sink";
    EXPECT_TRUE(client.isPaused(relay->id));
    // The client still reads nothing, for longer than the idle timeout: the transfer stays
    // paused, alive, and what the gateway pulled from the upstream stays bounded.
    sy::test::processEventsFor(1s);
    const qint64 pulledWhilePaused = relay->pulled;
    EXPECT_LT(pulledWhilePaused, 16 * 1024 * 1024) << "of " << kBodyBytes;
    sy::test::processEventsFor(300ms);
    EXPECT_EQ(relay->pulled, pulledWhilePaused) << "a paused transfer kept receiving";
    EXPECT_FALSE(relay->error) << relay->error->message.toStdString();
    EXPECT_TRUE(client.isPaused(relay->id));

    ChunkedChecker checker;
    ASSERT_TRUE(sy::test::waitUntil([&] {
        checker.feed(socket.readAll());
        return checker.ended || checker.corrupt;
    }, 120s)) << "received " << checker.bodyBytes << " of " << kBodyBytes;
    EXPECT_TRUE(checker.head.startsWith("HTTP/1.1 200"));
    EXPECT_FALSE(checker.corrupt) << "at body byte " << checker.bodyBytes;
    EXPECT_EQ(relay->corruptAt, 0) << "the relay got wrong bytes from the upstream";
    EXPECT_EQ(checker.bodyBytes, kBodyBytes);
    EXPECT_TRUE(relay->completed);
    EXPECT_GT(relay->pauses, 1) << "resumed and paused again while the client read";
    EXPECT_FALSE(relay->error);
}

TEST_F(CurlUpstreamPauseTest, PauseAndResumeOfUnknownOrFinishedTransfersAreIgnored)
{
    client.pause(12345);
    client.resume(12345);
    EXPECT_FALSE(client.isPaused(12345));
    server.setScript([](const ReceivedRequest &) { return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))}; });
    RecordingHandler handler;
    const TransferId id = client.send(get(server.url("/")), &handler);
    ASSERT_TRUE(waitFinished(handler));
    client.pause(id);
    client.resume(id);
    sy::test::processEventsFor(20ms);
    EXPECT_FALSE(client.isPaused(id));
    EXPECT_EQ(handler.calls, 3);
}

} // namespace
} // namespace sy::upstream::test
