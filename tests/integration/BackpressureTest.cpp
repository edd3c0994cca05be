// Backpressure through the gateway (issue 12, SPEC §5): a client that stops reading a large
// stream makes the gateway pause the upstream transfer, so what it pulls from the upstream stays
// bounded; once the client reads again, the whole answer arrives, ending with [DONE].
//
// The upstream here writes only as fast as its socket drains (it measures what the gateway
// actually pulled), and the client is a plain POSIX socket with a small receive buffer that the
// test reads only when it chooses, so no Qt buffer reads on its behalf.
#include "GatewayFixture.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

constexpr int kEvents = 320;                 // each about 64 KiB: a 20 MiB answer
constexpr qint64 kSocketBacklog = 128 * 1024;

QByteArray contentEvent(int index)
{
    const QByteArray content = QByteArray::number(index).rightJustified(6, '0') + QByteArray(64 * 1024, 'w');
    return R"(data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"chat-a-up",)"
           R"("choices":[{"index":0,"delta":{"content":")" + content + R"("},"finish_reason":null}]})" "\n\n";
}

// Answers every request with a chunked stream of kEvents events, writing the next one only
// while its socket holds less than kSocketBacklog unsent bytes.
class PacedStreamUpstream {
public:
    PacedStreamUpstream()
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, [this] {
            QTcpSocket *socket = m_server.nextPendingConnection();
            socket->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, 64 * 1024);
            m_socket = socket;
            QObject::connect(socket, &QTcpSocket::readyRead, [this] {
                m_request += m_socket->readAll();
                if (!m_started && m_request.contains("\r\n\r\n")) {
                    m_started = true;
                    write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
                    pump();
                }
            });
            QObject::connect(socket, &QTcpSocket::bytesWritten, [this] { pump(); });
        });
    }

    quint16 port() const { return m_server.serverPort(); }
    // Bytes the gateway took from this upstream's socket (handed to the kernel, not queued here).
    qint64 pulled() const { return m_socket ? m_written - m_socket->bytesToWrite() : 0; }
    qint64 total() const { return m_total; }
    bool finished() const { return m_next > kEvents; }

private:
    void write(const QByteArray &bytes)
    {
        m_socket->write(bytes);
        m_written += bytes.size();
    }
    void pump()
    {
        while (m_socket && m_next <= kEvents && m_socket->bytesToWrite() < kSocketBacklog) {
            const QByteArray event = m_next < kEvents ? contentEvent(m_next) : QByteArray("data: [DONE]\n\n");
            m_total += event.size();
            write(QByteArray::number(event.size(), 16) + "\r\n" + event + "\r\n");
            if (++m_next > kEvents)
                write("0\r\n\r\n");
        }
    }

    QTcpServer m_server;
    QPointer<QTcpSocket> m_socket;
    QByteArray m_request;
    bool m_started = false;
    int m_next = 0;
    qint64 m_written = 0;
    qint64 m_total = 0;
};

// A client socket that reads only when told to.
class IdleReader {
public:
    explicit IdleReader(quint16 port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        const int small = 32 * 1024;
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
        ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    }
    ~IdleReader() { ::close(m_fd); }

    bool connected() const { return m_connected; }
    void send(const QByteArray &bytes) { EXPECT_EQ(::send(m_fd, bytes.constData(), size_t(bytes.size()), 0), bytes.size()); }
    // Reads what is there now; returns false once the server closed the connection.
    bool readAvailable()
    {
        char buffer[64 * 1024];
        for (;;) {
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
            if (n > 0) {
                m_received.append(buffer, qsizetype(n));
                continue;
            }
            return n != 0;
        }
    }
    const QByteArray &received() const { return m_received; }

private:
    int m_fd = -1;
    bool m_connected = false;
    QByteArray m_received;
};

using BackpressureTest = GatewayFixture;

TEST_F(BackpressureTest, ClientThatStopsReadingPausesTheUpstreamUntilItReads)
{
    PacedStreamUpstream upstream;
    config::Config config = baseConfig();
    channel(config, "alpha").baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.port());
    // The stall below must not count as an idle upstream.
    channel(config, "alpha").timeouts.idle = 30s;
    startGateway(std::move(config));

    IdleReader client(gatewayPort);
    ASSERT_TRUE(client.connected());
    const QByteArray body = streamBody(kModelA);
    client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(gatewayPort)
                + "\r\nAuthorization: Bearer " + kSecret + "\r\nContent-Type: application/json\r\nContent-Length: "
                + QByteArray::number(body.size()) + "\r\n\r\n" + body);

    // The client reads nothing: the gateway pulls until it pauses, then the figure stands still.
    ASSERT_TRUE(test::waitUntil([&] { return upstream.pulled() > 0; }, 5s));
    qint64 previous = -1;
    ASSERT_TRUE(test::waitUntil([&] {
        test::processEventsFor(300ms);
        const bool still = upstream.pulled() == previous;
        previous = upstream.pulled();
        return still;
    }, 20s)) << "the gateway kept pulling: " << upstream.pulled();
    EXPECT_FALSE(upstream.finished());
    // What a paused stream holds: the sink's high-water mark plus the kernel's socket buffers on
    // both sides; far below the answer.
    EXPECT_LT(upstream.pulled(), 12 * 1024 * 1024) << "pulled " << upstream.pulled() << " bytes";

    // The client reads again: everything arrives, in order, with the clean end.
    bool open = true;
    EXPECT_TRUE(test::waitUntil([&] {
        open = client.readAvailable();
        return !open || client.received().contains("data: [DONE]");
    }, 60s)) << "received " << client.received().size() << " bytes";
    EXPECT_TRUE(upstream.finished());
    EXPECT_TRUE(client.received().startsWith("HTTP/1.1 200")) << client.received().left(200).constData();
    EXPECT_TRUE(client.received().contains(QByteArray::number(kEvents - 1).rightJustified(6, '0') + "www"));
    EXPECT_TRUE(client.received().contains("data: [DONE]"));
    EXPECT_GT(client.received().size(), 20 * 1024 * 1024);
}

} // namespace
} // namespace sy::integration
