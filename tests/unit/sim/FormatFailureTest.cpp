// Every scripted failure kind in every chat format: the same rule gives each client its own
// format's error bodies, stream cuts, empty answers and error events.
#include "AnthropicFormat.h"
#include "GeminiFormat.h"
#include "OpenAiFormat.h"
#include "SimServerFixture.h"

#include <QJsonArray>
#include <functional>

namespace sy::sim::test {
namespace {

using namespace std::chrono_literals;

struct ChatFormat {
    const char *name;
    QByteArray plainPath;
    QByteArray streamPath;
    QByteArray plainBody;
    QByteArray streamBody;
    sy::test::HeaderList headers;
    // The error kind an error body names (error.type / error.status), and the one expected.
    std::function<QString(const QJsonObject &)> errorKind;
    std::function<QString(int)> expectedKind;
    // Words of text content in a stream body as far as it arrived.
    std::function<int(const QByteArray &)> streamedWords;
    // A 200 plain body with no content.
    std::function<bool(const QJsonObject &)> hasNoContent;
    // The error object that ended a stream body (error_mid_stream), or an empty one.
    std::function<QJsonObject(const QByteArray &)> streamErrorEvent;
};

QList<QPair<QByteArray, QByteArray>> events(const QByteArray &body) { return namedEvents(body); }

QList<QByteArray> dataLines(const QByteArray &body)
{
    QList<QByteArray> out;
    for (const QByteArray &line : body.split('\n'))
        if (line.startsWith("data: "))
            out.append(line.mid(6));
    return out;
}

ChatFormat openAi()
{
    return {"openai", "/openai/v1/chat/completions", "/openai/v1/chat/completions",
            R"({"model":"m","messages":[]})", R"({"model":"m","stream":true,"messages":[]})", {},
            [](const QJsonObject &body) { return body["error"]["type"].toString(); },
            [](int status) { return QString::fromLatin1(OpenAiFormat::errorTypeAndCode(status).first); },
            [](const QByteArray &body) {
                int words = 0;
                for (const QByteArray &data : dataLines(body))
                    words += QJsonDocument::fromJson(data)["choices"][0]["delta"]["content"].toString().isEmpty() ? 0 : 1;
                return words;
            },
            [](const QJsonObject &body) { return body["choices"].toArray().isEmpty(); },
            [](const QByteArray &body) {
                const QList<QByteArray> data = dataLines(body);
                return data.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(data.last()).object()["error"].toObject();
            }};
}

ChatFormat anthropic()
{
    return {"anthropic", "/anthropic/v1/messages", "/anthropic/v1/messages",
            R"({"model":"m","max_tokens":64,"messages":[]})", R"({"model":"m","max_tokens":64,"stream":true,"messages":[]})",
            {{"x-api-key", "sk-test-anthropic"}, {"anthropic-version", "2023-06-01"}},
            [](const QJsonObject &body) { return body["type"].toString() == u"error" ? body["error"]["type"].toString() : QString(); },
            [](int status) { return QString::fromLatin1(AnthropicFormat::errorType(status)); },
            [](const QByteArray &body) {
                int words = 0;
                for (const auto &event : events(body))
                    words += event.first == "content_block_delta" ? 1 : 0;
                return words;
            },
            [](const QJsonObject &body) { return body["content"].toArray().isEmpty() && body["usage"]["output_tokens"].toInt(-1) == 0; },
            [](const QByteArray &body) {
                const auto all = events(body);
                if (all.isEmpty() || all.last().first != "error")
                    return QJsonObject();
                const QJsonObject payload = QJsonDocument::fromJson(all.last().second).object();
                return payload["type"].toString() == u"error" ? payload["error"].toObject() : QJsonObject();
            }};
}

ChatFormat gemini()
{
    return {"gemini", "/gemini/v1beta/models/m:generateContent", "/gemini/v1beta/models/m:streamGenerateContent?alt=sse",
            R"({"contents":[]})", R"({"contents":[]})", {{"x-goog-api-key", "sk-test-gemini"}},
            [](const QJsonObject &body) { return body["error"]["status"].toString(); },
            [](int status) { return QString::fromLatin1(GeminiFormat::errorStatus(status)); },
            [](const QByteArray &body) {
                int words = 0;
                for (const QByteArray &data : dataLines(body))
                    words += QJsonDocument::fromJson(data)["candidates"][0]["content"]["parts"][0]["text"].toString().isEmpty() ? 0 : 1;
                return words;
            },
            [](const QJsonObject &body) { return body["candidates"].toArray().isEmpty(); },
            [](const QByteArray &body) {
                const QList<QByteArray> data = dataLines(body);
                return data.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(data.last()).object()["error"].toObject();
            }};
}

class FormatFailureTest : public SimServerFixture, public ::testing::WithParamInterface<ChatFormat> {
protected:
    std::unique_ptr<RawHttpClient> plain() { return call("POST", GetParam().plainPath, GetParam().plainBody, GetParam().headers); }
    std::unique_ptr<RawHttpClient> stream() { return call("POST", GetParam().streamPath, GetParam().streamBody, GetParam().headers); }
};

TEST_P(FormatFailureTest, StatusFailuresAnswerInTheFormatsErrorShape)
{
    for (const int status : {400, 401, 404, 429, 500, 503, 529}) {
        putRules(R"({"rules":[{"failure":"status:)" + QByteArray::number(status) + R"(","retry_after_s":4}]})");
        for (const bool streamed : {false, true}) {
            const auto client = streamed ? stream() : plain();
            EXPECT_EQ(client->status(), status);
            const QJsonObject body = json(client->body());
            EXPECT_EQ(GetParam().errorKind(body), GetParam().expectedKind(status)) << status << client->body().constData();
            EXPECT_EQ(client->header("retry-after"), status == 429 ? "4" : "");
        }
    }
}

TEST_P(FormatFailureTest, OverloadedIsTheFormatsOverloadedKind)
{
    putRules(R"({"rules":[{"failure":"status:529"}]})");
    const QString kind = GetParam().errorKind(json(plain()->body()));
    if (QByteArrayView(GetParam().name) == "anthropic") {
        EXPECT_EQ(kind, u"overloaded_error");
    }
    EXPECT_FALSE(kind.isEmpty());
}

TEST_P(FormatFailureTest, ResetClosesBeforeAnyHeader)
{
    putRules(R"({"rules":[{"failure":"reset"}]})");
    for (const bool streamed : {false, true}) {
        const auto client = streamed ? stream() : plain();
        EXPECT_TRUE(client->isClosed());
        EXPECT_EQ(client->bytesReceived(), 0);
    }
}

TEST_P(FormatFailureTest, HangNeverAnswers)
{
    putRules(R"({"rules":[{"failure":"hang"}]})");
    RawHttpClient client(port);
    client.send("POST", GetParam().streamPath, GetParam().streamBody, GetParam().headers);
    sy::test::processEventsFor(300ms);
    EXPECT_EQ(client.bytesReceived(), 0);
    EXPECT_FALSE(client.isClosed());
    EXPECT_EQ(server->stats().inFlight(), 1);
}

TEST_P(FormatFailureTest, DropMidStreamSendsSomeWordsThenCloses)
{
    putRules(R"({"rules":[{"failure":"drop_mid_stream","drop_after_chunks":3}]})");
    const auto client = stream();
    EXPECT_EQ(client->status(), 200);
    EXPECT_TRUE(client->isClosed());
    EXPECT_FALSE(client->isComplete());
    EXPECT_EQ(GetParam().streamedWords(client->body()), 3);
    const auto cut = plain();
    EXPECT_EQ(cut->status(), 200);
    EXPECT_TRUE(cut->isClosed());
    EXPECT_TRUE(QJsonDocument::fromJson(cut->body()).isNull());
}

TEST_P(FormatFailureTest, ErrorMidStreamEndsTheStreamWithTheFormatsErrorEvent)
{
    putRules(R"({"rules":[{"failure":"error_mid_stream:529","drop_after_chunks":2}]})");
    const auto client = stream();
    EXPECT_EQ(client->status(), 200);
    EXPECT_TRUE(client->isComplete());  // ended cleanly, not cut
    EXPECT_EQ(GetParam().streamedWords(client->body()), 2);
    const QJsonObject error = GetParam().streamErrorEvent(client->body());
    EXPECT_FALSE(error["message"].toString().isEmpty()) << client->body().constData();
    EXPECT_EQ(GetParam().errorKind(QJsonObject{{"type", "error"}, {"error", error}}), GetParam().expectedKind(529));
    EXPECT_FALSE(client->body().contains("[DONE]"));
    EXPECT_FALSE(client->body().contains("message_stop"));
    EXPECT_EQ(plain()->status(), 529);
    EXPECT_EQ(getStats()["failures"]["error_mid_stream:529"].toInt(), 2);
}

TEST_P(FormatFailureTest, Empty200HasNoContent)
{
    putRules(R"({"rules":[{"failure":"empty_200"}]})");
    const auto client = plain();
    EXPECT_EQ(client->status(), 200);
    EXPECT_TRUE(GetParam().hasNoContent(json(client->body()))) << client->body().constData();
    const auto streamed = stream();
    EXPECT_EQ(streamed->status(), 200);
    EXPECT_TRUE(streamed->isComplete());
    EXPECT_EQ(GetParam().streamedWords(streamed->body()), 0);
}

TEST_P(FormatFailureTest, MalformedSseSendsAnEventThatIsNotJson)
{
    putRules(R"({"rules":[{"failure":"malformed_sse"}]})");
    const auto streamed = stream();
    EXPECT_EQ(streamed->status(), 200);
    EXPECT_TRUE(streamed->body().contains("data: {not json\n\n")) << streamed->body().constData();
    EXPECT_TRUE(QJsonDocument::fromJson(plain()->body()).isNull());
}

TEST_P(FormatFailureTest, SlowStreamTakesItsTimeToFirstTokenAndPace)
{
    putRules(R"({"rules":[{"ttft_ms":100,"tokens_per_s":100,"output_tokens":5}]})");
    const auto client = stream();
    EXPECT_TRUE(client->isComplete());
    EXPECT_EQ(GetParam().streamedWords(client->body()), 5);
    EXPECT_GE(*client->msToComplete(), 130);  // 100 ms, then 4 more words at 10 ms each
}

INSTANTIATE_TEST_SUITE_P(Formats, FormatFailureTest, ::testing::Values(openAi(), anthropic(), gemini()),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(GeminiArrayStreamTest, ErrorMidStreamIsTheLastElementOfTheArray)
{
    SimServer server;
    const quint16 port = server.listen(QHostAddress::LocalHost, 0);
    ASSERT_NE(port, 0);
    server.applyScript(*parseScript(R"({"rules":[{"failure":"error_mid_stream:503","drop_after_chunks":1}]})").script);
    RawHttpClient client(port);
    client.send("POST", "/v1beta/models/m:streamGenerateContent", R"({"contents":[]})", {{"x-goog-api-key", "k"}});
    ASSERT_TRUE(client.waitForEnd());
    const QJsonArray array = QJsonDocument::fromJson(client.body()).array();
    ASSERT_EQ(array.size(), 2) << client.body().constData();
    EXPECT_EQ(array.at(1)["error"]["status"].toString(), u"UNAVAILABLE");
}

} // namespace
} // namespace sy::sim::test
