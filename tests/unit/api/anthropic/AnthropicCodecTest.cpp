// The Anthropic client side: answers, streams and error bodies in the shapes Anthropic's SDKs read.
#include "api/anthropic/AnthropicCodec.h"

#include "AnthropicTestUtil.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::anthropic {
namespace {

using test::events;
using test::names;
using test::object;

WriterOptions options()
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/claude");
    o.requestId = "req-42";
    return o;
}

ContentPart toolCall(const QString &id, const QString &name, const QByteArray &args)
{
    ContentPart p;
    p.kind = ContentPart::Kind::ToolCall;
    p.toolCallId = id;
    p.toolName = name;
    p.argumentsJson = args;
    return p;
}

TEST(AnthropicCodecTest, AnswerBodyIsAMessagesAnswer)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("chatcmpl-7");
    answer.model = QStringLiteral("upstream-name");
    ContentPart thinking;
    thinking.kind = ContentPart::Kind::Thinking;
    thinking.text = QStringLiteral("ponder");
    thinking.signature = QStringLiteral("sig");
    answer.parts = {thinking, ContentPart::textPart(QStringLiteral("Hello")),
                    toolCall("call_1", "get_weather", R"({"city":"Oslo"})")};
    answer.stopReason = StopReason::ToolUse;
    answer.usage = {10, 5, 3, 2, true};

    const QJsonObject body = object(AnthropicCodec().answerBody(answer, options()));
    EXPECT_EQ(body, object(R"({"id":"msg_chatcmpl-7","type":"message","role":"assistant","model":"team/claude",
        "content":[{"type":"thinking","thinking":"ponder","signature":"sig"},{"type":"text","text":"Hello"},
                   {"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Oslo"}}],
        "stop_reason":"tool_use","stop_sequence":null,
        "usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":3,"cache_creation_input_tokens":2}})"));
}

TEST(AnthropicCodecTest, TextAnswerBodyIsByteForByteWhatQtWrites)
{
    // Text-only answers are written directly; the bytes must be those of the QJsonObject the
    // other answers go through (sorted keys, Qt's escaping, integers as integers).
    const QList<QString> texts = {QStringLiteral("Hello! How can I help you today?"), QString(),
                                  QStringLiteral("quote \" backslash \\ slash / tab \t nl \n cr \r bell \x07 del \x7f"),
                                  QStringLiteral("caf\u00e9 \u65e5\u672c \U0001F600 \u2028 \u2029"),
                                  QString(1, QChar(0xd800)) + QStringLiteral(" lone surrogate"), QString(2000, u'x')};
    const QList<StopReason> reasons = {StopReason::Unknown, StopReason::EndTurn, StopReason::MaxTokens,
                                       StopReason::StopSequence, StopReason::ContentFilter, StopReason::Error};
    int cases = 0;
    for (const QString &text : texts) {
        for (const StopReason reason : reasons) {
            CanonicalAnswer answer;
            answer.id = cases % 3 == 0 ? QString() : cases % 3 == 1 ? QStringLiteral("msg_x\"1") : QStringLiteral("chatcmpl-\u00e9");
            answer.parts = {ContentPart::textPart(text)};
            if (cases % 2)
                answer.parts.append(ContentPart::textPart(QStringLiteral(" and more")));
            answer.stopReason = reason;
            answer.stopSequence = cases % 4 ? QStringLiteral("END\n") : QString();
            answer.usage = {qint64(cases) * 7, 9, cases % 5 ? 0 : 123456789012345LL, 1LL << 60, true};
            WriterOptions o = options();
            o.publicModel = cases % 2 ? QStringLiteral("team/claude") : QStringLiteral("m\u00fcnchen \"q\"");

            QJsonArray content;
            for (const ContentPart &part : answer.parts)
                content.append(QJsonObject{{"type", "text"}, {"text", part.text}});
            const QJsonObject expected{
                {"id", messageId(answer.id, o.requestId)},
                {"type", "message"},
                {"role", "assistant"},
                {"model", o.publicModel},
                {"content", content},
                {"stop_reason", stopReasonName(reason)},
                {"stop_sequence", reason == StopReason::StopSequence && !answer.stopSequence.isEmpty()
                                      ? QJsonValue(answer.stopSequence) : QJsonValue(QJsonValue::Null)},
                {"usage", usageJson(answer.usage)},
            };
            SCOPED_TRACE(cases);
            EXPECT_EQ(AnthropicCodec().answerBody(answer, o), QJsonDocument(expected).toJson(QJsonDocument::Compact));
            ++cases;
        }
    }
}

