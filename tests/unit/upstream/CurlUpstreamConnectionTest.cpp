// Connection handling: reuse of kept-alive connections, concurrency to one host, TLS checks.
#include "UpstreamTestSupport.h"

#include <QSslCertificate>
#include <QSslKey>

namespace sy::upstream::test {
namespace {

class CurlUpstreamConnectionTest : public UpstreamTest {};

TEST_F(CurlUpstreamConnectionTest, SequentialRequestsReuseOneConnection)
{
    ASSERT_TRUE(sendOneAfterAnother(client, server, 3));
    EXPECT_EQ(server.requests().size(), 3);
    EXPECT_EQ(server.acceptedConnections(), 1);
}

TEST_F(CurlUpstreamConnectionTest, HeldStreamsBeyondTheIdleLimitDoNotCostOtherRequestsTheirConnection)
{
    // curl's cache limit counts the connections in use: with more streams held than idle
    // connections allowed, a fixed limit closed every other connection as its transfer ended.
    CurlUpstreamClient limited(CurlClientOptions{.maxIdleConnections = 2});
    LoopbackHttpServer slow;
    slow.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200))};  // and then silence
    });
    constexpr int kHeld = 5;
    std::vector<RecordingHandler> held(kHeld);
    std::vector<TransferId> heldIds;
    for (RecordingHandler &handler : held) {
        UpstreamRequest request = get(slow.url("/held"));
        request.idleTimeout = 60s;
        heldIds.push_back(limited.send(request, &handler));
    }
    ASSERT_TRUE(sy::test::waitUntil([&] {
        return std::all_of(held.begin(), held.end(), [](const RecordingHandler &h) { return h.status == 200; });
    }, 10s));
    ASSERT_EQ(slow.openConnections(), kHeld);

    ASSERT_TRUE(sendOneAfterAnother(limited, server, 4));
    EXPECT_EQ(server.requests().size(), 4);
    EXPECT_EQ(server.acceptedConnections(), 1);
    EXPECT_EQ(server.openConnections(), 1);

    for (const TransferId id : heldIds)
        limited.cancel(id);
}

TEST_F(CurlUpstreamConnectionTest, IdleConnectionsOverTheLimitCloseAsLaterTransfersFinish)
{
    CurlUpstreamClient limited(CurlClientOptions{.maxIdleConnections = 2});
    constexpr int kConcurrent = 5;
    std::vector<RecordingHandler> handlers(kConcurrent);
    ASSERT_TRUE(sendSideBySide(limited, server, "/side-by-side", 200ms, handlers));
    ASSERT_EQ(server.acceptedConnections(), kConcurrent);

    server.setScript([](const ReceivedRequest &) {
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"))};
    });
    ASSERT_TRUE(sendOneAfterAnother(limited, server, kConcurrent));
    EXPECT_EQ(server.acceptedConnections(), kConcurrent);  // each of them reused one
    EXPECT_TRUE(sy::test::waitUntil([&] { return server.openConnections() == 2; }, 5s))
        << server.openConnections() << " connections still open";
}

TEST_F(CurlUpstreamConnectionTest, ManyConcurrentTransfersAllCompleteInParallel)
{
    // Each answer takes 300 ms, so 50 transfers finishing together means they ran side by side
    // rather than queued behind a per-host connection limit.
    server.setScript([](const ReceivedRequest &request) {
        return QList<Step>{Step::write(LoopbackHttpServer::chunkedHead(200)),
                           Step::write(LoopbackHttpServer::chunk(request.target), 300ms),
                           Step::write(LoopbackHttpServer::lastChunk())};
    });
    constexpr int kTransfers = 50;
    std::vector<RecordingHandler> handlers(kTransfers);
    for (int i = 0; i < kTransfers; ++i)
        client.send(get(server.url("/t" + QByteArray::number(i))), &handlers[size_t(i)]);
    EXPECT_EQ(client.activeTransfers(), kTransfers);

    ASSERT_TRUE(sy::test::waitUntil([&] {
        return std::all_of(handlers.begin(), handlers.end(),
                           [](const RecordingHandler &h) { return h.finished(); });
    }, 30s));
    for (int i = 0; i < kTransfers; ++i) {
        const RecordingHandler &handler = handlers[size_t(i)];
        EXPECT_TRUE(handler.completed) << i;
        EXPECT_EQ(handler.body, "/t" + QByteArray::number(i));
    }
    EXPECT_EQ(client.activeTransfers(), 0);
    EXPECT_EQ(server.peakOpenConnections(), kTransfers);
}

