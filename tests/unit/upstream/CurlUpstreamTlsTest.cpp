// Per-request TLS trust and proxies: a CA file replacing the system store, the opt-in insecure
// mode, a request's own proxy, and the environment's HTTPS_PROXY / NO_PROXY when it has none.
// The HTTPS upstream uses a certificate signed by a CA the test makes with openssl.
#include "UpstreamTestSupport.h"
#include "support/ConnectProxy.h"
#include "support/TestCertificates.h"

namespace sy::upstream::test {
namespace {

class CurlUpstreamTlsTest : public UpstreamTest {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(certificates.ok()) << certificates.error().toStdString();
        tls = certificates.serverTls();
        ASSERT_FALSE(tls.privateKey().isNull());
        https = std::make_unique<LoopbackHttpServer>(&tls);
    }
    void TearDown() override
    {
        for (const char *name : {"https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"})
            qunsetenv(name);
    }

    RecordingHandler &run(UpstreamRequest request)
    {
        handlers.push_back(std::make_unique<RecordingHandler>());
        client.send(std::move(request), handlers.back().get());
        EXPECT_TRUE(waitFinished(*handlers.back()));
        return *handlers.back();
    }

    sy::test::TestCertificates certificates;
    QSslConfiguration tls;
    std::unique_ptr<LoopbackHttpServer> https;
    std::vector<std::unique_ptr<RecordingHandler>> handlers;
};

TEST_F(CurlUpstreamTlsTest, TheRightCaFileIsTrusted)
{
    UpstreamRequest request = get(https->url("/v1/models"));
    request.caFile = certificates.caFile().toUtf8();
    const RecordingHandler &handler = run(request);
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(handler.body, "ok");
}

TEST_F(CurlUpstreamTlsTest, TheSystemStoreRefusesAnUnknownCaNamingTheProblem)
{
    const RecordingHandler &handler = run(get(https->url("/v1/models")));
    ASSERT_TRUE(handler.error);
    EXPECT_EQ(handler.error->kind, UpstreamErrorKind::Connect);
    EXPECT_TRUE(handler.error->message.contains(QLatin1String("SSL certificate problem: unable to get local issuer certificate")))
        << handler.error->message.toStdString();
    EXPECT_TRUE(https->requests().isEmpty());
}

TEST_F(CurlUpstreamTlsTest, APooledHandleForgetsTheCaFileOfItsLastRequest)
{
    UpstreamRequest trusted = get(https->url("/a"));
    trusted.caFile = certificates.caFile().toUtf8();
    ASSERT_TRUE(run(trusted).completed);
    const RecordingHandler &plain = run(get(https->url("/b")));
    ASSERT_TRUE(plain.error);
    EXPECT_TRUE(plain.error->message.contains(QLatin1String("SSL certificate problem")));
}

TEST_F(CurlUpstreamTlsTest, InsecureSkipsVerification)
{
    UpstreamRequest request = get(https->url("/v1/models"));
    request.verifyTls = false;
    const RecordingHandler &handler = run(request);
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(handler.status, 200);
}

TEST_F(CurlUpstreamTlsTest, ARequestsProxyCarriesTheTunnel)
{
    sy::test::ConnectProxy proxy;
    UpstreamRequest request = get(https->url("/v1/models"));
    request.caFile = certificates.caFile().toUtf8();
    request.proxy = proxy.url();
    const RecordingHandler &handler = run(request);
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(handler.status, 200);
    EXPECT_EQ(proxy.tunnels(), 1);
    ASSERT_EQ(proxy.targets().size(), 1);
    EXPECT_EQ(proxy.targets()[0], "127.0.0.1:" + QByteArray::number(https->port()));
}

TEST_F(CurlUpstreamTlsTest, TheEnvironmentsHttpsProxyIsUsedWhenTheRequestNamesNone)
{
    sy::test::ConnectProxy proxy;
    qputenv("HTTPS_PROXY", proxy.url());
    UpstreamRequest request = get(https->url("/v1/models"));
    request.caFile = certificates.caFile().toUtf8();
    const RecordingHandler &handler = run(request);
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(proxy.tunnels(), 1);
}

TEST_F(CurlUpstreamTlsTest, NoProxyExemptsAHostFromTheEnvironmentsProxy)
{
    sy::test::ConnectProxy proxy;
    qputenv("HTTPS_PROXY", proxy.url());
    qputenv("NO_PROXY", "127.0.0.1");
    UpstreamRequest request = get(https->url("/v1/models"));
    request.caFile = certificates.caFile().toUtf8();
    const RecordingHandler &handler = run(request);
    EXPECT_TRUE(handler.completed) << (handler.error ? handler.error->message.toStdString() : "");
    EXPECT_EQ(proxy.tunnels(), 0);
}

} // namespace
} // namespace sy::upstream::test
