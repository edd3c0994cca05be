// TLS and proxies of real providers through the gateway (docs/configuration.md, `tls`, `proxy`):
// an HTTPS upstream whose certificate a test CA (made with openssl) signed. The right CA file
// → 200; the system store → a clear certificate error in the attempt trace and in the channel
// test; `insecure: true` → 200; a channel proxy carries the connection.
#include "GatewayFixture.h"
#include "service/AdminApi.h"
#include "support/ConnectProxy.h"
#include "support/TestCertificates.h"
#include "unit/upstream/LoopbackHttpServer.h"

#include <QJsonDocument>

namespace sy::integration {
namespace {

using upstream::test::LoopbackHttpServer;
using upstream::test::ReceivedRequest;
using upstream::test::Step;

constexpr char kCertificateProblem[] = "SSL certificate problem: unable to get local issuer certificate";

class ChannelTlsTest : public GatewayFixture {
protected:
    void SetUp() override
    {
        GatewayFixture::SetUp();
        ASSERT_TRUE(certificates.ok()) << certificates.error().toStdString();
        tls = certificates.serverTls();
        https = std::make_unique<LoopbackHttpServer>(&tls);
        https->setScript([](const ReceivedRequest &) {
            const QByteArray body = R"({"id":"x","object":"chat.completion","created":1,"model":"chat-b-up",)"
                                    R"("choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],)"
                                    R"("usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})";
            return QList<Step>{Step::write(LoopbackHttpServer::response(200, body, {{"content-type", "application/json"}}))};
        });
    }

    // gamma (the only channel of acme/chat-b) on the HTTPS upstream, set up by `edit`.
    void startWith(const std::function<void(config::Channel &)> &edit)
    {
        config::Config config = baseConfig();
        config::Channel &gamma = channel(config, "gamma");
        gamma.baseUrl = QString::fromLatin1(https->url("/v1"));
        edit(gamma);
        startGateway(config);
    }

    QJsonObject channelTest()
    {
        std::optional<QByteArray> body;
        gateway->admin()->invoke("POST", "/admin/channels/gamma/test", {}, [&](int, const QByteArray &b) { body = b; });
        EXPECT_TRUE(sy::test::waitUntil([&] { return body.has_value(); }));
        return QJsonDocument::fromJson(body.value_or(QByteArray())).object().value("results").toArray().first().toObject();
    }

    sy::test::TestCertificates certificates;
    QSslConfiguration tls;
    std::unique_ptr<LoopbackHttpServer> https;
};

TEST_F(ChannelTlsTest, TheChannelsCaFileIsTrusted)
{
    startWith([&](config::Channel &c) { c.tls.caFile = certificates.caFile(); });
    const auto client = chat(chatBody(kModelB));
    EXPECT_EQ(client->status(), 200) << client->body().constData();
    EXPECT_EQ(https->requests().size(), 1);
    EXPECT_TRUE(channelTest().value("ok").toBool());
}

TEST_F(ChannelTlsTest, TheSystemStoreRefusesTheTestCaWithACleanMessage)
{
    startWith([](config::Channel &) {});
    const auto client = chat(chatBody(kModelB));
    EXPECT_EQ(client->status(), 502);
    EXPECT_TRUE(client->body().contains(kCertificateProblem)) << client->body().constData();
    EXPECT_TRUE(https->requests().isEmpty());
    const QJsonObject result = channelTest();
    EXPECT_FALSE(result.value("ok").toBool(true));
    EXPECT_EQ(result.value("status").toInt(-1), 0);
    EXPECT_TRUE(result.value("error").toString().contains(QLatin1String(kCertificateProblem)))
        << result.value("error").toString().toStdString();
}

TEST_F(ChannelTlsTest, InsecureChannelsSkipVerificationAndSaySo)
{
    startWith([](config::Channel &c) { c.tls.insecure = true; });
    EXPECT_EQ(chat(chatBody(kModelB))->status(), 200);
    std::optional<QByteArray> body;
    gateway->admin()->invoke("GET", "/admin/channels/gamma", {}, [&](int, const QByteArray &b) { body = b; });
    ASSERT_TRUE(body);
    EXPECT_TRUE(QJsonDocument::fromJson(*body).object().value("tls_insecure").toBool()) << body->constData();
}

TEST_F(ChannelTlsTest, TheChannelsProxyCarriesTheConnection)
{
    sy::test::ConnectProxy proxy;
    startWith([&](config::Channel &c) {
        c.tls.caFile = certificates.caFile();
        c.proxy = QString::fromLatin1(proxy.url());
    });
    EXPECT_EQ(chat(chatBody(kModelB))->status(), 200);
    EXPECT_EQ(proxy.tunnels(), 1);
    EXPECT_EQ(https->requests().size(), 1);
}

// HTTPS requests wait for a connection's handshake in case it multiplexes (ChannelHttp2Test); an
// HTTP/1.1-only server must not make them wait for the first answer too.
TEST_F(ChannelTlsTest, ConcurrentRequestsToAnHttp1UpstreamAreAllSentBeforeTheFirstAnswer)
{
    https->setScript([](const ReceivedRequest &) {
        const QByteArray body = R"({"id":"x","object":"chat.completion","created":1,"model":"chat-b-up",)"
                                R"("choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}]})";
        return QList<Step>{Step::write(LoopbackHttpServer::response(200, body, {{"content-type", "application/json"}}),
                                       std::chrono::milliseconds(2500))};
    });
    startWith([&](config::Channel &c) { c.tls.caFile = certificates.caFile(); });
    std::vector<std::unique_ptr<GatewayClient>> clients;
    for (int i = 0; i < 3; ++i)
        clients.push_back(send("POST", "/v1/chat/completions", chatBody(kModelB)));
    EXPECT_TRUE(sy::test::waitUntil([&] { return https->requests().size() == 3; }, std::chrono::milliseconds(2400)))
        << https->requests().size() << " of 3 requests reached the upstream before the first answer";
    EXPECT_TRUE(std::none_of(clients.begin(), clients.end(), [](const auto &c) { return c->isComplete(); }));
    for (const auto &client : clients) {
        EXPECT_TRUE(client->waitForEnd(std::chrono::seconds(10)));
        EXPECT_EQ(client->status(), 200) << client->body().constData();
    }
}

} // namespace
} // namespace sy::integration
