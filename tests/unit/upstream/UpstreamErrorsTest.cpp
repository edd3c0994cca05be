// Stable error-kind names and the curl result table.
#include "upstream/CurlErrors.h"

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

} // namespace
} // namespace sy::upstream
