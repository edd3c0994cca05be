// RequestFramer: the incremental HTTP/1.1 framing that enforces the header and body limits
// while bytes arrive, before a request is handed over.
#include "http/RequestFramer.h"

#include <gtest/gtest.h>
#include <cstdlib>

namespace sy::http {
namespace {

using Verdict = RequestFramer::Verdict;

constexpr FramingLimits kDefaultLimits{};  // 64 KiB header block, 16 MiB body

// Feeds `bytes` in pieces of `pieceSize` and returns the first non-Ok verdict (or Ok).
Verdict feedInPieces(RequestFramer &framer, const QByteArray &bytes, qsizetype pieceSize)
{
    for (qsizetype at = 0; at < bytes.size(); at += pieceSize) {
        const Verdict verdict = framer.feed(QByteArrayView(bytes).sliced(at, std::min(pieceSize, bytes.size() - at)));
        if (verdict != Verdict::Ok)
            return verdict;
    }
    return Verdict::Ok;
}

// A header block of exactly `totalBytes` bytes, blank line included.
QByteArray headerBlockOfSize(qsizetype totalBytes)
{
    QByteArray head = "GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Fill: ";
    const QByteArray tail = "\r\n\r\n";
    head += QByteArray(totalBytes - head.size() - tail.size(), 'a');
    head += tail;
    return head;
}

QByteArray post(const QByteArray &path, const QByteArray &body)
{
    return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

TEST(RequestFramerTest, HeaderBlockWithinLimitSplitIntoTinyFeedsIsOk)
{
    RequestFramer framer(kDefaultLimits);
    const QByteArray block = headerBlockOfSize(kDefaultLimits.maxHeaderBytes);
    for (const qsizetype piece : {1, 2, 3, 7}) {
        SCOPED_TRACE(piece);
        RequestFramer fresh(kDefaultLimits);
        EXPECT_EQ(feedInPieces(fresh, block, piece), Verdict::Ok);
    }
    EXPECT_EQ(framer.feed(block), Verdict::Ok);
}

TEST(RequestFramerTest, HeaderBlockJustOverLimitWithoutBlankLineIsTooLarge)
{
    RequestFramer framer(kDefaultLimits);
    QByteArray head = "GET / HTTP/1.1\r\nX-Fill: ";
    head += QByteArray(kDefaultLimits.maxHeaderBytes + 1 - head.size(), 'a');
    ASSERT_EQ(head.size(), kDefaultLimits.maxHeaderBytes + 1);
    EXPECT_EQ(framer.feed(QByteArrayView(head).first(head.size() - 1)), Verdict::Ok);
    EXPECT_EQ(framer.feed(QByteArrayView(head).last(1)), Verdict::HeaderTooLarge);
}

TEST(RequestFramerTest, CompleteHeaderBlockOneByteOverLimitIsTooLarge)
{
    RequestFramer framer(kDefaultLimits);
    EXPECT_EQ(framer.feed(headerBlockOfSize(kDefaultLimits.maxHeaderBytes + 1)), Verdict::HeaderTooLarge);
}

TEST(RequestFramerTest, ContentLengthOverBodyLimitIsTooLarge)
{
    RequestFramer framer({1024, 1000});
    EXPECT_EQ(framer.feed("POST /v1/x HTTP/1.1\r\nContent-Length: 1001\r\n\r\n"), Verdict::BodyTooLarge);
    EXPECT_EQ(framer.currentPath(), "/v1/x");
}

TEST(RequestFramerTest, ContentLengthExactlyAtBodyLimitIsOk)
{
    RequestFramer framer({1024, 1000});
    EXPECT_EQ(framer.feed(post("/a", QByteArray(1000, 'b'))), Verdict::Ok);
    // Framing ended exactly at the body's end: the next request is framed from its first byte.
    EXPECT_EQ(framer.feed("GET /next HTTP/1.1\r\n"), Verdict::Ok);
    EXPECT_EQ(framer.currentPath(), "/next");
}

TEST(RequestFramerTest, ChunkSizesAddingUpPastBodyLimitAreTooLarge)
{
    RequestFramer framer({1024, 1000});
    const QByteArray head = "POST /chunks HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    EXPECT_EQ(framer.feed(head), Verdict::Ok);
    // 0x200 = 512 and 0x1f4 = 500: each under the limit, 1012 together.
    EXPECT_EQ(framer.feed("200\r\n" + QByteArray(512, 'x') + "\r\n"), Verdict::Ok);
    EXPECT_EQ(framer.feed("1f4;ext=1\r\n"), Verdict::BodyTooLarge);
    EXPECT_EQ(framer.currentPath(), "/chunks");
}

TEST(RequestFramerTest, ChunkedBodyAtBodyLimitIsOkAndFramingContinues)
{
    RequestFramer framer({1024, 1000});
    const QByteArray request = "POST /chunks HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        + QByteArray("1f4\r\n") + QByteArray(500, 'x') + "\r\n1f4\r\n" + QByteArray(500, 'y')
        + "\r\n0\r\nX-Trailer: 1\r\n\r\n";
    for (const qsizetype piece : {qsizetype(1), qsizetype(5), request.size()}) {
        SCOPED_TRACE(piece);
        RequestFramer fresh({1024, 1000});
        EXPECT_EQ(feedInPieces(fresh, request, piece), Verdict::Ok);
        EXPECT_EQ(fresh.currentPath(), "");
        EXPECT_EQ(fresh.feed(post("/second", QByteArray(1001, 'z'))), Verdict::BodyTooLarge);
    }
}

TEST(RequestFramerTest, ExpectContinueIsReportedOnceHeadersAreComplete)
{
    RequestFramer framer(kDefaultLimits);
    EXPECT_EQ(framer.feed("POST /upload HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n"), Verdict::Ok);
    EXPECT_EQ(framer.feed("\r\n"), Verdict::ExpectContinue);
    EXPECT_EQ(framer.feed("hello"), Verdict::Ok);
}

TEST(RequestFramerTest, ExpectContinueWithOversizeBodyIsTooLargeNotContinue)
{
    RequestFramer framer({1024, 1000});
    EXPECT_EQ(framer.feed("POST /upload HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"),
              Verdict::BodyTooLarge);
}

struct PipelineCase {
    const char *name;
    std::vector<qsizetype> cuts;  // feed boundaries inside the two-request stream
};

class RequestFramerPipelineTest : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(RequestFramerPipelineTest, TwoPipelinedRequestsAreFramedAndTheSecondLimitHolds)
{
    // Request 1 (body within the limit) then request 2 whose declared body is over it.
    const QByteArray first = post("/one", QByteArray(900, 'a'));
    const QByteArray second = "POST /two HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1001\r\n\r\n";
    const QByteArray stream = first + second;
    RequestFramer framer({1024, 1000});
    Verdict verdict = Verdict::Ok;
    qsizetype at = 0;
    std::vector<qsizetype> cuts = GetParam().cuts;
    cuts.push_back(stream.size());
    for (const qsizetype cut : cuts) {
        verdict = framer.feed(QByteArrayView(stream).sliced(at, cut - at));
        at = cut;
        if (verdict != Verdict::Ok)
            break;
    }
    EXPECT_EQ(at, stream.size()) << "refused before the second request was complete";
    EXPECT_EQ(verdict, Verdict::BodyTooLarge);
    EXPECT_EQ(framer.currentPath(), "/two");
}

TEST_P(RequestFramerPipelineTest, TwoPipelinedRequestsWithinLimitsAreOk)
{
    const QByteArray stream = post("/one", QByteArray(1000, 'a')) + post("/two", QByteArray(1000, 'b'));
    RequestFramer framer({1024, 1000});
    qsizetype at = 0;
    std::vector<qsizetype> cuts = GetParam().cuts;
    cuts.push_back(stream.size());
    for (const qsizetype cut : cuts) {
        EXPECT_EQ(framer.feed(QByteArrayView(stream).sliced(at, cut - at)), Verdict::Ok) << "cut at " << cut;
        at = cut;
    }
    EXPECT_EQ(framer.currentPath(), "") << "the framer should be between requests";
}

INSTANTIATE_TEST_SUITE_P(Splits, RequestFramerPipelineTest,
                         ::testing::Values(PipelineCase{"OnePiece", {}},
                                           PipelineCase{"InsideFirstHeaders", {10}},
                                           PipelineCase{"AtFirstBlankLine", {57, 60}},
                                           PipelineCase{"InsideFirstBody", {100, 500}},
                                           PipelineCase{"BodyEndAndSecondRequestLine", {955, 962, 980}},
                                           PipelineCase{"ByteAfterByteAroundBoundary", {958, 959, 960, 961, 962}}),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(RequestFramerTest, CurrentPathIsEmptyUntilTheRequestLineIsComplete)
{
    RequestFramer framer(kDefaultLimits);
    EXPECT_EQ(framer.currentPath(), "");
    framer.feed("GET /v1/chat/completions?stream=true HT");
    EXPECT_EQ(framer.currentPath(), "");
    framer.feed("TP/1.1\r\nHost: localhost\r\n");
    EXPECT_EQ(framer.currentPath(), "/v1/chat/completions");
    framer.feed("\r\n");
    EXPECT_EQ(framer.currentPath(), "") << "a request without body is complete at its blank line";
}

// QtHttpServer 6.4 honours only the FIRST Content-Length field (QHttpServerRequestPrivate::
// contentLength() uses firstHeaderField); the framer must not let a later, smaller duplicate
// hide a body over the limit.
TEST(RequestFramerTest, DuplicateContentLengthCannotHideAnOversizeBody)
{
    RequestFramer framer({1024, 1000});
    EXPECT_NE(framer.feed("POST /x HTTP/1.1\r\nContent-Length: 5000\r\nContent-Length: 1\r\n\r\n"),
              Verdict::Ok);
}

// Same for Transfer-Encoding: QtHttpServer 6.4 reads the first field only.
TEST(RequestFramerTest, DuplicateTransferEncodingCannotHideAChunkedBody)
{
    RequestFramer framer({1024, 1000});
    const Verdict head = framer.feed(
        "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n");
    const Verdict body = head == Verdict::Ok ? framer.feed("7d0\r\n") : head;  // 2000 bytes announced
    EXPECT_NE(body, Verdict::Ok);
}

// QtHttpServer 6.4 ends a header block at a bare "\n\n" too; the framer must follow the same
// boundaries, or a keep-alive client that uses bare LF line ends is refused after 64 KiB in total.
TEST(RequestFramerTest, BareLineFeedRequestsOnOneConnectionDoNotAccumulate)
{
    RequestFramer framer(kDefaultLimits);
    const QByteArray request = "GET /v1/models HTTP/1.1\nHost: localhost\n\n";
    Verdict verdict = Verdict::Ok;
    qsizetype sent = 0;
    while (verdict == Verdict::Ok && sent <= 2 * kDefaultLimits.maxHeaderBytes) {
        verdict = framer.feed(request);
        sent += request.size();
    }
    EXPECT_EQ(verdict, Verdict::Ok) << "refused after " << sent << " bytes of small requests";
}

// One socket read can hold hundreds of KiB of pipelined requests. feed() recurses once per
// request in the batch (and copies the remaining bytes each time): 20000 tiny requests (360 KiB)
// must be framed without exhausting the stack. Run in a child process so a crash fails only
// this test.
TEST(RequestFramerDeathTest, ManyPipelinedRequestsInOneFeedDoNotExhaustTheStack)
{
    QByteArray batch;
    for (int i = 0; i < 20000; ++i)
        batch += "GET / HTTP/1.1\r\n\r\n";
    EXPECT_EXIT(
        {
            RequestFramer framer(kDefaultLimits);
            std::exit(framer.feed(batch) == Verdict::Ok && framer.currentPath().isEmpty() ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace sy::http
