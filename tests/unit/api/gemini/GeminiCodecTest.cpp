// The Gemini client side: answers, streams (SSE and JSON array) and error bodies in the shapes
// Google's SDKs read.
#include "api/gemini/GeminiCodec.h"

#include "GeminiTestUtil.h"

namespace sy::api::gemini {
namespace {

using test::arrayChunks;
using test::object;
using test::parts;
using test::sseChunks;

WriterOptions options(bool jsonArray = false)
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/gem");
    o.requestId = "req-42";
    o.jsonArrayStream = jsonArray;
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

StreamEvent ev(StreamEvent::Kind kind, ContentPart::Kind block = ContentPart::Kind::Text)
{
    StreamEvent e;
    e.kind = kind;
    e.blockKind = block;
    return e;
}

StreamEvent textDelta(const QString &text, ContentPart::Kind block = ContentPart::Kind::Text)
{
    StreamEvent e = ev(StreamEvent::Kind::Delta, block);
    e.text = text;
    return e;
}

// A stream with a text block, a tool call in two argument pieces, and a Finish.
QByteArray writeToolStream(StreamWriter &writer)
{
    QByteArray out;
    StreamEvent start = ev(StreamEvent::Kind::Start);
    start.id = QStringLiteral("resp-9");
    out += writer.write(start);
    out += writer.write(ev(StreamEvent::Kind::BlockStart));
    out += writer.write(textDelta("Hel"));
    out += writer.write(textDelta("lo"));
    out += writer.write(ev(StreamEvent::Kind::BlockStop));
    StreamEvent call = ev(StreamEvent::Kind::BlockStart, ContentPart::Kind::ToolCall);
    call.toolCallId = QStringLiteral("call_1");
    call.toolName = QStringLiteral("weather");
    out += writer.write(call);
    StreamEvent piece = ev(StreamEvent::Kind::Delta, ContentPart::Kind::ToolCall);
    piece.argumentsDelta = R"({"city":)";
    out += writer.write(piece);
    piece.argumentsDelta = R"("Oslo"})";
    out += writer.write(piece);
    out += writer.write(ev(StreamEvent::Kind::BlockStop, ContentPart::Kind::ToolCall));
    StreamEvent finish = ev(StreamEvent::Kind::Finish);
    finish.stopReason = StopReason::ToolUse;
    finish.usage = {12, 7, 0, 0, true};
    out += writer.write(finish);
    out += writer.end();
    return out;
}

void expectToolStream(const QList<QJsonObject> &chunks)
{
    ASSERT_EQ(chunks.size(), 4);
    EXPECT_EQ(parts(chunks[0]), QJsonArray{object(R"({"text":"Hel"})")});
    EXPECT_EQ(parts(chunks[1]), QJsonArray{object(R"({"text":"lo"})")});
    // The call arrives whole, never as pieces of its arguments.
    EXPECT_EQ(parts(chunks[2]), QJsonArray{object(R"({"functionCall":{"id":"call_1","name":"weather","args":{"city":"Oslo"}}})")});
    for (const QJsonObject &chunk : chunks) {
        EXPECT_EQ(chunk.value("modelVersion"), "team/gem");
        EXPECT_EQ(chunk.value("responseId"), "resp-9");
        EXPECT_EQ(chunk.value("candidates").toArray().at(0).toObject().value("content").toObject().value("role"), "model");
    }
    for (qsizetype i = 0; i < 3; ++i) {
        EXPECT_FALSE(chunks[i].value("candidates").toArray().at(0).toObject().contains("finishReason"));
        EXPECT_FALSE(chunks[i].contains("usageMetadata"));
    }
    const QJsonObject last = chunks[3];
    EXPECT_EQ(last.value("candidates").toArray().at(0).toObject().value("finishReason"), "STOP");
    EXPECT_EQ(last.value("usageMetadata").toObject(),
              object(R"({"promptTokenCount":12,"candidatesTokenCount":7,"totalTokenCount":19})"));
}

TEST(GeminiCodecTest, AnswerBodyIsAGenerateContentResponse)
{
    CanonicalAnswer answer;
    answer.id = QStringLiteral("chatcmpl-7");
    answer.model = QStringLiteral("upstream-name");
    ContentPart thinking;
    thinking.kind = ContentPart::Kind::Thinking;
    thinking.text = QStringLiteral("ponder");
    answer.parts = {thinking, ContentPart::textPart(QStringLiteral("Hello")), toolCall("call_1", "get_weather", R"({"city":"Oslo"})")};
    answer.stopReason = StopReason::ToolUse;
    answer.usage = {10, 5, 3, 2, true};

    EXPECT_EQ(object(GeminiCodec().answerBody(answer, options())), object(R"({
        "candidates":[{"content":{"role":"model","parts":[{"text":"ponder","thought":true},{"text":"Hello"},
                       {"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Oslo"}}}]},
                       "finishReason":"STOP","index":0}],
        "usageMetadata":{"promptTokenCount":15,"candidatesTokenCount":5,"totalTokenCount":20,"cachedContentTokenCount":3},
        "modelVersion":"team/gem","responseId":"chatcmpl-7"})"));
}

