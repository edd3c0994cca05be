// ResponseSink backpressure: a client that does not read makes the sink congested (the producer
// stops), reading drains it (the producer resumes) and every byte arrives intact; a client that
// stops reading entirely is disconnected after the stall limit.
#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QTcpSocket>

namespace sy::http::test {
namespace {

// A client whose socket takes almost nothing off the kernel until told to read.
class NonReadingClient {
public:
    explicit NonReadingClient(quint16 port)
    {
        socket.setReadBufferSize(4096);
        socket.connectToHost(QHostAddress::LocalHost, port);
        socket.waitForConnected(5000);
        socket.setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 64 * 1024);
    }
    void send(const QByteArray &bytes) { socket.write(bytes); socket.flush(); }
    // Reads whatever arrived (processing events until `limit` passes or `until` is true).
    bool readUntil(const std::function<bool(const QByteArray &)> &until, std::chrono::milliseconds limit = 30s)
    {
        return sy::test::waitUntil([&] {
            received += socket.readAll();
            return until(received);
        }, limit);
    }

    QTcpSocket socket;
    QByteArray received;
};

// Pattern byte at `offset` of the body: corruption or loss shows in the comparison.
char patternAt(qint64 offset)
{
    return char('a' + offset % 23);
}

QByteArray pattern(qint64 offset, qint64 size)
{
    QByteArray out(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        out[i] = patternAt(offset + i);
    return out;
}

class ResponseSinkBackpressureTest : public FrontTest {
protected:
    // Route "/big": a producer that writes 16 KiB pieces while the sink is not congested and
    // resumes on onDrained, until `total` bytes are out.
    void startProducer(FrontOptions options, qint64 total)
    {
        startFront(std::move(options));
        front->route("GET", "/big", [this, total](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            kept = sink;
            sink->onClientGone([this] { ++goneCalls; });
            sink->begin(200, {{"Content-Type", "application/octet-stream"}});
            auto produce = [this, total] {
                while (produced < total && !kept->isCongested() && kept->isOpen()) {
                    const qint64 size = std::min<qint64>(16 * 1024, total - produced);
                    kept->write(pattern(produced, size));
                    produced += size;
                    peakQueued = std::max(peakQueued, kept->bytesQueued());
                }
                if (kept->isCongested())
                    ++pauses;
                if (produced == total)
                    kept->finish();
            };
            sink->onDrained([this, produce] {
                ++drains;
                produce();
            });
            produce();
        });
    }

    void TearDown() override
    {
        kept.reset();
        FrontTest::TearDown();
    }

    std::shared_ptr<ResponseSink> kept;
    qint64 produced = 0;
    qint64 peakQueued = 0;
    int pauses = 0;
    int drains = 0;
    int goneCalls = 0;
};

TEST_F(ResponseSinkBackpressureTest, NonReadingClientCongestsTheSinkAndReadingResumesIt)
{
    constexpr qint64 kTotal = 32 * 1024 * 1024;
    FrontOptions options;
    options.connection.highWaterBytes = 256 * 1024;
    options.connection.lowWaterBytes = 64 * 1024;
    startProducer(options, kTotal);

    NonReadingClient client(port);
    ASSERT_EQ(client.socket.state(), QAbstractSocket::ConnectedState);
    client.send(buildRequest("GET", "/big", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return pauses > 0; })) << "the sink never reported congestion";
    // Nothing is read: the producer stays stopped, with at most the high-water mark queued
    // (plus one piece) and the kernel's buffers in flight.
    sy::test::processEventsFor(300ms);
    EXPECT_LT(produced, 12 * 1024 * 1024) << "the producer did not stop for a client that reads nothing";
    EXPECT_LE(peakQueued, 256 * 1024 + 16 * 1024);
    EXPECT_EQ(goneCalls, 0);

    const qsizetype headEnd = [&] {
        client.readUntil([](const QByteArray &r) { return r.contains("\r\n\r\n"); });
        return client.received.indexOf("\r\n\r\n") + 4;
    }();
    ASSERT_GT(headEnd, 4);
    ASSERT_TRUE(client.readUntil([](const QByteArray &r) { return r.endsWith("\r\n0\r\n\r\n"); }, 60s))
        << "received " << client.received.size();
    EXPECT_EQ(produced, kTotal);
    EXPECT_GT(drains, 0);

    // Decode the chunked body and compare it byte for byte.
    QByteArray body;
    qsizetype at = headEnd;
    while (true) {
        const qsizetype lineEnd = client.received.indexOf("\r\n", at);
        ASSERT_GT(lineEnd, at);
        bool ok = false;
        const qint64 size = client.received.mid(at, lineEnd - at).toLongLong(&ok, 16);
        ASSERT_TRUE(ok);
        if (size == 0)
            break;
        body += client.received.mid(lineEnd + 2, size);
        at = lineEnd + 2 + size + 2;
    }
    ASSERT_EQ(body.size(), kTotal);
    EXPECT_TRUE(body == pattern(0, kTotal));
}

TEST_F(ResponseSinkBackpressureTest, ClientThatStopsReadingIsDisconnectedAfterTheStallLimit)
{
    FrontOptions options;
    options.connection.highWaterBytes = 256 * 1024;
    options.connection.lowWaterBytes = 64 * 1024;
    options.connection.stalledClientTimeout = 300ms;
    startProducer(options, 64 * 1024 * 1024);

    NonReadingClient client(port);
    client.send(buildRequest("GET", "/big", port));
    ASSERT_TRUE(sy::test::waitUntil([&] { return goneCalls > 0; }, 10s)) << "a stalled client was never let go";
    EXPECT_EQ(goneCalls, 1);
    EXPECT_FALSE(kept->isOpen());
    EXPECT_EQ(kept->bytesQueued(), 0);
    EXPECT_TRUE(sy::test::waitUntil([&] {
        client.socket.readAll();
        return client.socket.state() == QAbstractSocket::UnconnectedState;
    }, 10s));
}

TEST_F(ResponseSinkBackpressureTest, SlowButSteadyReaderIsNotDisconnected)
{
    constexpr qint64 kTotal = 4 * 1024 * 1024;
    FrontOptions options;
    options.connection.highWaterBytes = 128 * 1024;
    options.connection.lowWaterBytes = 32 * 1024;
    options.connection.stalledClientTimeout = 2s;
    startProducer(options, kTotal);

    NonReadingClient client(port);
    client.send(buildRequest("GET", "/big", port));
    ASSERT_TRUE(client.readUntil([](const QByteArray &r) { return r.endsWith("\r\n0\r\n\r\n"); }, 60s));
    EXPECT_EQ(produced, kTotal);
    EXPECT_EQ(goneCalls, 0);
}

} // namespace
} // namespace sy::http::test
