// A channel's transport settings on its upstream requests: TLS trust, proxy, and the header its
// credential travels in when `auth` overrides the format's own way.
#include "service/ChannelTransport.h"

#include <gtest/gtest.h>

namespace sy::service {
namespace {

constexpr char kKey[] = "sk-test-transport-1234";

http::HeaderList openAiHeaders()
{
    return {{"content-type", "application/json"}, {"authorization", QByteArray("Bearer ") + kKey}};
}

TEST(ChannelTransportTest, NoAuthOverrideKeepsTheDialectsHeaders)
{
    http::HeaderList headers = openAiHeaders();
    applyAuthStyle({}, QString::fromLatin1(kKey), headers);
    EXPECT_EQ(headers, openAiHeaders());
}

TEST(ChannelTransportTest, ApiKeyReplacesTheBearerHeader)
{
    http::HeaderList headers = openAiHeaders();
    applyAuthStyle(QStringLiteral("api-key"), QString::fromLatin1(kKey), headers);
    EXPECT_TRUE(http::headerValue(headers, "authorization").isEmpty());
    EXPECT_EQ(http::headerValue(headers, "api-key"), QByteArray(kKey));
    EXPECT_EQ(http::headerValue(headers, "content-type"), QByteArray("application/json"));
}

TEST(ChannelTransportTest, NoneSendsNoCredential)
{
    http::HeaderList headers = openAiHeaders();
    applyAuthStyle(QStringLiteral("none"), QString::fromLatin1(kKey), headers);
    EXPECT_EQ(headers.size(), 1);
}

TEST(ChannelTransportTest, BearerReplacesAnthropicsKeyHeader)
{
    http::HeaderList headers{{"x-api-key", kKey}};
    applyAuthStyle(QStringLiteral("bearer"), QString::fromLatin1(kKey), headers);
    EXPECT_TRUE(http::headerValue(headers, "x-api-key").isEmpty());
    EXPECT_EQ(http::headerValue(headers, "authorization"), QByteArray("Bearer ") + kKey);
}

TEST(ChannelTransportTest, TlsAndProxyComeFromTheChannel)
{
    config::Channel channel;
    channel.tls.caFile = QStringLiteral("/etc/ca.pem");
    channel.tls.insecure = true;
    channel.proxy = QStringLiteral("http://127.0.0.1:3128");
    upstream::UpstreamRequest request;
    applyChannelTransport(channel, request);
    EXPECT_FALSE(request.verifyTls);
    EXPECT_EQ(request.caFile, QByteArray("/etc/ca.pem"));
    EXPECT_EQ(request.proxy, QByteArray("http://127.0.0.1:3128"));
    applyChannelTransport(config::Channel{}, request);
    EXPECT_TRUE(request.verifyTls);
    EXPECT_TRUE(request.caFile.isEmpty());
    EXPECT_TRUE(request.proxy.isEmpty());
}

} // namespace
} // namespace sy::service
