// The Responses stream: the event sequence the official SDKs fold into a Response, numbered, with
// the last event repeating the items the stream announced.
#include "api/responses/ResponsesStreamWriter.h"

#include "ResponsesTestUtil.h"

#include <QJsonArray>

namespace sy::api::responses {
namespace {

using test::events;
using test::object;
using test::types;

WriterOptions options()
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/gpt");
    o.requestId = "req_7";
    return o;
}

StreamEvent start()
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::Start;
    e.id = QStringLiteral("upstream-id");
    return e;
}

StreamEvent blockStart(int index, ContentPart::Kind kind, const QString &callId = {}, const QString &name = {})
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::BlockStart;
    e.index = index;
    e.blockKind = kind;
    e.toolCallId = callId;
    e.toolName = name;
    return e;
}

StreamEvent text(int index, const QString &piece, ContentPart::Kind kind = ContentPart::Kind::Text)
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::Delta;
    e.index = index;
    e.blockKind = kind;
    e.text = piece;
    return e;
}

StreamEvent arguments(int index, const QByteArray &piece)
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::Delta;
    e.index = index;
    e.blockKind = ContentPart::Kind::ToolCall;
    e.argumentsDelta = piece;
    return e;
}

StreamEvent signature(int index, const QString &piece)
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::Delta;
    e.index = index;
    e.blockKind = ContentPart::Kind::Thinking;
    e.signature = piece;
    return e;
}

StreamEvent blockStop(int index)
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::BlockStop;
    e.index = index;
    return e;
}

StreamEvent finish(StopReason reason, TokenUsage usage = {})
{
    StreamEvent e;
    e.kind = StreamEvent::Kind::Finish;
    e.stopReason = reason;
    e.usage = usage;
    return e;
}

QByteArray written(ResponsesStreamWriter &writer, const std::vector<StreamEvent> &stream)
{
    QByteArray out;
    for (const StreamEvent &e : stream)
        out += writer.write(e);
    return out + writer.end();
}

void expectNumbered(const QList<QJsonObject> &list)
{
    for (qsizetype i = 0; i < list.size(); ++i)
        EXPECT_EQ(list[i].value("sequence_number").toInteger(), i) << list[i].value("type").toString().toStdString();
}

TEST(ResponsesStreamWriterTest, TextStreamIsTheFullEventSequence)
{
    ResponsesStreamWriter writer(options());
    const QByteArray bytes = written(writer, {start(), blockStart(0, ContentPart::Kind::Text), text(0, "Hel"), text(0, "lo"),
                                              blockStop(0), finish(StopReason::EndTurn, {4, 2, 0, 0, true})});
    EXPECT_FALSE(bytes.contains("[DONE]"));
    const QList<QJsonObject> list = events(bytes);
    EXPECT_EQ(types(list), QStringList({"response.created", "response.in_progress", "response.output_item.added",
                                        "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
                                        "response.output_text.done", "response.content_part.done", "response.output_item.done",
                                        "response.completed"}));
    expectNumbered(list);

    const QJsonObject created = list[0].value("response").toObject();
    EXPECT_EQ(created.value("id"), "resp_7");
    EXPECT_EQ(created.value("status"), "in_progress");
    EXPECT_EQ(created.value("model"), "team/gpt");
    EXPECT_TRUE(created.value("output").toArray().isEmpty());

    EXPECT_EQ(list[2].value("item").toObject(), object(R"({"type":"message","id":"msg_7_0","status":"in_progress","role":"assistant","content":[]})"));
    EXPECT_EQ(list[2].value("output_index"), 0);
    EXPECT_EQ(list[3].value("part").toObject(), object(R"({"type":"output_text","text":"","annotations":[]})"));
    EXPECT_EQ(list[4].value("delta"), "Hel");
    EXPECT_EQ(list[4].value("item_id"), "msg_7_0");
    EXPECT_EQ(list[4].value("content_index"), 0);
    EXPECT_EQ(list[6].value("text"), "Hello");
    EXPECT_EQ(list[7].value("part").toObject(), object(R"({"type":"output_text","text":"Hello","annotations":[]})"));
    const QJsonObject doneItem = list[8].value("item").toObject();
    EXPECT_EQ(doneItem.value("status"), "completed");

    const QJsonObject completed = list[9].value("response").toObject();
    EXPECT_EQ(completed.value("status"), "completed");
    EXPECT_EQ(completed.value("output").toArray(), QJsonArray{doneItem});
    EXPECT_EQ(completed.value("output_text"), "Hello");
    EXPECT_EQ(completed.value("usage").toObject().value("total_tokens"), 6);
    EXPECT_EQ(completed.value("created_at"), created.value("created_at"));
}

