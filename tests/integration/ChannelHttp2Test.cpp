// HTTP/2 to a real provider's kind of front (docs/gateway.md, "Upstream connections"): a real
// nginx with TLS and HTTP/2 (a test CA made with openssl) in front of a loopback upstream that
// answers after a delay. Concurrent requests to the channel share one multiplexed connection
// instead of each opening its own TLS connection, and the next batch reuses it.
#include "GatewayFixture.h"
#include "support/NginxServer.h"
#include "support/TestCertificates.h"
#include "unit/upstream/LoopbackHttpServer.h"
#include "upstream/CurlUpstreamClient.h"

#include <QHash>

namespace sy::integration {
namespace {

using upstream::test::LoopbackHttpServer;
using upstream::test::ReceivedRequest;
using upstream::test::Step;

class ChannelHttp2Test : public GatewayFixture {
protected:
    void SetUp() override
    {
        GatewayFixture::SetUp();
        if (!test::NginxServer::available())
            GTEST_SKIP() << test::NginxServer::missingMessage().toStdString();
        ASSERT_TRUE(certificates.ok()) << certificates.error().toStdString();
        // Slow enough that a batch's requests are all in flight together.
        upstream.setScript([](const ReceivedRequest &) {
            const QByteArray body = R"({"id":"x","object":"chat.completion","created":1,"model":"chat-b-up",)"
                                    R"("choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],)"
                                    R"("usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})";
            return QList<Step>{Step::write(LoopbackHttpServer::response(200, body, {{"content-type", "application/json"}}),
                                           std::chrono::milliseconds(300))};
        });
    }

    // nginx in front of the upstream, allowing `maxStreams` concurrent streams per connection;
    // gamma, acme/chat-b's only channel, on it.
    void startBehindNginx(int maxStreams)
    {
        // One line per request: nginx's connection serial number and the protocol it came in.
        const QByteArray http = "log_format requests '$connection $server_protocol $status';\n"
                                "server {\n"
                                "  listen 127.0.0.1:@PORT@ ssl http2;\n"
                                "  http2_max_concurrent_streams " + QByteArray::number(maxStreams) + ";\n"
                                "  ssl_certificate " + certificates.serverCertFile().toUtf8() + ";\n"
                                "  ssl_certificate_key " + certificates.serverKeyFile().toUtf8() + ";\n"
                                "  access_log @DIR@/access.log requests;\n"
                                "  location / {\n"
                                "    proxy_pass " + upstream.url("") + ";\n"
                                "    proxy_http_version 1.1;\n"
                                "    proxy_buffering off;\n"
                                "  }\n"
                                "}\n";
        ASSERT_TRUE(nginx.start(http)) << nginx.output().constData();

        config::Config config = baseConfig();
        config::Channel &gamma = channel(config, "gamma");
        gamma.baseUrl = QStringLiteral("https://127.0.0.1:%1/v1").arg(nginx.port());
        gamma.tls.caFile = certificates.caFile();
        startGateway(config);
    }

    // The access log's lines so far, each "connection protocol status".
    QList<QByteArray> logLines() const
    {
        QList<QByteArray> lines = nginx.readFile(QStringLiteral("access.log")).split('\n');
        lines.removeAll(QByteArray());
        return lines;
    }
    // Requests per nginx connection serial: its size is the number of connections used.
    static QHash<QByteArray, int> requestsPerConnection(const QList<QByteArray> &lines)
    {
        QHash<QByteArray, int> counts;
        for (const QByteArray &line : lines)
            ++counts[line.split(' ').value(0)];
        return counts;
    }

    test::TestCertificates certificates;
    LoopbackHttpServer upstream;
    test::NginxServer nginx;
};