TEST_F(CurlUpstreamConnectionTest, TlsHandshakeWithPlainServerFailsAsConnect)
{
    // The plain server waits for an HTTP head that never comes; the handshake is part of
    // connecting, so the connect timeout ends it.
    RecordingHandler handler;
    QByteArray url = server.url();
    url.replace("http://", "https://");
    UpstreamRequest request = get(url);
    request.connectTimeout = 300ms;
    request.firstByteTimeout = 10s;
    client.send(request, &handler);

    ASSERT_TRUE(waitFinished(handler));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Connect) << handler.error->message.toStdString();
}

// A self-signed certificate for 127.0.0.1, valid until 2126. Test-only: the key protects nothing.
constexpr char kTestCertificate[] = R"(-----BEGIN CERTIFICATE-----
MIIBmzCCAUKgAwIBAgIUev3LM7LoFo808PqbbSfbxHJnlXwwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPc3dpdGNoeWFyZC10ZXN0MCAXDTI2MTEyOTE4NTIxMFoYDzIx
MjYxMTA1MTg1MjEwWjAaMRgwFgYDVQQDDA9zd2l0Y2h5YXJkLXRlc3QwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAQfQkI0A4Cn+tCEuiAsaroY+TsNnFVrlH4yM6mN
O0u+mLpTzY4nm8prZX2NTjR+K/vlIPQ5R8TTwGSbXjKfkOyFo2QwYjAdBgNVHQ4E
FgQU26msl017Grx+cv9d+i6K3u7ruVwwHwYDVR0jBBgwFoAU26msl017Grx+cv9d
+i6K3u7ruVwwDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqG
SM49BAMCA0cAMEQCIBUMQ79gbzAe3P95cMZ/AoSOP9z7uF/2AmrkuTHtrjU0AiAb
/F0XpsiwDGqP4WaeS3VkBNLoM/3ZN1KOfO/J29uEwA==
-----END CERTIFICATE-----
)";
constexpr char kTestKey[] = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg8d5oiAleJGgUTPky
fvWXgyNeKM2hfQjDpUETwuySFtKhRANCAAQfQkI0A4Cn+tCEuiAsaroY+TsNnFVr
lH4yM6mNO0u+mLpTzY4nm8prZX2NTjR+K/vlIPQ5R8TTwGSbXjKfkOyF
-----END PRIVATE KEY-----
)";

QSslConfiguration selfSignedServerTls()
{
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificate(QSslCertificate(QByteArray(kTestCertificate), QSsl::Pem));
    tls.setPrivateKey(QSslKey(QByteArray(kTestKey), QSsl::Ec, QSsl::Pem));
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    return tls;
}

TEST_F(CurlUpstreamConnectionTest, TlsVerificationIsOnByDefault)
{
    const QSslConfiguration tls = selfSignedServerTls();
    ASSERT_FALSE(tls.privateKey().isNull());
    LoopbackHttpServer tlsServer(&tls);
    ASSERT_TRUE(tlsServer.url().startsWith("https://127.0.0.1:"));

    RecordingHandler verified;
    client.send(get(tlsServer.url("/checked")), &verified);
    ASSERT_TRUE(waitFinished(verified));
    ASSERT_TRUE(verified.error);
    EXPECT_EQ(verified.error->kind, UpstreamErrorKind::Connect) << verified.error->message.toStdString();
    EXPECT_TRUE(tlsServer.requests().isEmpty());

    // The same server is reachable once verification is switched off, so the failure above was
    // the certificate check and not the TLS plumbing.
    UpstreamRequest unchecked = get(tlsServer.url("/unchecked"));
    unchecked.verifyTls = false;
    RecordingHandler unverified;
    client.send(unchecked, &unverified);
    ASSERT_TRUE(waitFinished(unverified));
    EXPECT_TRUE(unverified.completed)
        << (unverified.error ? unverified.error->message.toStdString() : "");
    EXPECT_EQ(unverified.body, "ok");
    ASSERT_EQ(tlsServer.requests().size(), 1);
    EXPECT_EQ(tlsServer.requests()[0].target, "/unchecked");
}

} // namespace
} // namespace sy::upstream::test
