// HttpFront's DNS-rebinding guard (Host must name a loopback host) and browser Origin checks.
#include "RawHttpClient.h"

namespace sy::http::test {
namespace {

class HttpFrontHostOriginTest : public FrontTest {
protected:
    void startWithRoute(FrontOptions options = {})
    {
        startFront(std::move(options));
        front->routePrefix("GET", "/v1/", [this](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            ++calls;
            sink->respond(200, {}, "ok");
        });
        front->routePrefix("POST", "/v1/", [this](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            ++calls;
            sink->respond(200, {}, "posted");
        });
    }

    std::optional<RawResponse> send(QByteArrayView method, const HeaderList &headers)
    {
        RawHttpClient client(port);
        EXPECT_TRUE(client.connected());
        client.send(buildRequest(method, "/v1/models", port, headers));
        return client.readResponse();
    }

    int calls = 0;
};

TEST_F(HttpFrontHostOriginTest, LoopbackHostNamesAreAllowed)
{
    startWithRoute();
    const QByteArray p = QByteArray::number(port);
    const QList<QByteArray> hosts = {"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p, "foo.localhost",
                                     "LOCALHOST:" + p, "127.0.0.1", "[::1]"};
    for (const QByteArray &host : hosts) {
        SCOPED_TRACE(host.toStdString());
        const auto response = send("GET", {{"Host", host}});
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
    }
    EXPECT_EQ(calls, hosts.size());
    EXPECT_EQ(front->refusals("bad_host"), 0u);
}

// Names that begin like a loopback host but are not one.
TEST_F(HttpFrontHostOriginTest, HostsThatOnlyStartLikeLoopbackAreRefused)
{
    startWithRoute();
    const QList<QByteArray> hosts = {"127.0.0.1.example.com", "localhost.example.com:80",
                                     "localhostx", "127.0.0.1:80:81"};
    for (const QByteArray &host : hosts) {
        SCOPED_TRACE(host.toStdString());
        const auto response = send("GET", {{"Host", host}});
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 403);
    }
    EXPECT_EQ(calls, 0);
}

TEST_F(HttpFrontHostOriginTest, NonLoopbackHostsAreRefusedWith403)
{
    startWithRoute();
    const QList<QByteArray> hosts = {"evil.example.com", "192.168.1.10:8080", "localhost.evil.com",
                                     "127.0.0.1.evil.com:80", "[2001:db8::1]:8080"};
    for (const QByteArray &host : hosts) {
        SCOPED_TRACE(host.toStdString());
        const auto response = send("GET", {{"Host", host}});
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 403);
        EXPECT_TRUE(response->body.contains("Host not allowed")) << response->body.toStdString();
    }
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("bad_host"), quint64(hosts.size()));
}

TEST_F(HttpFrontHostOriginTest, AnyHostIsAllowedWhenRemoteHostsAreAllowed)
{
    FrontOptions options;
    options.allowRemoteHosts = true;
    startWithRoute(options);
    for (const QByteArray host : {"evil.example.com", "192.168.1.10:8080", "localhost.evil.com"}) {
        SCOPED_TRACE(host.toStdString());
        const auto response = send("GET", {{"Host", host}});
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
    }
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(front->refusals("bad_host"), 0u);
}

TEST_F(HttpFrontHostOriginTest, RequestWithoutOriginGetsNoCorsGrant)
{
    startWithRoute();
    const auto response = send("GET", {});
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_FALSE(response->hasHeader("access-control-allow-origin"));
}

TEST_F(HttpFrontHostOriginTest, UnknownOriginIsRefusedWithoutCorsGrant)
{
    FrontOptions options;
    options.allowedOrigins = {"http://localhost:5173"};
    startWithRoute(options);
    for (const QByteArray origin : {"http://evil.example.com", "http://localhost:5174", "null"}) {
        SCOPED_TRACE(origin.toStdString());
        const auto response = send("POST", {{"Origin", origin}});
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 403);
        EXPECT_FALSE(response->hasHeader("access-control-allow-origin"));
    }
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("bad_origin"), 3u);
}

TEST_F(HttpFrontHostOriginTest, AllowedOriginGetsCorsGrantOnTheResponse)
{
    FrontOptions options;
    options.allowedOrigins = {"http://localhost:5173"};
    startWithRoute(options);
    const auto response = send("POST", {{"Origin", "http://localhost:5173"}});
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "posted");
    EXPECT_EQ(response->header("access-control-allow-origin"), "http://localhost:5173");
    EXPECT_EQ(response->header("vary"), "Origin");
    EXPECT_EQ(calls, 1);
}

TEST_F(HttpFrontHostOriginTest, PreflightFromAllowedOriginGets204WithCorsHeaders)
{
    FrontOptions options;
    options.allowedOrigins = {"http://localhost:5173"};
    startWithRoute(options);
    const auto response = send("OPTIONS", {{"Origin", "http://localhost:5173"},
                                           {"Access-Control-Request-Method", "POST"},
                                           {"Access-Control-Request-Headers", "content-type, authorization"}});
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 204);
    EXPECT_TRUE(response->body.isEmpty());
    EXPECT_EQ(response->header("access-control-allow-origin"), "http://localhost:5173");
    EXPECT_TRUE(response->header("access-control-allow-methods").contains("POST"));
    EXPECT_FALSE(response->header("access-control-allow-headers").isEmpty());
    EXPECT_FALSE(response->header("access-control-max-age").isEmpty());
    EXPECT_EQ(calls, 0) << "the preflight is answered by the front, not a handler";
}

TEST_F(HttpFrontHostOriginTest, PreflightFromUnknownOriginIsRefused)
{
    FrontOptions options;
    options.allowedOrigins = {"http://localhost:5173"};
    startWithRoute(options);
    const auto response = send("OPTIONS", {{"Origin", "http://evil.example.com"},
                                           {"Access-Control-Request-Method", "POST"}});
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 403);
    EXPECT_FALSE(response->hasHeader("access-control-allow-origin"));
    EXPECT_FALSE(response->hasHeader("access-control-allow-methods"));
}

} // namespace
} // namespace sy::http::test
