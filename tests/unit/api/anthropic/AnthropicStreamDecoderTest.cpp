// Anthropic Messages stream events to canonical stream events.
#include "api/anthropic/AnthropicStreamDecoder.h"

#include "AnthropicTestUtil.h"

namespace sy::api::anthropic {
namespace {

using Kind = StreamEvent::Kind;

// Feeds `(name, data)` events and collects every canonical event, then finish()'s.
struct Decoded {
    std::vector<StreamEvent> events;
    std::vector<DecodedEvents> decoded;
};

Decoded decodeAll(const std::vector<std::pair<QByteArray, QByteArray>> &input, bool callFinish = true)
{
    AnthropicStreamDecoder decoder;
    Decoded run;
    for (const auto &[name, data] : input) {
        DecodedEvents d = decoder.decode(SseEvent{name, data});
        run.events.insert(run.events.end(), d.events.begin(), d.events.end());
        run.decoded.push_back(std::move(d));
    }
    if (callFinish) {
        const std::vector<StreamEvent> tail = decoder.finish();
        run.events.insert(run.events.end(), tail.begin(), tail.end());
    }
    return run;
}

std::vector<Kind> kinds(const std::vector<StreamEvent> &events)
{
    std::vector<Kind> out;
    for (const StreamEvent &e : events)
        out.push_back(e.kind);
    return out;
}

const std::vector<std::pair<QByteArray, QByteArray>> kThinkingToolStream{
    {"message_start", R"({"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-up",
        "content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":3,"cache_read_input_tokens":50,"output_tokens":1}}})"},
    {"ping", R"({"type":"ping"})"},
    {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
    {"content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking."}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
    {"content_block_start", R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Os"}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"lo\"}"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":2})"},
    {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}})"},
    {"message_stop", R"({"type":"message_stop"})"},
};

TEST(AnthropicStreamDecoderTest, ThinkingTextAndStreamedToolInputBecomeCanonicalBlocks)
{
    const Decoded run = decodeAll(kThinkingToolStream);
    EXPECT_EQ(kinds(run.events), (std::vector<Kind>{Kind::Start,
        Kind::BlockStart, Kind::Delta, Kind::Delta, Kind::BlockStop,
        Kind::BlockStart, Kind::Delta, Kind::BlockStop,
        Kind::BlockStart, Kind::Delta, Kind::Delta, Kind::Delta, Kind::BlockStop, Kind::Finish}));
    for (const DecodedEvents &d : run.decoded) {
        EXPECT_FALSE(d.malformed);
        EXPECT_FALSE(d.upstreamError);
    }
    ASSERT_EQ(run.events.size(), 14u);
    const StreamEvent &start = run.events[0];
    EXPECT_EQ(start.id, "msg_01");
    EXPECT_EQ(start.model, "claude-up");
    EXPECT_TRUE(start.usage.known);
    EXPECT_EQ(start.usage.inputTokens, 25);
    EXPECT_EQ(start.usage.cacheWriteTokens, 3);
    EXPECT_EQ(start.usage.cacheReadTokens, 50);

    EXPECT_EQ(run.events[1].blockKind, ContentPart::Kind::Thinking);
    EXPECT_EQ(run.events[1].index, 0);
    EXPECT_EQ(run.events[2].text, "Let me");
    EXPECT_EQ(run.events[3].signature, "EqQB");
    EXPECT_EQ(run.events[5].blockKind, ContentPart::Kind::Text);
    EXPECT_EQ(run.events[5].index, 1);
    EXPECT_EQ(run.events[6].text, "Checking.");
    EXPECT_EQ(run.events[8].blockKind, ContentPart::Kind::ToolCall);
    EXPECT_EQ(run.events[8].index, 2);
    EXPECT_EQ(run.events[8].toolCallId, "toolu_1");
    EXPECT_EQ(run.events[8].toolName, "get_weather");
    QByteArray arguments;
    for (int i = 9; i <= 11; ++i) {
        EXPECT_EQ(run.events[i].blockKind, ContentPart::Kind::ToolCall);
        EXPECT_EQ(run.events[i].index, 2);
        arguments += run.events[i].argumentsDelta;
    }
    EXPECT_EQ(arguments, R"({"city": "Oslo"})");
    EXPECT_EQ(run.events[12].index, 2);

    const StreamEvent &finish = run.events[13];
    EXPECT_EQ(finish.stopReason, StopReason::ToolUse);
    EXPECT_TRUE(finish.usage.known);
    EXPECT_EQ(finish.usage.inputTokens, 25) << "message_start's input usage is kept";
    EXPECT_EQ(finish.usage.cacheReadTokens, 50);
    EXPECT_EQ(finish.usage.outputTokens, 89);
}

