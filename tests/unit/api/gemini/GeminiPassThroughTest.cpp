// Gemini client on a gemini channel: the body's bytes kept, the model named by the path, the
// answer and chunks back as they came with modelVersion renamed.
#include "api/gemini/GeminiPassThrough.h"

#include "GeminiTestUtil.h"

namespace sy::api::gemini {
namespace {

using test::arrayChunks;
using test::object;
using test::sseChunks;

ClientRequest client(const QByteArray &raw, bool stream = false)
{
    ClientRequest c;
    c.format = Format::Gemini;
    c.raw = raw;
    c.body = QJsonDocument::fromJson(raw).object();
    c.stream = stream;
    return c;
}

WriterOptions options(bool jsonArray = false)
{
    WriterOptions o;
    o.publicModel = QStringLiteral("team/gem");
    o.requestId = "req-1";
    o.jsonArrayStream = jsonArray;
    return o;
}

SseEvent data(const QByteArray &json)
{
    SseEvent e;
    e.data = json;
    return e;
}

TEST(GeminiPassThroughTest, RequestKeepsEveryByteButTheRoutingFields)
{
    const QByteArray raw = R"({"contents":[{"role":"user","parts":[{"text":"caf\u00e9"}]}],"models":["a","b"],)"
                           R"("safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}],)"
                           R"("provider":{"sort":"price"},"cachedContent":"cachedContents/abc","generationConfig":{"temperature":0.50}})";
    GeminiPassThrough t(client(raw), options());
    const WireRequest wire = t.request("gemini-2.5-pro", "sk-test-goog");
    EXPECT_EQ(wire.path, "/models/gemini-2.5-pro:generateContent");
    EXPECT_EQ(wire.body, QByteArray(R"({"contents":[{"role":"user","parts":[{"text":"caf\u00e9"}]}],)"
                                    R"("safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}],)"
                                    R"("cachedContent":"cachedContents/abc","generationConfig":{"temperature":0.50}})"));
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "application/json"},
                                          {"x-goog-api-key", "sk-test-goog"}}));
}

TEST(GeminiPassThroughTest, StreamRequestsAskForServerSentEvents)
{
    GeminiPassThrough t(client(R"({"contents":[]})", true), options(true));
    const WireRequest wire = t.request("gemini-2.5-pro", {});
    EXPECT_EQ(wire.path, "/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    EXPECT_EQ(wire.headers, (WireHeaders{{"content-type", "application/json"}, {"accept", "text/event-stream"}}));
}

TEST(GeminiPassThroughTest, EscapedKeysFallBackToAJsonRoundTrip)
{
    GeminiPassThrough t(client(R"({"mod\u0065ls":["x"],"contents":[]})"), options());
    EXPECT_EQ(object(t.request("m", {}).body), object(R"({"contents":[]})"));
}

TEST(GeminiPassThroughTest, AnswerKeepsItsBytesWithThePublicModel)
{
    GeminiPassThrough t(client(R"({"contents":[]})"), options());
    const QByteArray body = R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"},{"text":"!"}]},"finishReason":"STOP",)"
                            R"("safetyRatings":[{"category":"X","probability":"NEGLIGIBLE"}]}],)"
                            R"("usageMetadata":{"promptTokenCount":10,"cachedContentTokenCount":4,"candidatesTokenCount":3,"thoughtsTokenCount":2},)"
                            R"("modelVersion":"gemini-2.5-pro-001","responseId":"r1"})";
    const TranslatedAnswer answer = t.answer(body);
    ASSERT_TRUE(answer.problem.isEmpty()) << answer.problem.toStdString();
    QByteArray expected = body;
    expected.replace("gemini-2.5-pro-001", "team/gem");
    EXPECT_EQ(answer.body, expected);
    EXPECT_EQ(answer.text, "Hi!");
    EXPECT_TRUE(answer.usage.known);
    EXPECT_EQ(answer.usage.inputTokens, 6);
    EXPECT_EQ(answer.usage.cacheReadTokens, 4);
    EXPECT_EQ(answer.usage.outputTokens, 5);
}

TEST(GeminiPassThroughTest, AnswersWithoutContentFailOver)
{
    GeminiPassThrough t(client(R"({"contents":[]})"), options());
    for (const QByteArray &body : {QByteArray("nope"), QByteArray(R"({"candidates":[],"usageMetadata":{}})"),
                                  QByteArray(R"({"promptFeedback":{"blockReason":"SAFETY"}})"),
                                  QByteArray(R"({"error":{"code":500,"message":"x"}})")}) {
        SCOPED_TRACE(body.toStdString());
        EXPECT_FALSE(t.answer(body).problem.isEmpty());
    }
}

TEST(GeminiPassThroughTest, StreamChunksAreReframedForTheClient)
{
    const QList<QByteArray> upstream{
        R"({"candidates":[{"content":{"parts":[{"text":"Hel"}]}}],"usageMetadata":{"promptTokenCount":5},"modelVersion":"up"})",
        R"({"candidates":[{"content":{"parts":[{"text":"lo"}]},"finishReason":"STOP"}],)"
        R"("usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2},"modelVersion":"up"})",
    };
    for (const bool jsonArray : {false, true}) {
        SCOPED_TRACE(jsonArray ? "array" : "sse");
        GeminiPassThrough t(client(R"({"contents":[]})", true), options(jsonArray));
        QByteArray bytes;
        std::optional<TokenUsage> usage;
        for (const QByteArray &chunk : upstream) {
            const TranslatedEvent out = t.event(data(chunk));
            EXPECT_TRUE(out.content);
            EXPECT_FALSE(out.malformed);
            if (out.usage)
                usage = out.usage;
            bytes += out.out;
        }
        bytes += t.endOfStream();
        const QList<QJsonObject> chunks = jsonArray ? arrayChunks(bytes) : sseChunks(bytes);
        ASSERT_EQ(chunks.size(), 2) << bytes.toStdString();
        QByteArray second = upstream[1];
        second.replace(R"("up")", R"("team/gem")");
        EXPECT_EQ(chunks[1], object(second));
        ASSERT_TRUE(usage);
        EXPECT_EQ(usage->inputTokens, 5);
        EXPECT_EQ(usage->outputTokens, 2);
    }
}

TEST(GeminiPassThroughTest, UsageOnlyChunkIsNoContentAndErrorsAreUpstreamErrors)
{
    GeminiPassThrough t(client(R"({"contents":[]})", true), options());
    const TranslatedEvent usageOnly = t.event(data(R"({"usageMetadata":{"promptTokenCount":3}})"));
    EXPECT_FALSE(usageOnly.content);
    const TranslatedEvent error = t.event(data(R"({"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}})"));
    EXPECT_TRUE(error.upstreamError);
    EXPECT_EQ(error.errorMessage, "Quota");
    EXPECT_TRUE(error.out.isEmpty());
    EXPECT_TRUE(t.event(data("{not json")).malformed);
}

TEST(GeminiPassThroughTest, InterruptedEndsTheArrayWithAnErrorElement)
{
    GeminiPassThrough t(client(R"({"contents":[]})", true), options(true));
    QByteArray bytes = t.event(data(R"({"candidates":[{"content":{"parts":[{"text":"a"}]}}]})")).out;
    bytes += t.interrupted(QStringLiteral("reset"));
    const QList<QJsonObject> chunks = arrayChunks(bytes);
    ASSERT_EQ(chunks.size(), 2);
    EXPECT_EQ(chunks[1].value("error").toObject().value("status"), "INTERNAL");
}

} // namespace
} // namespace sy::api::gemini
