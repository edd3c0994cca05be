// Gemini :streamGenerateContent?alt=sse chunks to canonical stream events.
#include "api/gemini/GeminiStreamDecoder.h"

#include "GeminiTestUtil.h"

namespace sy::api::gemini {
namespace {

SseEvent data(const QByteArray &json)
{
    SseEvent e;
    e.data = json;
    return e;
}

using Kind = StreamEvent::Kind;

std::vector<StreamEvent> decodeAll(GeminiStreamDecoder &decoder, const QList<QByteArray> &chunks)
{
    std::vector<StreamEvent> out;
    for (const QByteArray &chunk : chunks) {
        DecodedEvents decoded = decoder.decode(data(chunk));
        EXPECT_FALSE(decoded.malformed) << chunk.toStdString();
        EXPECT_FALSE(decoded.upstreamError) << chunk.toStdString();
        out.insert(out.end(), decoded.events.begin(), decoded.events.end());
    }
    const std::vector<StreamEvent> tail = decoder.finish();
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

std::vector<Kind> kinds(const std::vector<StreamEvent> &events)
{
    std::vector<Kind> out;
    for (const StreamEvent &e : events)
        out.push_back(e.kind);
    return out;
}

TEST(GeminiStreamDecoderTest, TextChunksThenAFunctionCallThenFinishWithUsage)
{
    GeminiStreamDecoder decoder;
    const std::vector<StreamEvent> events = decodeAll(decoder, {
        R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],"modelVersion":"gemini-x","responseId":"r7"})",
        R"({"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"index":0}],"usageMetadata":{"promptTokenCount":9}})",
        R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Oslo"}}}]},"index":0}]})",
        R"({"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],
            "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":4,"totalTokenCount":14}})",
    });
    EXPECT_EQ(kinds(events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::Delta, Kind::BlockStop,
                                                Kind::BlockStart, Kind::Delta, Kind::BlockStop, Kind::Finish}));
    EXPECT_EQ(events[0].id, "r7");
    EXPECT_EQ(events[0].model, "gemini-x");
    EXPECT_EQ(events[2].text, "Hel");
    EXPECT_EQ(events[3].text, "lo");
    EXPECT_EQ(events[5].blockKind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(events[5].toolName, "weather");
    EXPECT_EQ(events[5].toolCallId, "call_r7_0");
    EXPECT_EQ(events[5].index, 1);
    EXPECT_EQ(test::object(events[6].argumentsDelta), test::object(R"({"city":"Oslo"})"));
    EXPECT_EQ(events[8].stopReason, StopReason::ToolUse);
    EXPECT_TRUE(events[8].usage.known);
    EXPECT_EQ(events[8].usage.inputTokens, 10);
    EXPECT_EQ(events[8].usage.outputTokens, 4);
}

TEST(GeminiStreamDecoderTest, ThoughtsAreAThinkingBlockAndNothingFollowsTheFinish)
{
    GeminiStreamDecoder decoder;
    const std::vector<StreamEvent> events = decodeAll(decoder, {
        R"({"candidates":[{"content":{"parts":[{"text":"hmm","thought":true}]}}]})",
        R"({"candidates":[{"content":{"parts":[{"text":"Answer"}]},"finishReason":"MAX_TOKENS"}]})",
        R"({"candidates":[{"content":{"parts":[{"text":"late"}]}}]})",
    });
    EXPECT_EQ(kinds(events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::BlockStop, Kind::BlockStart,
                                                Kind::Delta, Kind::BlockStop, Kind::Finish}));
    EXPECT_EQ(events[1].blockKind, ContentPart::Kind::Thinking);
    EXPECT_EQ(events[4].blockKind, ContentPart::Kind::Text);
    EXPECT_EQ(events[7].stopReason, StopReason::MaxTokens);
}

TEST(GeminiStreamDecoderTest, AStreamWithoutFinishReasonIsClosedAtTheEnd)
{
    GeminiStreamDecoder decoder;
    const std::vector<StreamEvent> events = decodeAll(decoder, {R"({"candidates":[{"content":{"parts":[{"text":"x"}]}}]})"});
    EXPECT_EQ(kinds(events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::BlockStop, Kind::Finish}));
}

TEST(GeminiStreamDecoderTest, UsageAloneIsNoContent)
{
    GeminiStreamDecoder decoder;
    EXPECT_TRUE(decodeAll(decoder, {R"({"usageMetadata":{"promptTokenCount":3},"modelVersion":"m"})"}).empty());
}

TEST(GeminiStreamDecoderTest, ErrorsBlocksAndGarbage)
{
    GeminiStreamDecoder decoder;
    const DecodedEvents error = decoder.decode(data(R"({"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}})"));
    EXPECT_TRUE(error.upstreamError);
    EXPECT_EQ(error.errorMessage, "overloaded");
    const DecodedEvents blocked = decoder.decode(data(R"({"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}})"));
    EXPECT_TRUE(blocked.upstreamError);
    EXPECT_TRUE(blocked.errorMessage.contains("PROHIBITED_CONTENT"));
    EXPECT_TRUE(decoder.decode(data("{not json")).malformed);
    EXPECT_TRUE(decoder.decode(data("[1]")).malformed);
}

} // namespace
} // namespace sy::api::gemini
