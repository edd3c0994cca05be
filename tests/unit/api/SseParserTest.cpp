// SseParser: events come out the same however the bytes are cut; LF and CRLF; multi-line data;
// comments; the event field; the [DONE] sentinel; long streams.
#include "api/SseParser.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace sy::api {

// Printed by GoogleTest when an EXPECT on events fails.
void PrintTo(const SseEvent &event, std::ostream *os)
{
    *os << "{event=\"" << event.event.toStdString() << "\", data=\"" << event.data.toStdString() << "\"}";
}

bool operator==(const SseEvent &a, const SseEvent &b)
{
    return a.event == b.event && a.data == b.data;
}

namespace {

using Events = std::vector<SseEvent>;

Events feedAll(const QByteArray &bytes)
{
    SseParser parser;
    return parser.feed(bytes);
}

Events feedInPieces(const QByteArray &bytes, qsizetype pieceSize)
{
    SseParser parser;
    Events all;
    for (qsizetype at = 0; at < bytes.size(); at += pieceSize) {
        for (SseEvent &event : parser.feed(bytes.mid(at, pieceSize)))
            all.push_back(std::move(event));
    }
    return all;
}

// A stream with every feature the parser knows, mixing LF and CRLF.
const QByteArray kMixedStream =
    ": keep-alive comment\n"
    "\n"
    "data: {\"id\":1}\n"
    "\n"
    "event: message_start\r\n"
    "data: {\"type\":\"message_start\"}\r\n"
    "\r\n"
    "data: first line\n"
    ": a comment between data lines\n"
    "data: second line\n"
    "\n"
    "id: 7\n"
    "retry: 1000\n"
    "data:no-space\n"
    "\n"
    "data: [DONE]\r\n"
    "\r\n";

const Events kMixedEvents{
    {"", "{\"id\":1}"},
    {"message_start", "{\"type\":\"message_start\"}"},
    {"", "first line\nsecond line"},
    {"", "no-space"},
    {"", "[DONE]"},
};

TEST(SseParserTest, OneFeedYieldsEveryEventInOrder)
{
    EXPECT_EQ(feedAll(kMixedStream), kMixedEvents);
}

TEST(SseParserTest, SplittingAtEveryByteBoundaryGivesTheSameEvents)
{
    for (qsizetype cut = 0; cut <= kMixedStream.size(); ++cut) {
        SCOPED_TRACE(cut);
        SseParser parser;
        Events events = parser.feed(kMixedStream.first(cut));
        for (SseEvent &event : parser.feed(kMixedStream.sliced(cut)))
            events.push_back(std::move(event));
        EXPECT_EQ(events, kMixedEvents);
        EXPECT_EQ(parser.pendingBytes(), 0);
    }
}

TEST(SseParserTest, FeedingOneByteAtATimeGivesTheSameEvents)
{
    EXPECT_EQ(feedInPieces(kMixedStream, 1), kMixedEvents);
    EXPECT_EQ(feedInPieces(kMixedStream, 3), kMixedEvents);
    EXPECT_EQ(feedInPieces(kMixedStream, 7), kMixedEvents);
}

TEST(SseParserTest, CrlfLineEndsLeaveNoCarriageReturnInFields)
{
    const Events events = feedAll("event: delta\r\ndata: a\r\ndata: b\r\n\r\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].event, "delta");
    EXPECT_EQ(events[0].data, "a\nb");
}

TEST(SseParserTest, CarriageReturnAndLineFeedInSeparateFeedsEndOneLine)
{
    SseParser parser;
    EXPECT_TRUE(parser.feed("data: x\r").empty());
    EXPECT_TRUE(parser.feed("\n\r").empty());
    const Events events = parser.feed("\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, "x");
}

TEST(SseParserTest, SeveralDataLinesJoinWithLineFeed)
{
    const Events events = feedAll("data: one\ndata: two\ndata: three\n\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, "one\ntwo\nthree");
}

TEST(SseParserTest, EmptyDataLinesStillJoinWithLineFeed)
{
    // Three data lines "", "x", "" joined with \n (the SSE rules and the header's contract).
    const Events events = feedAll("data:\ndata: x\ndata:\n\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, QByteArray("\nx\n"));
}

TEST(SseParserTest, OnlyOneLeadingSpaceIsRemovedFromAValue)
{
    const Events events = feedAll("data:  indented\n\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, " indented");
}

TEST(SseParserTest, CommentsAndBlankLinesProduceNoEvents)
{
    SseParser parser;
    EXPECT_TRUE(parser.feed(": ping\n\n:\n\n\n\n: OPENROUTER PROCESSING\n\n").empty());
    EXPECT_EQ(parser.pendingBytes(), 0);
}

TEST(SseParserTest, UnknownFieldsAloneProduceNoEvent)
{
    EXPECT_TRUE(feedAll("id: 3\nretry: 500\nfoo: bar\n\n").empty());
}

TEST(SseParserTest, EventFieldBelongsOnlyToItsOwnEvent)
{
    const Events events = feedAll("event: content_block_delta\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\n");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].event, "content_block_delta");
    EXPECT_EQ(events[0].data, "{\"a\":1}");
    EXPECT_EQ(events[1].event, "");
    EXPECT_EQ(events[1].data, "{\"b\":2}");
}

TEST(SseParserTest, DoneSentinelIsAnOrdinaryDataEvent)
{
    const Events events = feedAll("data: {\"choices\":[]}\n\ndata: [DONE]\n\n");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].data, "[DONE]");
    EXPECT_TRUE(events[1].event.isEmpty());
}

TEST(SseParserTest, EventIsHeldBackUntilItsBlankLine)
{
    SseParser parser;
    EXPECT_TRUE(parser.feed("data: partial").empty());
    EXPECT_EQ(parser.pendingBytes(), 13);
    EXPECT_TRUE(parser.feed("\n").empty());
    const Events events = parser.feed("\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, "partial");
    EXPECT_EQ(parser.pendingBytes(), 0);
}

TEST(SseParserTest, PendingBytesCountAnEventWhoseBlankLineHasNotArrived)
{
    // A stream that ends here was cut inside an event; the caller can only tell from pendingBytes().
    SseParser parser;
    EXPECT_TRUE(parser.feed("data: {\"id\":1}\n").empty());
    EXPECT_GT(parser.pendingBytes(), 0);
}

TEST(SseParserTest, LongStreamInOddPiecesLosesNothing)
{
    QByteArray stream;
    for (int i = 0; i < 2000; ++i)
        stream += "data: {\"n\":" + QByteArray::number(i) + ",\"pad\":\"" + QByteArray(i % 50, 'x') + "\"}\r\n\r\n";
    ASSERT_GT(stream.size(), 3 * 4096);
    for (qsizetype piece : {1, 37, 4097, 9000}) {
        SCOPED_TRACE(piece);
        const Events events = feedInPieces(stream, piece);
        ASSERT_EQ(events.size(), 2000u);
        for (int i : {0, 1, 999, 1999}) {
            EXPECT_EQ(events[size_t(i)].data,
                      "{\"n\":" + QByteArray::number(i) + ",\"pad\":\"" + QByteArray(i % 50, 'x') + "\"}");
        }
    }
}

TEST(SseParserTest, LineWithoutEndPastTheCapOverflowsAndBuffersNothing)
{
    // An upstream that sends one endless line: the parser keeps at most the cap, then gives up.
    SseParser parser(1024);
    EXPECT_TRUE(parser.feed("data: {\"ok\":1}\n\ndata: ").size() == 1);
    EXPECT_FALSE(parser.overflowed());
    const QByteArray piece(300, 'x');
    for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(parser.feed(piece).empty());
    EXPECT_FALSE(parser.overflowed());
    EXPECT_TRUE(parser.feed(piece).empty());
    EXPECT_TRUE(parser.overflowed());
    EXPECT_EQ(parser.pendingBytes(), 0);
    // Sticky: even a well-formed end and a later event are not reported as a clean finish.
    EXPECT_TRUE(parser.feed("\n\ndata: [DONE]\n\n").empty());
    EXPECT_TRUE(parser.overflowed());
    EXPECT_EQ(parser.pendingBytes(), 0);
}

TEST(SseParserTest, ManyShortDataLinesOfOneEventOverflowToo)
{
    SseParser parser(1000);
    QByteArray lines;
    for (int i = 0; i < 200; ++i)
        lines += "data: 0123456789\n";
    EXPECT_TRUE(parser.feed(lines).empty());
    EXPECT_TRUE(parser.overflowed());
}

TEST(SseParserTest, EventsUpToTheCapPassAndTheEarlierOnesOfAnOverflowingFeedAreKept)
{
    SseParser parser(64);
    const QByteArray fits = "data: " + QByteArray(56, 'a') + "\n\n";  // 64 bytes with its line end
    Events events = parser.feed(fits + fits + "data: " + QByteArray(100, 'b'));
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].data, QByteArray(56, 'a'));
    EXPECT_TRUE(parser.overflowed());
}

TEST(SseParserTest, DefaultCapIsOneMebibyteAndSettable)
{
    SseParser parser;
    EXPECT_EQ(parser.maxEventBytes(), 1024 * 1024);
    const QByteArray big = "data: " + QByteArray(1024 * 1024 - 16, 'z') + "\n\n";
    ASSERT_EQ(parser.feed(big).size(), 1u);
    parser.setMaxEventBytes(4096);
    EXPECT_TRUE(parser.feed(big).empty());
    EXPECT_TRUE(parser.overflowed());
}

} // namespace
} // namespace sy::api