TEST(ResponsesStreamWriterTest, FunctionCallStreamsItsArguments)
{
    ResponsesStreamWriter writer(options());
    const QByteArray bytes = written(writer, {start(), blockStart(0, ContentPart::Kind::Text), text(0, "Checking."), blockStop(0),
                                              blockStart(1, ContentPart::Kind::ToolCall, "call_9", "weather"),
                                              arguments(1, R"({"city":)"), arguments(1, R"("Oslo"})"), blockStop(1),
                                              finish(StopReason::ToolUse)});
    const QList<QJsonObject> list = events(bytes);
    const QStringList sequence = types(list);
    const qsizetype added = sequence.lastIndexOf("response.output_item.added");
    ASSERT_GT(added, 0);
    EXPECT_EQ(sequence.mid(added), QStringList({"response.output_item.added", "response.function_call_arguments.delta",
                                                "response.function_call_arguments.delta", "response.function_call_arguments.done",
                                                "response.output_item.done", "response.completed"}));
    expectNumbered(list);
    EXPECT_EQ(list[added].value("output_index"), 1);
    EXPECT_EQ(list[added].value("item").toObject(), object(R"({"type":"function_call","id":"fc_7_1","status":"in_progress",
        "call_id":"call_9","name":"weather","arguments":""})"));
    EXPECT_EQ(list[added + 1].value("delta"), R"({"city":)");
    EXPECT_EQ(list[added + 1].value("item_id"), "fc_7_1");
    EXPECT_EQ(list[added + 3].value("arguments"), R"({"city":"Oslo"})");
    const QJsonObject call = list[added + 4].value("item").toObject();
    EXPECT_EQ(call, object(R"({"type":"function_call","id":"fc_7_1","status":"completed","call_id":"call_9","name":"weather",
        "arguments":"{\"city\":\"Oslo\"}"})"));
    const QJsonArray output = list.last().value("response").toObject().value("output").toArray();
    ASSERT_EQ(output.size(), 2);
    EXPECT_EQ(output[0].toObject().value("id"), "msg_7_0");
    EXPECT_EQ(output[1].toObject(), call);
}

TEST(ResponsesStreamWriterTest, ThinkingIsAReasoningSummaryWithItsSignature)
{
    ResponsesStreamWriter writer(options());
    const QByteArray bytes = written(writer, {start(), blockStart(0, ContentPart::Kind::Thinking),
                                              text(0, "hmm", ContentPart::Kind::Thinking), signature(0, "sig-"), signature(0, "1"),
                                              blockStop(0), blockStart(1, ContentPart::Kind::Text), text(1, "Yes"), blockStop(1),
                                              finish(StopReason::EndTurn)});
    const QList<QJsonObject> list = events(bytes);
    EXPECT_EQ(types(list).mid(2, 6), QStringList({"response.output_item.added", "response.reasoning_summary_part.added",
                                                  "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
                                                  "response.reasoning_summary_part.done", "response.output_item.done"}));
    expectNumbered(list);
    EXPECT_EQ(list[4].value("delta"), "hmm");
    EXPECT_EQ(list[4].value("summary_index"), 0);
    const QJsonObject reasoning = object(R"({"type":"reasoning","id":"rs_7_0","summary":[{"type":"summary_text","text":"hmm"}],
        "encrypted_content":"sig-1"})");
    EXPECT_EQ(list[7].value("item").toObject(), reasoning);
    const QJsonObject response = list.last().value("response").toObject();
    EXPECT_EQ(response.value("output").toArray().at(0).toObject(), reasoning);
    EXPECT_EQ(response.value("output_text"), "Yes");
}

