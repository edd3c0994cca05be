// Chat Completions chunks decoded into canonical stream events: blocks opened and closed in order,
// tool call arguments in pieces, reasoning_content, Finish held for the usage, [DONE], errors.
#include "api/openai/OpenAiDialect.h"
#include "JsonPrinting.h"

#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

using Kind = StreamEvent::Kind;
using Block = ContentPart::Kind;

// Decodes each data payload in turn, then finish(); every event in order.
struct Decoded {
    std::vector<StreamEvent> events;
    std::vector<DecodedEvents> steps;
};

Decoded decodeAll(const std::vector<QByteArray> &payloads, bool callFinish = true)
{
    Decoded run;
    auto decoder = OpenAiDialect().streamDecoder();
    for (const QByteArray &data : payloads) {
        DecodedEvents step = decoder->decode(SseEvent{{}, data});
        run.events.insert(run.events.end(), step.events.begin(), step.events.end());
        run.steps.push_back(std::move(step));
    }
    if (callFinish) {
        const std::vector<StreamEvent> tail = decoder->finish();
        run.events.insert(run.events.end(), tail.begin(), tail.end());
    }
    return run;
}

// "Start", "BlockStart 0 Text", "Delta 0 'Hel'", ... for a readable comparison.
std::vector<std::string> describe(const std::vector<StreamEvent> &events)
{
    static const char *blocks[] = {"Text", "Image", "ToolCall", "ToolResult", "Thinking"};
    std::vector<std::string> out;
    for (const StreamEvent &e : events) {
        switch (e.kind) {
        case Kind::Start: out.push_back("Start " + e.id.toStdString() + " " + e.model.toStdString()); break;
        case Kind::BlockStart:
            out.push_back("BlockStart " + std::to_string(e.index) + " " + blocks[int(e.blockKind)]
                          + (e.blockKind == Block::ToolCall ? " " + e.toolCallId.toStdString() + " " + e.toolName.toStdString() : ""));
            break;
        case Kind::Delta:
            out.push_back("Delta " + std::to_string(e.index) + " "
                          + (e.blockKind == Block::ToolCall ? e.argumentsDelta.toStdString() : e.text.toStdString()));
            break;
        case Kind::BlockStop: out.push_back("BlockStop " + std::to_string(e.index)); break;
        case Kind::Finish: out.push_back("Finish " + std::to_string(int(e.stopReason))); break;
        }
    }
    return out;
}

const std::string finishEndTurn = "Finish " + std::to_string(int(StopReason::EndTurn));
const std::string finishToolUse = "Finish " + std::to_string(int(StopReason::ToolUse));

TEST(OpenAiStreamDecoderTest, TextStreamWithUsageChunkAfterFinishCarriesTheUsageOnFinish)
{
    const Decoded run = decodeAll({
        R"({"id":"chatcmpl-7","model":"up","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})",
        R"({"id":"chatcmpl-7","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]})",
        R"({"id":"chatcmpl-7","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]})",
        R"({"id":"chatcmpl-7","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})",
        R"({"id":"chatcmpl-7","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14,"prompt_tokens_details":{"cached_tokens":4}}})",
        "[DONE]",
    });
    EXPECT_EQ(describe(run.events), (std::vector<std::string>{"Start chatcmpl-7 up", "BlockStart 0 Text", "Delta 0 Hel",
                                                              "Delta 0 lo", "BlockStop 0", finishEndTurn}));
    // Finish waited for the usage chunk and came with it.
    EXPECT_EQ(describe(run.steps[3].events), std::vector<std::string>{"BlockStop 0"});
    ASSERT_EQ(run.steps[4].events.size(), 1u);
    const TokenUsage usage = run.events.back().usage;
    EXPECT_TRUE(usage.known);
    EXPECT_EQ(usage.inputTokens, 8);
    EXPECT_EQ(usage.cacheReadTokens, 4);
    EXPECT_EQ(usage.outputTokens, 2);
    EXPECT_TRUE(run.steps[5].events.empty()) << "[DONE] after Finish adds nothing";
}