TEST(GeminiCodecTest, ResponseIdComesFromTheRequestIdWhenTheAnswerHasNone)
{
    CanonicalAnswer answer;
    answer.parts = {ContentPart::textPart("x")};
    EXPECT_EQ(object(GeminiCodec().answerBody(answer, options())).value("responseId"), "req-42");
    EXPECT_FALSE(object(GeminiCodec().answerBody(answer, options())).value("usageMetadata").toObject().contains("cachedContentTokenCount"));
}

TEST(GeminiCodecTest, FinishReasons)
{
    const std::vector<std::pair<StopReason, QString>> rows{
        {StopReason::EndTurn, "STOP"}, {StopReason::ToolUse, "STOP"}, {StopReason::MaxTokens, "MAX_TOKENS"},
        {StopReason::ContentFilter, "SAFETY"}, {StopReason::StopSequence, "STOP"}, {StopReason::Unknown, "STOP"}};
    for (const auto &[reason, name] : rows) {
        SCOPED_TRACE(name.toStdString());
        CanonicalAnswer answer;
        answer.parts = {ContentPart::textPart("x")};
        answer.stopReason = reason;
        const QJsonObject body = object(GeminiCodec().answerBody(answer, options()));
        EXPECT_EQ(body.value("candidates").toArray().at(0).toObject().value("finishReason"), name);
    }
}

TEST(GeminiCodecTest, StreamAsServerSentEvents)
{
    const std::unique_ptr<StreamWriter> writer = GeminiCodec().streamWriter(options());
    const QByteArray bytes = writeToolStream(*writer);
    EXPECT_FALSE(bytes.startsWith('['));
    expectToolStream(sseChunks(bytes));
}

TEST(GeminiCodecTest, StreamAsOneJsonArray)
{
    const std::unique_ptr<StreamWriter> writer = GeminiCodec().streamWriter(options(true));
    const QByteArray bytes = writeToolStream(*writer);
    EXPECT_TRUE(bytes.startsWith("[{")) << bytes.toStdString();
    EXPECT_TRUE(bytes.endsWith("}\n]")) << bytes.toStdString();
    EXPECT_TRUE(bytes.contains("}\n,{")) << bytes.toStdString();
    expectToolStream(arrayChunks(bytes));
}

TEST(GeminiCodecTest, ThoughtDeltasAreThoughtPartsAndAToolCallLeftOpenIsWrittenAtFinish)
{
    const std::unique_ptr<StreamWriter> writer = GeminiCodec().streamWriter(options());
    QByteArray bytes = writer->write(textDelta("hmm", ContentPart::Kind::Thinking));
    StreamEvent call = ev(StreamEvent::Kind::BlockStart, ContentPart::Kind::ToolCall);
    call.toolName = QStringLiteral("f");
    bytes += writer->write(call);
    bytes += writer->write(ev(StreamEvent::Kind::Finish));
    bytes += writer->write(textDelta("after the end"));
    bytes += writer->end();
    const QList<QJsonObject> chunks = sseChunks(bytes);
    ASSERT_EQ(chunks.size(), 3) << bytes.toStdString();
    EXPECT_EQ(parts(chunks[0]), QJsonArray{object(R"({"text":"hmm","thought":true})")});
    EXPECT_EQ(parts(chunks[1]), QJsonArray{object(R"({"functionCall":{"name":"f","args":{}}})")});
    EXPECT_EQ(chunks[2].value("candidates").toArray().at(0).toObject().value("finishReason"), "STOP");
    EXPECT_EQ(chunks[2].value("responseId"), "req-42");
}

