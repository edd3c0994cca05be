// Canonical streams written as chat.completion.chunk events: the exact sequence OpenAI sends,
// tool call indexes counted per call, the usage chunk only when asked, [DONE] and the SPEC §5
// interrupted signal.
#include "api/openai/OpenAiCodec.h"
#include "JsonPrinting.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

// The `data:` payloads of SSE bytes, in order (each must be one compact line).
QList<QByteArray> dataOf(const QByteArray &sse)
{
    QList<QByteArray> out;
    for (const QByteArray &event : sse.split('\n')) {
        if (event.isEmpty())
            continue;
        EXPECT_TRUE(event.startsWith("data: ")) << sse.toStdString();
        out.append(event.mid(6));
    }
    EXPECT_TRUE(sse.isEmpty() || sse.endsWith("\n\n")) << sse.toStdString();
    return out;
}

QList<QJsonObject> chunksOf(const QByteArray &sse)
{
    QList<QJsonObject> out;
    for (const QByteArray &data : dataOf(sse)) {
        if (data == "[DONE]")
            continue;
        QJsonParseError error;
        out.append(QJsonDocument::fromJson(data, &error).object());
        EXPECT_EQ(error.error, QJsonParseError::NoError) << data.toStdString();
    }
    return out;
}

QJsonObject deltaOf(const QJsonObject &chunk)
{
    return chunk.value("choices").toArray()[0].toObject().value("delta").toObject();
}

QJsonValue finishOf(const QJsonObject &chunk)
{
    return chunk.value("choices").toArray()[0].toObject().value("finish_reason");
}

StreamEvent event(StreamEvent::Kind kind, int index = 0, ContentPart::Kind blockKind = ContentPart::Kind::Text)
{
    StreamEvent e;
    e.kind = kind;
    e.index = index;
    e.blockKind = blockKind;
    return e;
}

StreamEvent textDelta(int index, const QString &text, ContentPart::Kind kind = ContentPart::Kind::Text)
{
    StreamEvent e = event(StreamEvent::Kind::Delta, index, kind);
    e.text = text;
    return e;
}

StreamEvent toolStart(int index, const QString &id, const QString &name)
{
    StreamEvent e = event(StreamEvent::Kind::BlockStart, index, ContentPart::Kind::ToolCall);
    e.toolCallId = id;
    e.toolName = name;
    return e;
}

StreamEvent argumentsDelta(int index, const QByteArray &piece)
{
    StreamEvent e = event(StreamEvent::Kind::Delta, index, ContentPart::Kind::ToolCall);
    e.argumentsDelta = piece;
    return e;
}

StreamEvent finish(StopReason reason, TokenUsage usage = {})
{
    StreamEvent e = event(StreamEvent::Kind::Finish);
    e.stopReason = reason;
    e.usage = usage;
    return e;
}

QByteArray writeAll(StreamWriter &writer, const std::vector<StreamEvent> &events)
{
    QByteArray out;
    for (const StreamEvent &e : events)
        out += writer.write(e);
    return out + writer.end();
}

TEST(OpenAiStreamWriterTest, TextStreamIsRoleChunkContentChunksFinishChunkAndDone)
{
    StreamEvent start = event(StreamEvent::Kind::Start);
    start.id = QStringLiteral("msg_1");
    auto writer = OpenAiCodec().streamWriter(WriterOptions{QStringLiteral("pub/m"), "req-1", false});
    const QByteArray sse = writeAll(*writer, {start, event(StreamEvent::Kind::BlockStart), textDelta(0, "Hel"),
                                              textDelta(0, "lo"), event(StreamEvent::Kind::BlockStop),
                                              finish(StopReason::EndTurn, TokenUsage{3, 2, 0, 0, true})});
    EXPECT_TRUE(sse.endsWith("data: [DONE]\n\n"));
    const QList<QJsonObject> chunks = chunksOf(sse);
    ASSERT_EQ(chunks.size(), 4) << sse.toStdString();
    for (const QJsonObject &chunk : chunks) {
        EXPECT_EQ(chunk.value("id").toString(), u"chatcmpl-msg_1");
        EXPECT_EQ(chunk.value("object").toString(), u"chat.completion.chunk");
        EXPECT_EQ(chunk.value("model").toString(), u"pub/m");
        EXPECT_EQ(chunk.value("created"), chunks[0].value("created"));
        EXPECT_FALSE(chunk.contains("usage")) << "usage was not asked for";
    }
    EXPECT_EQ(deltaOf(chunks[0]), (QJsonObject{{"role", "assistant"}, {"content", ""}}));
    EXPECT_TRUE(finishOf(chunks[0]).isNull());
    EXPECT_EQ(deltaOf(chunks[1]), (QJsonObject{{"content", "Hel"}}));
    EXPECT_EQ(deltaOf(chunks[2]), (QJsonObject{{"content", "lo"}}));
    EXPECT_EQ(deltaOf(chunks[3]), QJsonObject{});
    EXPECT_EQ(finishOf(chunks[3]).toString(), u"stop");
}