TEST(AnthropicStreamDecoderTest, FinishIsEmittedOnceEvenWhenTheUpstreamEndsWithoutIt)
{
    const Decoded complete = decodeAll(kThinkingToolStream);
    EXPECT_EQ(std::count_if(complete.events.begin(), complete.events.end(),
                            [](const StreamEvent &e) { return e.kind == Kind::Finish; }), 1);

    const Decoded cut = decodeAll({
        {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hel"}})"},
        {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}})"},
    });
    EXPECT_EQ(kinds(cut.events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::Delta,
                                                    Kind::BlockStop, Kind::Finish}))
        << "Start synthesised with the first event; finish() closes the block and the stream";
    EXPECT_EQ(cut.events[2].text, "Hel");
    EXPECT_EQ(cut.events[5].stopReason, StopReason::Unknown);
}

TEST(AnthropicStreamDecoderTest, EventNameMayComeFromTheDataType)
{
    const Decoded run = decodeAll({
        {"", R"({"type":"message_start","message":{"id":"msg_2","model":"m","usage":{"input_tokens":3}}})"},
        {"", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})"},
        {"", R"({"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":2}})"},
    });
    EXPECT_EQ(kinds(run.events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::BlockStop, Kind::Finish}));
    EXPECT_EQ(run.events[4].stopReason, StopReason::StopSequence);
    EXPECT_EQ(run.events[4].stopSequence, "END");
}

TEST(AnthropicStreamDecoderTest, UnsupportedBlocksAreCarriedAsTextAndTheirDeltasSkipped)
{
    const Decoded run = decodeAll({
        {"message_start", R"({"type":"message_start","message":{"id":"msg_3","model":"m","usage":{}}})"},
        {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}})"},
        {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}})"},
        {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
        {"content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}})"},
        {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
        {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}})"},
    });
    EXPECT_EQ(kinds(run.events), (std::vector<Kind>{Kind::Start, Kind::BlockStart, Kind::Delta, Kind::BlockStop,
                                                    Kind::BlockStart, Kind::Delta, Kind::BlockStop, Kind::Finish}));
    EXPECT_EQ(run.events[2].text, "[unsupported block: server_tool_use]");
    EXPECT_EQ(run.events[4].blockKind, ContentPart::Kind::Thinking);
    EXPECT_EQ(run.events[4].index, 1);
    EXPECT_EQ(run.events[5].signature, "opaque");
    EXPECT_EQ(run.events[7].stopReason, StopReason::EndTurn);
}

TEST(AnthropicStreamDecoderTest, ErrorEventIsAnUpstreamErrorWithItsMessage)
{
    const Decoded run = decodeAll({{"error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"}}, false);
    ASSERT_EQ(run.decoded.size(), 1u);
    EXPECT_TRUE(run.decoded[0].upstreamError);
    EXPECT_EQ(run.decoded[0].errorMessage, "Overloaded");
    EXPECT_TRUE(run.events.empty());
}

TEST(AnthropicStreamDecoderTest, DataThatIsNotAJsonObjectIsMalformed)
{
    for (const QByteArray &data : {QByteArray("not json"), QByteArray("[DONE]"), QByteArray("[1,2]"), QByteArray("")}) {
        SCOPED_TRACE(data.toStdString());
        const Decoded run = decodeAll({{"content_block_delta", data}}, false);
        EXPECT_TRUE(run.decoded[0].malformed);
        EXPECT_TRUE(run.events.empty());
    }
}

TEST(AnthropicStreamDecoderTest, PingAndUnknownEventsEmitNothing)
{
    const Decoded run = decodeAll({{"ping", R"({"type":"ping"})"}, {"future_event", R"({"type":"future_event"})"}}, false);
    EXPECT_TRUE(run.events.empty());
    for (const DecodedEvents &d : run.decoded)
        EXPECT_FALSE(d.malformed);
}

} // namespace
} // namespace sy::api::anthropic