TEST(GeminiCodecTest, EndWithoutFinishStillWritesTheLastChunkAndAnEmptyArrayIsValid)
{
    const std::unique_ptr<StreamWriter> sse = GeminiCodec().streamWriter(options());
    QByteArray bytes = sse->write(textDelta("x"));
    bytes += sse->end();
    const QList<QJsonObject> chunks = sseChunks(bytes);
    ASSERT_EQ(chunks.size(), 2);
    EXPECT_TRUE(chunks[1].contains("usageMetadata"));

    const std::unique_ptr<StreamWriter> array = GeminiCodec().streamWriter(options(true));
    EXPECT_EQ(arrayChunks(array->end()).size(), 1);
}

TEST(GeminiCodecTest, InterruptedStreamEndsWithAnErrorObject)
{
    for (const bool jsonArray : {false, true}) {
        SCOPED_TRACE(jsonArray ? "array" : "sse");
        const std::unique_ptr<StreamWriter> writer = GeminiCodec().streamWriter(options(jsonArray));
        QByteArray bytes = writer->write(textDelta("partial"));
        bytes += writer->interrupted(QStringLiteral("upstream reset"));
        bytes += writer->write(textDelta("more"));
        bytes += writer->end();
        const QList<QJsonObject> chunks = jsonArray ? arrayChunks(bytes) : sseChunks(bytes);
        ASSERT_EQ(chunks.size(), 2) << bytes.toStdString();
        const QJsonObject error = chunks[1].value("error").toObject();
        EXPECT_EQ(error.value("code"), 500);
        EXPECT_EQ(error.value("status"), "INTERNAL");
        EXPECT_EQ(error.value("message"), "upstream reset");
        EXPECT_EQ(error.value("details").toArray().at(0).toObject().value("reason"), "stream_interrupted");
    }
}

TEST(GeminiCodecTest, ErrorBodiesCarryStatusAndReason)
{
    const std::vector<std::tuple<int, QByteArray, QString>> rows{
        {400, "invalid_json", "INVALID_ARGUMENT"}, {401, "invalid_api_key", "UNAUTHENTICATED"},
        {402, "insufficient_balance", "RESOURCE_EXHAUSTED"}, {403, "guardrail_blocked", "PERMISSION_DENIED"},
        {404, "unknown_route", "NOT_FOUND"}, {404, "model_not_found", "NOT_FOUND"}, {405, "method_not_allowed", "UNIMPLEMENTED"},
        {413, "body_too_large", "INVALID_ARGUMENT"}, {429, "rate_limited", "RESOURCE_EXHAUSTED"}, {499, "cancelled", "CANCELLED"},
        {500, "internal", "INTERNAL"}, {501, "unsupported_format", "UNIMPLEMENTED"}, {502, "all_failed", "UNAVAILABLE"},
        {503, "model_disabled", "UNAVAILABLE"}, {504, "timeout", "DEADLINE_EXCEEDED"}};
    for (const auto &[status, code, name] : rows) {
        SCOPED_TRACE(status);
        ApiError error;
        error.status = status;
        error.message = QStringLiteral("went wrong");
        error.code = code;
        const QJsonObject inner = object(GeminiCodec().errorBody(error)).value("error").toObject();
        EXPECT_EQ(inner.value("code"), status);
        EXPECT_EQ(inner.value("message"), "went wrong");
        EXPECT_EQ(inner.value("status"), name);
        EXPECT_EQ(inner.value("details").toArray(), QJsonArray{object(R"({"@type":"type.googleapis.com/google.rpc.ErrorInfo",
            "reason":")" + code + R"(","domain":"switchyard"})")});
    }
}

TEST(GeminiCodecTest, ErrorWithoutCodeStillHasAReasonAndAFieldNamesABadRequestDetail)
{
    ApiError error;
    error.status = 400;
    error.message = QStringLiteral("contents[0].parts[0]: unsupported part kind 'x'");
    error.param = QStringLiteral("contents[0].parts[0]");
    error.metadata = QJsonObject{{"attempts", QJsonArray{}}};
    const QJsonObject inner = object(GeminiCodec().errorBody(error)).value("error").toObject();
    const QJsonArray details = inner.value("details").toArray();
    ASSERT_EQ(details.size(), 2);
    EXPECT_EQ(details[0].toObject().value("reason"), "invalid_argument");
    EXPECT_EQ(details[1].toObject(), object(R"({"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":
        [{"field":"contents[0].parts[0]","description":"contents[0].parts[0]: unsupported part kind 'x'"}]})"));
    EXPECT_EQ(inner.value("metadata").toObject(), error.metadata);
}

} // namespace
} // namespace sy::api::gemini
