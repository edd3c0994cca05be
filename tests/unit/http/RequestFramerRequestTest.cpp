// RequestFramer: the complete requests it hands over (request line, header fields, decoded
// body), read with the rules of QtHttpServer 6.4's parser, which it replaces.
#include "http/RequestFramer.h"

#include <gtest/gtest.h>

namespace sy::http {
namespace {

using Verdict = RequestFramer::Verdict;

constexpr FramingLimits kDefaultLimits{};

// Feeds `bytes` one piece of `pieceSize` at a time; the first non-Ok verdict, or Ok.
Verdict feedInPieces(RequestFramer &framer, QByteArrayView bytes, qsizetype pieceSize)
{
    for (qsizetype at = 0; at < bytes.size(); at += pieceSize) {
        const Verdict verdict = framer.feed(bytes.sliced(at, std::min(pieceSize, bytes.size() - at)));
        if (verdict != Verdict::Ok)
            return verdict;
    }
    return Verdict::Ok;
}

TEST(RequestFramerRequestTest, RequestLineHeadersAndLengthBodyAreHandedOverWhateverTheSplits)
{
    const QByteArray request = "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: localhost:8080\r\n"
                               "Content-Type:  application/json \r\nAUTHORIZATION: Bearer sk-test-1\r\n"
                               "Content-Length: 11\r\n\r\n{\"a\":\"b c\"}";
    for (const qsizetype piece : {qsizetype(1), qsizetype(7), request.size()}) {
        SCOPED_TRACE(piece);
        RequestFramer framer(kDefaultLimits);
        ASSERT_EQ(feedInPieces(framer, request, piece), Verdict::Ok);
        std::optional<FramedRequest> framed = framer.takeFramed();
        ASSERT_TRUE(framed);
        EXPECT_EQ(framed->method, "POST");
        EXPECT_EQ(framed->target, "/v1/chat/completions?x=1");
        EXPECT_FALSE(framed->http10);
        const HeaderList expected{{"host", "localhost:8080"},
                                  {"content-type", "application/json"},
                                  {"authorization", "Bearer sk-test-1"},
                                  {"content-length", "11"}};
        EXPECT_EQ(framed->headers, expected);
        EXPECT_EQ(framed->body, "{\"a\":\"b c\"}");
        EXPECT_FALSE(framer.takeFramed()) << "one request was sent";
    }
}

TEST(RequestFramerRequestTest, ChunkedBodyIsDecodedAndPipelinedRequestsComeInOrder)
{
    const QByteArray stream = "POST /one HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"
                              "GET /two HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
    for (const qsizetype piece : {qsizetype(1), qsizetype(3), stream.size()}) {
        SCOPED_TRACE(piece);
        RequestFramer framer(kDefaultLimits);
        ASSERT_EQ(feedInPieces(framer, stream, piece), Verdict::Ok);
        std::optional<FramedRequest> first = framer.takeFramed();
        std::optional<FramedRequest> second = framer.takeFramed();
        ASSERT_TRUE(first && second);
        EXPECT_EQ(first->target, "/one");
        EXPECT_EQ(first->body, "hello world");
        EXPECT_EQ(second->method, "GET");
        EXPECT_EQ(second->target, "/two");
        EXPECT_TRUE(second->http10);
        EXPECT_TRUE(second->keepAlive);
        EXPECT_TRUE(second->body.isEmpty());
    }
}

TEST(RequestFramerRequestTest, WhitespaceBeforeARequestLineIsSkipped)
{
    RequestFramer framer(kDefaultLimits);
    ASSERT_EQ(framer.feed("POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nok\r\n"), Verdict::Ok);
    ASSERT_EQ(framer.feed("\r\n GET /b HTTP/1.1\r\n\r\n"), Verdict::Ok);
    ASSERT_TRUE(framer.takeFramed());
    const std::optional<FramedRequest> second = framer.takeFramed();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->method, "GET");
    EXPECT_EQ(second->target, "/b");
}

TEST(RequestFramerRequestTest, FoldedHeaderLinesAreJoinedWithASpace)
{
    RequestFramer framer(kDefaultLimits);
    ASSERT_EQ(framer.feed("GET / HTTP/1.1\nX-Long: one\n  two\n\tthree\nHost: h\n\n"), Verdict::Ok);
    const std::optional<FramedRequest> framed = framer.takeFramed();
    ASSERT_TRUE(framed);
    const HeaderList expected{{"x-long", "one two three"}, {"host", "h"}};
    EXPECT_EQ(framed->headers, expected);
}

TEST(RequestFramerRequestTest, MethodsQtHttpServerDoesNotKnowAreUnknown)
{
    RequestFramer framer(kDefaultLimits);
    ASSERT_EQ(framer.feed("TRACE / HTTP/1.1\r\n\r\nget / HTTP/1.1\r\n\r\nPATCH / HTTP/1.1\r\n\r\n"), Verdict::Ok);
    EXPECT_EQ(framer.takeFramed()->method, "UNKNOWN");
    EXPECT_EQ(framer.takeFramed()->method, "UNKNOWN") << "methods are case-sensitive";
    EXPECT_EQ(framer.takeFramed()->method, "PATCH");
}

TEST(RequestFramerRequestTest, RequestLinesQtHttpServerRefusesAreMalformed)
{
    for (const char *line : {"GET\r\n\r\n", "GET /\r\n\r\n", "GET / \r\n\r\n", "GET / HTTP/1\r\n\r\n",
                             "GET / FTP/1.10\r\n\r\n", " / HTTP/1.1\r\n\r\n"}) {
        SCOPED_TRACE(line);
        RequestFramer framer(kDefaultLimits);
        EXPECT_EQ(framer.feed(line), Verdict::Malformed);
        EXPECT_FALSE(framer.takeFramed());
    }
    RequestFramer spaced(kDefaultLimits);
    EXPECT_EQ(spaced.feed("GET   /x   HTTP/1.1\r\n\r\n"), Verdict::Ok) << "runs of spaces separate the fields";
    EXPECT_EQ(spaced.takeFramed()->target, "/x");
}

TEST(RequestFramerRequestTest, ALineThatIsNoHeaderFieldIsBadFraming)
{
    for (const char *block : {"GET / HTTP/1.1\r\nHost: h\r\nnot a header\r\n\r\n",
                              "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
                              "GET / HTTP/1.1\r\n folded first\r\n\r\n"}) {
        SCOPED_TRACE(block);
        RequestFramer framer(kDefaultLimits);
        EXPECT_EQ(framer.feed(block), Verdict::BadFraming);
        EXPECT_FALSE(framer.takeFramed());
    }
}

TEST(RequestFramerRequestTest, RequestsAfterARefusalInTheSameFeedAreNotHandedOver)
{
    RequestFramer framer({1024, 10});
    EXPECT_EQ(framer.feed("GET /ok HTTP/1.1\r\n\r\nPOST /big HTTP/1.1\r\nContent-Length: 11\r\n\r\n"
                          "01234567890GET /after HTTP/1.1\r\n\r\n"),
              Verdict::BodyTooLarge);
    EXPECT_EQ(framer.completedInLastFeed(), 1);
    EXPECT_EQ(framer.takeFramed()->target, "/ok");
    EXPECT_FALSE(framer.takeFramed());
}

} // namespace
} // namespace sy::http