TEST(OpenAiStreamDecoderTest, ReasoningThenTextThenToolCallsInPiecesOpenOneBlockEach)
{
    const Decoded run = decodeAll({
        R"({"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"think"}}]})",
        R"({"choices":[{"index":0,"delta":{"reasoning_content":"ing"}}]})",
        R"({"choices":[{"index":0,"delta":{"content":"Sure."}}]})",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":""}}]}}]})",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}}]})",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]})",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"g","arguments":"{}"}}]}}]})",
        R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
        "[DONE]",
    });
    EXPECT_EQ(describe(run.events), (std::vector<std::string>{
                                        "Start c m", "BlockStart 0 Thinking", "Delta 0 think", "Delta 0 ing", "BlockStop 0",
                                        "BlockStart 1 Text", "Delta 1 Sure.", "BlockStop 1",
                                        "BlockStart 2 ToolCall call_a f", "Delta 2 {\"x\":", "Delta 2 1}", "BlockStop 2",
                                        "BlockStart 3 ToolCall call_b g", "Delta 3 {}", "BlockStop 3", finishToolUse}));
    // No usage came: [DONE] let Finish go without it.
    EXPECT_FALSE(run.events.back().usage.known);
    ASSERT_EQ(run.steps.back().events.size(), 1u);
}

TEST(OpenAiStreamDecoderTest, FinishIsHeldUntilTheEndWhenNeitherUsageNorDoneComes)
{
    const Decoded run = decodeAll({
        R"({"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]})",
        R"({"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"length"}]})",
    });
    EXPECT_EQ(describe(run.events).back(), "Finish " + std::to_string(int(StopReason::MaxTokens)));
    EXPECT_EQ(describe(run.steps[1].events), std::vector<std::string>{"BlockStop 0"});
}

TEST(OpenAiStreamDecoderTest, UpstreamEndingWithoutFinishReasonGetsOneFinishFromFinish)
{
    const Decoded run = decodeAll({R"({"id":"c","choices":[{"index":0,"delta":{"content":"cut"}}]})"});
    EXPECT_EQ(describe(run.events), (std::vector<std::string>{"Start c ", "BlockStart 0 Text", "Delta 0 cut", "BlockStop 0",
                                                              "Finish " + std::to_string(int(StopReason::Unknown))}));
    EXPECT_TRUE(decodeAll({}).events.empty()) << "nothing came: nothing to close";
}

TEST(OpenAiStreamDecoderTest, UsageBeforeFinishIsNotFinalAndUsageWithFinishIs)
{
    // Servers that report usage on every chunk: Finish carries the last one.
    const Decoded run = decodeAll({
        R"({"id":"c","choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}})",
        R"({"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}})",
    }, false);
    EXPECT_EQ(describe(run.steps[0].events).back(), "Delta 0 a");
    EXPECT_EQ(describe(run.steps[1].events), (std::vector<std::string>{"BlockStop 0", finishEndTurn}));
    EXPECT_EQ(run.events.back().usage.outputTokens, 3);
}

TEST(OpenAiStreamDecoderTest, ErrorChunkIsAnUpstreamErrorAndNonJsonIsMalformed)
{
    auto decoder = OpenAiDialect().streamDecoder();
    const DecodedEvents error = decoder->decode(SseEvent{{}, R"({"error":{"message":"model overloaded","type":"server_error"}})"});
    EXPECT_TRUE(error.upstreamError);
    EXPECT_EQ(error.errorMessage, u"model overloaded");
    EXPECT_FALSE(error.malformed);
    EXPECT_TRUE(error.events.empty());

    for (const QByteArray &data : {QByteArray("<html>502</html>"), QByteArray("[1]"), QByteArray("{\"choices\":")}) {
        SCOPED_TRACE(data.toStdString());
        const DecodedEvents bad = OpenAiDialect().streamDecoder()->decode(SseEvent{{}, data});
        EXPECT_TRUE(bad.malformed);
        EXPECT_FALSE(bad.upstreamError);
    }
    EXPECT_FALSE(OpenAiDialect().streamDecoder()->decode(SseEvent{{}, {}}).malformed) << "an empty event is no chunk";
}

} // namespace
} // namespace sy::api::openai