TEST(ResponsesStreamWriterTest, RedactedThinkingHasNoSummaryEvents)
{
    ResponsesStreamWriter writer(options());
    const QList<QJsonObject> list = events(written(writer, {start(), blockStart(0, ContentPart::Kind::Thinking), signature(0, "opaque"),
                                                            blockStop(0), finish(StopReason::EndTurn)}));
    EXPECT_EQ(types(list), QStringList({"response.created", "response.in_progress", "response.output_item.added",
                                        "response.output_item.done", "response.completed"}));
    EXPECT_EQ(list[3].value("item").toObject(), object(R"({"type":"reasoning","id":"rs_7_0","summary":[],"encrypted_content":"opaque"})"));
}

TEST(ResponsesStreamWriterTest, MaxTokensEndsInResponseIncomplete)
{
    ResponsesStreamWriter writer(options());
    const QList<QJsonObject> list = events(written(writer, {start(), blockStart(0, ContentPart::Kind::Text), text(0, "cut"),
                                                            finish(StopReason::MaxTokens)}));
    EXPECT_EQ(types(list).mid(5), QStringList({"response.output_text.done", "response.content_part.done",
                                               "response.output_item.done", "response.incomplete"}));
    const QJsonObject response = list.last().value("response").toObject();
    EXPECT_EQ(response.value("status"), "incomplete");
    EXPECT_EQ(response.value("incomplete_details").toObject(), object(R"({"reason":"max_output_tokens"})"));
    EXPECT_EQ(response.value("output_text"), "cut");
}

TEST(ResponsesStreamWriterTest, InterruptedIsResponseFailedAndNothingAfter)
{
    ResponsesStreamWriter writer(options());
    QByteArray bytes = writer.write(start());
    bytes += writer.write(blockStart(0, ContentPart::Kind::Text));
    bytes += writer.write(text(0, "half"));
    bytes += writer.interrupted(QStringLiteral("upstream reset"));
    EXPECT_TRUE(writer.write(text(0, "more")).isEmpty());
    EXPECT_TRUE(writer.end().isEmpty());
    EXPECT_TRUE(writer.interrupted(QStringLiteral("again")).isEmpty());
    EXPECT_FALSE(bytes.contains("[DONE]"));

    const QList<QJsonObject> list = events(bytes);
    expectNumbered(list);
    ASSERT_EQ(list.last().value("type"), "response.failed");
    const QJsonObject response = list.last().value("response").toObject();
    EXPECT_EQ(response.value("status"), "failed");
    EXPECT_EQ(response.value("error").toObject(), object(R"({"code":"stream_interrupted","message":"upstream reset"})"));
    ASSERT_EQ(response.value("output").toArray().size(), 1);
    EXPECT_EQ(response.value("output").toArray().at(0).toObject().value("status"), "incomplete");
    EXPECT_EQ(response.value("output_text"), "half");
}

TEST(ResponsesStreamWriterTest, InterruptedBeforeAnythingStillOpensTheResponse)
{
    ResponsesStreamWriter writer(options());
    EXPECT_EQ(types(events(writer.interrupted(QStringLiteral("x")))),
              QStringList({"response.created", "response.in_progress", "response.failed"}));
}

TEST(ResponsesStreamWriterTest, StreamEndedWithoutFinishStillCompletes)
{
    ResponsesStreamWriter writer(options());
    const QList<QJsonObject> list = events(written(writer, {start(), blockStart(0, ContentPart::Kind::Text), text(0, "ok")}));
    EXPECT_EQ(types(list).mid(5), QStringList({"response.output_text.done", "response.content_part.done",
                                               "response.output_item.done", "response.completed"}));
}

} // namespace
} // namespace sy::api::responses
