// Stable error-kind names and the curl result table.
#include "DescriptorsExhausted.h"
#include "upstream/CurlErrors.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace sy::upstream {
namespace {

TEST(UpstreamErrorsTest, KindNamesAreStable)
{
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::Connect), "connect");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::FirstByteTimeout), "first_byte_timeout");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::IdleTimeout), "idle_timeout");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::Reset), "reset");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::ReusedConnectionLost), "reused_connection_lost");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::Protocol), "protocol");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::LocalResources), "local_resources");
    EXPECT_STREQ(errorKindName(UpstreamErrorKind::Other), "other");
}

TEST(UpstreamErrorsTest, CurlResultsMapToKinds)
{
    using detail::classifyCurlResult;
    using K = UpstreamErrorKind;
    EXPECT_EQ(classifyCurlResult(CURLE_COULDNT_RESOLVE_HOST, false), K::Connect);
    EXPECT_EQ(classifyCurlResult(CURLE_COULDNT_CONNECT, false), K::Connect);
    EXPECT_EQ(classifyCurlResult(CURLE_OPERATION_TIMEDOUT, false), K::Connect);
    EXPECT_EQ(classifyCurlResult(CURLE_SSL_CONNECT_ERROR, false), K::Connect);
    EXPECT_EQ(classifyCurlResult(CURLE_PEER_FAILED_VERIFICATION, false), K::Connect);
    EXPECT_EQ(classifyCurlResult(CURLE_PARTIAL_FILE, true), K::Reset);
    EXPECT_EQ(classifyCurlResult(CURLE_RECV_ERROR, true), K::Reset);
    EXPECT_EQ(classifyCurlResult(CURLE_SEND_ERROR, true), K::Reset);
    EXPECT_EQ(classifyCurlResult(CURLE_GOT_NOTHING, true), K::Reset);
    EXPECT_EQ(classifyCurlResult(CURLE_HTTP2_STREAM, true), K::Reset);
    EXPECT_EQ(classifyCurlResult(CURLE_WEIRD_SERVER_REPLY, true), K::Protocol);
    EXPECT_EQ(classifyCurlResult(CURLE_HTTP2, true), K::Protocol);
    EXPECT_EQ(classifyCurlResult(CURLE_UNSUPPORTED_PROTOCOL, true), K::Protocol);
    EXPECT_EQ(classifyCurlResult(CURLE_UNSUPPORTED_PROTOCOL, false), K::Other);
    EXPECT_EQ(classifyCurlResult(CURLE_URL_MALFORMAT, false), K::Other);
    EXPECT_EQ(classifyCurlResult(CURLE_OUT_OF_MEMORY, true), K::Other);
}

TEST(UpstreamErrorsTest, ASocketThatFailedForWantOfDescriptorsIsTheGatewaysShortage)
{
    using detail::localShortage;
    const std::optional<QString> emfile = localShortage(CURLE_COULDNT_CONNECT, EMFILE);
    ASSERT_TRUE(emfile);
    EXPECT_TRUE(emfile->contains(QStringLiteral("its open-file limit reached"))) << emfile->toStdString();
    const std::optional<QString> enfile = localShortage(CURLE_COULDNT_CONNECT, ENFILE);
    ASSERT_TRUE(enfile);
    EXPECT_TRUE(enfile->contains(QStringLiteral("the system's open-file limit"))) << enfile->toStdString();
    EXPECT_TRUE(localShortage(CURLE_COULDNT_CONNECT, ENOMEM));
    // A refused connection, and failures that are not about opening one.
    EXPECT_FALSE(localShortage(CURLE_COULDNT_CONNECT, 0));
    EXPECT_FALSE(localShortage(CURLE_COULDNT_CONNECT, ECONNREFUSED));
    EXPECT_FALSE(localShortage(CURLE_RECV_ERROR, EMFILE));
    EXPECT_FALSE(localShortage(CURLE_OPERATION_TIMEDOUT, EMFILE));
}

TEST(UpstreamErrorsTest, AResolveFailureWhileNoDescriptorIsFreeIsTheGatewaysShortage)
{
    // The threaded resolver's own descriptors fail without telling: the check looks at the process.
    EXPECT_FALSE(detail::localShortage(CURLE_COULDNT_RESOLVE_HOST, 0)) << "descriptors are free";
    std::optional<QString> shortage;
    {
        test::DescriptorsExhausted exhausted;
        shortage = detail::localShortage(CURLE_COULDNT_RESOLVE_HOST, 0);
    }
    ASSERT_TRUE(shortage);
    EXPECT_TRUE(shortage->contains(QStringLiteral("open-file limit"))) << shortage->toStdString();
}

} // namespace
} // namespace sy::upstream