TEST(AnthropicCodecTest, AnswerIdComesFromTheRequestIdWhenTheAnswerHasNone)
{
    CanonicalAnswer answer;
    answer.parts = {ContentPart::textPart("x")};
    EXPECT_EQ(object(AnthropicCodec().answerBody(answer, options())).value("id"), "msg_req-42");
    answer.id = QStringLiteral("msg_abc");
    EXPECT_EQ(object(AnthropicCodec().answerBody(answer, options())).value("id"), "msg_abc");
}

TEST(AnthropicCodecTest, StopReasonsAndStopSequence)
{
    const std::vector<std::pair<StopReason, QString>> rows{
        {StopReason::EndTurn, "end_turn"}, {StopReason::MaxTokens, "max_tokens"}, {StopReason::ToolUse, "tool_use"},
        {StopReason::StopSequence, "stop_sequence"}, {StopReason::ContentFilter, "refusal"}, {StopReason::Unknown, "end_turn"}};
    for (const auto &[reason, name] : rows) {
        SCOPED_TRACE(name.toStdString());
        CanonicalAnswer answer;
        answer.parts = {ContentPart::textPart("x")};
        answer.stopReason = reason;
        answer.stopSequence = QStringLiteral("END");
        const QJsonObject body = object(AnthropicCodec().answerBody(answer, options()));
        EXPECT_EQ(body.value("stop_reason"), name);
        EXPECT_EQ(body.value("stop_sequence"), reason == StopReason::StopSequence ? QJsonValue("END") : QJsonValue());
    }
    CanonicalAnswer calls;
    calls.parts = {toolCall("c", "f", "{}")};
    EXPECT_EQ(object(AnthropicCodec().answerBody(calls, options())).value("stop_reason"), "tool_use")
        << "an unknown stop with tool calls is a tool_use stop";
}

TEST(AnthropicCodecTest, ErrorBodyTypesPerStatus)
{
    const std::vector<std::pair<int, QString>> rows{
        {400, "invalid_request_error"}, {413, "request_too_large"}, {422, "invalid_request_error"},
        {401, "authentication_error"}, {402, "billing_error"}, {403, "permission_error"}, {404, "not_found_error"},
        {429, "rate_limit_error"}, {500, "api_error"}, {502, "api_error"}, {503, "overloaded_error"},
        {529, "overloaded_error"}};
    for (const auto &[status, type] : rows) {
        SCOPED_TRACE(status);
        ApiError error;
        error.status = status;
        error.message = QStringLiteral("nope");
        EXPECT_EQ(object(AnthropicCodec().errorBody(error)),
                  QJsonObject({{"type", "error"}, {"error", QJsonObject{{"type", type}, {"message", "nope"}}}}));
    }
}

TEST(AnthropicCodecTest, ErrorBodyCarriesCodeAndMetadataWhenGiven)
{
    ApiError error;
    error.status = 502;
    error.message = QStringLiteral("All providers failed for model a");
    error.code = "all_providers_failed";
    error.metadata = object(R"({"attempts":[{"provider":"p","status":"error"}]})");
    EXPECT_EQ(object(AnthropicCodec().errorBody(error)), object(R"({"type":"error","error":{"type":"api_error",
        "message":"All providers failed for model a","code":"all_providers_failed",
        "metadata":{"attempts":[{"provider":"p","status":"error"}]}}})"));
}

StreamEvent ev(StreamEvent::Kind kind, int index = 0, ContentPart::Kind blockKind = ContentPart::Kind::Text)
{
    StreamEvent e;
    e.kind = kind;
    e.index = index;
    e.blockKind = blockKind;
    return e;
}