TEST_F(ChannelHttp2Test, ConcurrentRequestsShareOneMultiplexedConnection)
{
    ASSERT_NO_FATAL_FAILURE(startBehindNginx(128));
    constexpr int kBatch = 12;
    for (const auto &client : chatConcurrently(kBatch, chatBody(kModelB)))
        ASSERT_EQ(client->status(), 200) << client->body().constData();
    // nginx writes a request's line when it ends, after the client has its answer.
    ASSERT_TRUE(test::waitUntil([&] { return logLines().size() == kBatch; })) << logLines().join('\n').constData();
    const QList<QByteArray> lines = logLines();
    for (const QByteArray &line : lines)
        EXPECT_TRUE(line.endsWith(" HTTP/2.0 200")) << line.constData();
    EXPECT_EQ(requestsPerConnection(lines).size(), 1) << lines.join('\n').constData();
    EXPECT_EQ(upstream.requests().size(), kBatch);

    // The next batch finds the connection open and multiplexes on it again.
    for (const auto &client : chatConcurrently(kBatch, chatBody(kModelB)))
        ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_TRUE(test::waitUntil([&] { return logLines().size() == 2 * kBatch; })) << logLines().join('\n').constData();
    EXPECT_EQ(requestsPerConnection(logLines()).size(), 1) << logLines().join('\n').constData();
}

// A connection at the server's stream limit does not make the others queue behind it: more
// requests than it allows open further connections.
TEST_F(ChannelHttp2Test, RequestsBeyondTheServersStreamLimitOpenAnotherConnection)
{
    ASSERT_NO_FATAL_FAILURE(startBehindNginx(4));
    constexpr int kBatch = 12;
    for (const auto &client : chatConcurrently(kBatch, chatBody(kModelB)))
        ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_TRUE(test::waitUntil([&] { return logLines().size() == kBatch; })) << logLines().join('\n').constData();
    EXPECT_GE(requestsPerConnection(logLines()).size(), 3) << logLines().join('\n').constData();
}

// The gateway's own limit: a server that allows more streams per connection than the gateway puts
// on one still gets further connections, none carrying more than the gateway's limit at once
// (libcurl runs every transfer of a connection on each of its events: CurlClientOptions).
TEST_F(ChannelHttp2Test, NoConnectionCarriesMoreStreamsThanTheGatewaysOwnLimit)
{
    ASSERT_NO_FATAL_FAILURE(startBehindNginx(1000));
    const int limit = int(upstream::CurlClientOptions{}.maxStreamsPerConnection);
    const int batch = limit + 8;
    for (const auto &client : chatConcurrently(batch, chatBody(kModelB)))
        ASSERT_EQ(client->status(), 200) << client->body().constData();
    ASSERT_TRUE(test::waitUntil([&] { return logLines().size() == batch; })) << logLines().join('\n').constData();
    const QHash<QByteArray, int> counts = requestsPerConnection(logLines());
    EXPECT_GE(counts.size(), 2) << logLines().join('\n').constData();
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        EXPECT_LE(it.value(), limit) << "connection " << it.key().constData();
    EXPECT_EQ(upstream.requests().size(), batch);
}

// A burst beyond the room on the open connections waits for the connections being opened instead
// of each request opening its own: libcurl 7.88 passes over a connection still in its TLS
// handshake (upstream/ConnectionGate.h). Without the gate the first burst here opened 20
// connections (and the second reused them).
TEST_F(ChannelHttp2Test, ABurstOpensTheConnectionsItNeedsNotOneEach)
{
    ASSERT_NO_FATAL_FAILURE(startBehindNginx(1000));
    const int limit = int(upstream::CurlClientOptions{}.maxStreamsPerConnection);
    const int batch = 3 * limit + 8;
    const int needed = (batch + limit - 1) / limit;
    // The first burst, before the gateway has any connection to the host; then one that finds
    // them open (and idle).
    for (int round = 1; round <= 2; ++round) {
        for (const auto &client : chatConcurrently(batch, chatBody(kModelB)))
            ASSERT_EQ(client->status(), 200) << client->body().constData();
        ASSERT_TRUE(test::waitUntil([&] { return logLines().size() == round * batch; }))
            << logLines().join('\n').constData();
        EXPECT_LE(requestsPerConnection(logLines()).size(), needed + 1) << "round " << round << "\n"
                                                                        << logLines().join('\n').constData();
    }
    EXPECT_EQ(upstream.requests().size(), 2 * batch);
}

} // namespace
} // namespace sy::integration