TEST(OpenAiStreamWriterTest, ToolCallsAreIndexedByCallNotByBlockAndUsageChunkComesWhenAsked)
{
    auto writer = OpenAiCodec().streamWriter(WriterOptions{QStringLiteral("pub/m"), "req-2", true});
    const QByteArray sse = writeAll(*writer, {
        event(StreamEvent::Kind::Start),
        event(StreamEvent::Kind::BlockStart, 0, ContentPart::Kind::Thinking), textDelta(0, "hmm", ContentPart::Kind::Thinking),
        event(StreamEvent::Kind::BlockStop, 0),
        event(StreamEvent::Kind::BlockStart, 1), textDelta(1, "Checking."), event(StreamEvent::Kind::BlockStop, 1),
        toolStart(2, "toolu_a", "get_weather"), argumentsDelta(2, R"({"city":)"), argumentsDelta(2, R"("Oslo"})"),
        event(StreamEvent::Kind::BlockStop, 2),
        toolStart(3, "toolu_b", "get_time"), argumentsDelta(3, "{}"), event(StreamEvent::Kind::BlockStop, 3),
        finish(StopReason::ToolUse, TokenUsage{10, 20, 5, 0, true}),
    });
    const QList<QJsonObject> chunks = chunksOf(sse);
    ASSERT_EQ(chunks.size(), 10) << sse.toStdString();
    EXPECT_EQ(chunks[0].value("id").toString(), u"chatcmpl-req-2");
    EXPECT_EQ(deltaOf(chunks[1]), (QJsonObject{{"reasoning_content", "hmm"}}));
    EXPECT_EQ(deltaOf(chunks[2]), (QJsonObject{{"content", "Checking."}}));
    EXPECT_EQ(deltaOf(chunks[3]),
              (QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}, {"id", "toolu_a"}, {"type", "function"},
                                                                      {"function", QJsonObject{{"name", "get_weather"}, {"arguments", ""}}}}}}}));
    EXPECT_EQ(deltaOf(chunks[4]),
              (QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}, {"function", QJsonObject{{"arguments", R"({"city":)"}}}}}}}));
    EXPECT_EQ(deltaOf(chunks[5]),
              (QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}, {"function", QJsonObject{{"arguments", R"("Oslo"})"}}}}}}}));
    EXPECT_EQ(deltaOf(chunks[6]).value("tool_calls").toArray()[0].toObject().value("index").toInt(), 1);
    EXPECT_EQ(deltaOf(chunks[6]).value("tool_calls").toArray()[0].toObject().value("id").toString(), u"toolu_b");
    EXPECT_EQ(deltaOf(chunks[7]).value("tool_calls").toArray()[0].toObject().value("index").toInt(), 1);
    EXPECT_EQ(finishOf(chunks[8]).toString(), u"tool_calls");
    for (int i = 0; i <= 8; ++i)
        EXPECT_TRUE(chunks[i].contains("usage") && chunks[i].value("usage").isNull()) << i;

    // The last chunk: no choices, the usage with cache tokens in prompt_tokens.
    EXPECT_EQ(chunks[9].value("choices").toArray(), QJsonArray{});
    EXPECT_EQ(chunks[9].value("id").toString(), u"chatcmpl-req-2");
    EXPECT_EQ(chunks[9].value("usage").toObject(),
              (QJsonObject{{"prompt_tokens", 15}, {"completion_tokens", 20}, {"total_tokens", 35},
                           {"prompt_tokens_details", QJsonObject{{"cached_tokens", 5}}}}));
    EXPECT_TRUE(sse.endsWith("data: [DONE]\n\n"));
}

TEST(OpenAiStreamWriterTest, MissingStartIsSynthesisedAndAMissingFinishStillEndsTheStream)
{
    auto writer = OpenAiCodec().streamWriter(WriterOptions{QStringLiteral("pub/m"), "req-3", true});
    QByteArray sse = writer->write(textDelta(0, "hi"));
    sse += writer->end();
    const QList<QJsonObject> chunks = chunksOf(sse);
    ASSERT_EQ(chunks.size(), 3) << sse.toStdString();
    EXPECT_EQ(deltaOf(chunks[0]), (QJsonObject{{"role", "assistant"}, {"content", ""}}));
    EXPECT_EQ(deltaOf(chunks[1]), (QJsonObject{{"content", "hi"}}));
    EXPECT_EQ(finishOf(chunks[2]).toString(), u"stop");
    EXPECT_EQ(dataOf(sse).last(), "[DONE]");
    EXPECT_EQ(writer->end(), QByteArray()) << "one [DONE] only";
}

TEST(OpenAiStreamWriterTest, UnknownUsageWritesNoUsageChunkEvenWhenAsked)
{
    auto writer = OpenAiCodec().streamWriter(WriterOptions{QStringLiteral("pub/m"), "req-4", true});
    const QList<QJsonObject> chunks = chunksOf(writeAll(*writer, {event(StreamEvent::Kind::Start), finish(StopReason::MaxTokens)}));
    ASSERT_EQ(chunks.size(), 2);
    EXPECT_EQ(finishOf(chunks[1]).toString(), u"length");
}

TEST(OpenAiStreamWriterTest, InterruptedIsTheExactErrorEventAndNothingFollows)
{
    auto writer = OpenAiCodec().streamWriter(WriterOptions{QStringLiteral("pub/m"), "req-5", false});
    writer->write(event(StreamEvent::Kind::Start));
    writer->write(textDelta(0, "partial"));
    EXPECT_EQ(writer->interrupted(QStringLiteral("upstream closed the connection")),
              R"(data: {"error":{"code":"stream_interrupted","message":"upstream closed the connection"}})" "\n\n");
    EXPECT_EQ(writer->write(textDelta(0, "more")), QByteArray());
    EXPECT_EQ(writer->end(), QByteArray()) << "no [DONE] after an interruption";
}

} // namespace
} // namespace sy::api::openai