TEST(AnthropicCodecTest, StreamWritesTheRealEventSequence)
{
    auto writer = AnthropicCodec().streamWriter(options());
    QByteArray out;
    StreamEvent start = ev(StreamEvent::Kind::Start);
    start.id = QStringLiteral("msg_up");
    start.model = QStringLiteral("upstream-name");
    start.usage = {25, 1, 0, 0, true};
    out += writer->write(start);

    out += writer->write(ev(StreamEvent::Kind::BlockStart, 0, ContentPart::Kind::Thinking));
    StreamEvent think = ev(StreamEvent::Kind::Delta, 0, ContentPart::Kind::Thinking);
    think.text = QStringLiteral("let me see");
    out += writer->write(think);
    StreamEvent sig = ev(StreamEvent::Kind::Delta, 0, ContentPart::Kind::Thinking);
    sig.signature = QStringLiteral("EqQB");
    out += writer->write(sig);
    out += writer->write(ev(StreamEvent::Kind::BlockStop, 0));

    out += writer->write(ev(StreamEvent::Kind::BlockStart, 1));
    StreamEvent text = ev(StreamEvent::Kind::Delta, 1);
    text.text = QStringLiteral("Hi");
    out += writer->write(text);
    out += writer->write(ev(StreamEvent::Kind::BlockStop, 1));

    StreamEvent call = ev(StreamEvent::Kind::BlockStart, 2, ContentPart::Kind::ToolCall);
    call.toolCallId = QStringLiteral("toolu_1");
    call.toolName = QStringLiteral("get_weather");
    out += writer->write(call);
    StreamEvent args = ev(StreamEvent::Kind::Delta, 2, ContentPart::Kind::ToolCall);
    args.argumentsDelta = R"({"city":)";
    out += writer->write(args);
    args.argumentsDelta = R"("Oslo"})";
    out += writer->write(args);
    out += writer->write(ev(StreamEvent::Kind::BlockStop, 2));

    StreamEvent finish = ev(StreamEvent::Kind::Finish);
    finish.stopReason = StopReason::ToolUse;
    finish.usage = {25, 40, 0, 7, true};
    out += writer->write(finish);
    out += writer->end();

    const auto list = events(out);
    EXPECT_EQ(names(list), (QList<QByteArray>{"message_start", "ping",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
        "message_delta", "message_stop"}));
    ASSERT_EQ(list.size(), 15);
    EXPECT_EQ(list[0].second, object(R"({"type":"message_start","message":{"id":"msg_up","type":"message",
        "role":"assistant","model":"team/claude","content":[],"stop_reason":null,"stop_sequence":null,
        "usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}})"));
    EXPECT_EQ(list[1].second, object(R"({"type":"ping"})"));
    EXPECT_EQ(list[2].second, object(R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"));
    EXPECT_EQ(list[3].second, object(R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me see"}})"));
    EXPECT_EQ(list[4].second, object(R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})"));
    EXPECT_EQ(list[5].second, object(R"({"type":"content_block_stop","index":0})"));
    EXPECT_EQ(list[6].second, object(R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"));
    EXPECT_EQ(list[7].second, object(R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}})"));
    EXPECT_EQ(list[9].second, object(R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}})"));
    EXPECT_EQ(list[10].second, object(R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}})"));
    EXPECT_EQ(list[13].second, object(R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},
        "usage":{"input_tokens":25,"output_tokens":40,"cache_read_input_tokens":0,"cache_creation_input_tokens":7}})"));
    EXPECT_EQ(list[14].second, object(R"({"type":"message_stop"})"));
}

TEST(AnthropicCodecTest, StreamWithoutStartOrBlockEventsStillWritesAValidMessage)
{
    auto writer = AnthropicCodec().streamWriter(options());
    QByteArray out;
    StreamEvent text = ev(StreamEvent::Kind::Delta, 0);
    text.text = QStringLiteral("a");
    out += writer->write(text);
    StreamEvent think = ev(StreamEvent::Kind::Delta, 1, ContentPart::Kind::Thinking);
    think.text = QStringLiteral("b");
    out += writer->write(think);
    out += writer->end();   // no Finish either
    const auto list = events(out);
    EXPECT_EQ(names(list), (QList<QByteArray>{"message_start", "ping",
        "content_block_start", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}));
    EXPECT_EQ(list[0].second.value("message").toObject().value("id"), "msg_req-42");
    EXPECT_EQ(list[5].second.value("index"), 1);
    EXPECT_EQ(list[8].second.value("delta").toObject().value("stop_reason"), "end_turn");
    EXPECT_TRUE(writer->write(text).isEmpty()) << "nothing after the message ended";
}

TEST(AnthropicCodecTest, FinishClosesTheOpenBlockAndStopSequenceIsNamed)
{
    auto writer = AnthropicCodec().streamWriter(options());
    QByteArray out = writer->write(ev(StreamEvent::Kind::Start));
    out += writer->write(ev(StreamEvent::Kind::BlockStart, 0));
    StreamEvent finish = ev(StreamEvent::Kind::Finish);
    finish.stopReason = StopReason::StopSequence;
    finish.stopSequence = QStringLiteral("END");
    out += writer->write(finish);
    EXPECT_TRUE(writer->end().isEmpty());
    const auto list = events(out);
    EXPECT_EQ(names(list), (QList<QByteArray>{"message_start", "ping", "content_block_start", "content_block_stop",
                                              "message_delta", "message_stop"}));
    EXPECT_EQ(list[4].second.value("delta").toObject(), object(R"({"stop_reason":"stop_sequence","stop_sequence":"END"})"));
}

TEST(AnthropicCodecTest, InterruptedIsOneErrorEventWithoutMessageStop)
{
    auto writer = AnthropicCodec().streamWriter(options());
    (void)writer->write(ev(StreamEvent::Kind::Start));
    EXPECT_EQ(writer->interrupted(QStringLiteral("upstream \"reset\"")),
              QByteArray("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"upstream \\\"reset\\\"\"}}\n\n"));
    EXPECT_TRUE(writer->end().isEmpty());
}

} // namespace
} // namespace sy::api::anthropic
