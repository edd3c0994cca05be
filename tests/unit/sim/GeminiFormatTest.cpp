// Gemini generateContent on the simulator: request reading, plain answers, SSE and JSON-array
// streams, functionCall answers, the key check, the model list and Google-shaped errors.
#include "FormatTestSupport.h"
#include "GeminiFormat.h"
#include "SimServerFixture.h"

#include <QJsonArray>

namespace sy::sim::test {
namespace {

using GeminiFormatTest = SimServerFixture;

const sy::test::HeaderList kKey{{"x-goog-api-key", "sk-test-gemini"}};

constexpr QByteArrayView kHello = R"({"contents":[{"role":"user","parts":[{"text":"0123456789abcdef"}]}]})";

TEST(GeminiRequestTest, ReadsModelFromPathCapSystemPartsAndTools)
{
    const RequestParse parsed = GeminiFormat().parseRequest(postOf(R"({
        "systemInstruction":{"parts":[{"text":"01234567"}]},
        "contents":[{"role":"user","parts":[{"text":"0123"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]},
                    {"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
                    {"role":"user","parts":[{"functionResponse":{"name":"f","response":{"a":1}}}]}],
        "generationConfig":{"maxOutputTokens":7,"temperature":0.2,"stopSequences":["x"]},
        "tools":[{"functionDeclarations":[{"name":"lookup"},{"name":"other"}]}]})", kKey),
        "/v1beta/models/vendor/gem-1:streamGenerateContent");
    ASSERT_TRUE(parsed.request) << qPrintable(parsed.error);
    EXPECT_EQ(parsed.request->model, u"vendor/gem-1");
    EXPECT_TRUE(parsed.request->stream);
    EXPECT_TRUE(parsed.request->jsonArrayStream);
    EXPECT_EQ(parsed.request->maxTokens, 7);
    EXPECT_EQ(parsed.request->promptTokens, 5);  // 8 + 4 + 2 ("{}") + 7 ({"a":1}) characters
    EXPECT_EQ(parsed.request->firstToolName, u"lookup");
    EXPECT_FALSE(parsed.request->lastTurnIsUserText);  // the last turn is a function response
}

TEST(GeminiRequestTest, AltSseSelectsEventFraming)
{
    const RequestParse parsed = GeminiFormat().parseRequest(postOf(kHello.toByteArray(), {}, QStringLiteral("alt=sse&key=k")),
                                                            "/v1beta/models/m:streamGenerateContent");
    ASSERT_TRUE(parsed.request);
    EXPECT_TRUE(parsed.request->stream);
    EXPECT_FALSE(parsed.request->jsonArrayStream);
}

TEST(GeminiRequestTest, KeyIsRequiredInHeaderQueryOrBearer)
{
    const auto parse = [](const http::HttpRequest &request) {
        return GeminiFormat().parseRequest(request, "/v1beta/models/m:generateContent");
    };
    EXPECT_EQ(parse(postOf(kHello.toByteArray())).status, 403);
    EXPECT_TRUE(parse(postOf(kHello.toByteArray(), kKey)).request);
    EXPECT_TRUE(parse(postOf(kHello.toByteArray(), {}, QStringLiteral("key=sk-test-1"))).request);
    EXPECT_TRUE(parse(postOf(kHello.toByteArray(), {{"authorization", "Bearer t"}})).request);
}

TEST(GeminiRequestTest, ContentsAreRequired)
{
    const RequestParse parsed = GeminiFormat().parseRequest(postOf("{}", kKey), "/v1beta/models/m:generateContent");
    EXPECT_FALSE(parsed.request);
    EXPECT_EQ(parsed.status, 400);
}

TEST_F(GeminiFormatTest, PlainAnswerHasGenerateContentResponseShape)
{
    const auto client = call("POST", "/gemini/v1beta/models/gem-1:generateContent", kHello.toByteArray(), kKey);
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject body = json(client->body());
    const QJsonObject candidate = body["candidates"][0].toObject();
    EXPECT_EQ(candidate["content"]["role"].toString(), u"model");
    EXPECT_EQ(candidate["content"]["parts"][0]["text"].toString().split(' ').size(), 16);
    EXPECT_EQ(candidate["finishReason"].toString(), u"STOP");
    EXPECT_EQ(candidate["index"].toInt(-1), 0);
    EXPECT_EQ(body["usageMetadata"]["promptTokenCount"].toInt(), 4);
    EXPECT_EQ(body["usageMetadata"]["candidatesTokenCount"].toInt(), 16);
    EXPECT_EQ(body["usageMetadata"]["totalTokenCount"].toInt(), 20);
    EXPECT_EQ(body["modelVersion"].toString(), u"gem-1");
    EXPECT_EQ(getStats()["provider_models"]["gemini"]["gem-1"].toInt(), 1);
}

TEST_F(GeminiFormatTest, MaxOutputTokensCutIsFinishReasonMaxTokens)
{
    const auto client = call("POST", "/v1beta/models/m:generateContent",
                             R"({"contents":[],"generationConfig":{"maxOutputTokens":2}})", kKey);
    const QJsonObject body = json(client->body());
    EXPECT_EQ(body["candidates"][0]["finishReason"].toString(), u"MAX_TOKENS");
    EXPECT_EQ(body["usageMetadata"]["candidatesTokenCount"].toInt(), 2);
}

TEST_F(GeminiFormatTest, SseStreamSendsOneResponsePerChunkAndFinishesWithUsage)
{
    putRules(R"({"rules":[{"output_tokens":3}]})");
    const auto client = call("POST", "/gemini/v1beta/models/m:streamGenerateContent?alt=sse", kHello.toByteArray(), kKey);
    EXPECT_EQ(client->status(), 200);
    EXPECT_EQ(client->header("content-type"), "text/event-stream");
    EXPECT_TRUE(client->isComplete());
    const QList<QByteArray> events = client->sseData();
    ASSERT_EQ(events.size(), 4);  // 3 words, then the finish with usage
    QString text;
    for (int i = 0; i < 3; ++i) {
        const QJsonObject chunk = json(events[i]);
        text += chunk["candidates"][0]["content"]["parts"][0]["text"].toString();
        EXPECT_FALSE(chunk["candidates"][0].toObject().contains("finishReason"));
    }
    EXPECT_EQ(text.split(' ').size(), 3);
    const QJsonObject last = json(events[3]);
    EXPECT_EQ(last["candidates"][0]["finishReason"].toString(), u"STOP");
    EXPECT_EQ(last["usageMetadata"]["candidatesTokenCount"].toInt(), 3);
    EXPECT_FALSE(client->body().contains("[DONE]"));
}

TEST_F(GeminiFormatTest, StreamWithoutAltSseIsOneJsonArrayInPieces)
{
    putRules(R"({"rules":[{"output_tokens":3}]})");
    const auto client = call("POST", "/v1beta/models/m:streamGenerateContent", kHello.toByteArray(), kKey);
    EXPECT_EQ(client->status(), 200);
    EXPECT_EQ(client->header("content-type"), "application/json");
    EXPECT_TRUE(client->isChunked());
    const QByteArray body = client->body();
    EXPECT_TRUE(body.startsWith("[{"));
    EXPECT_TRUE(body.endsWith("}\n]"));
    EXPECT_TRUE(body.contains("}\n,{"));
    const QJsonArray array = QJsonDocument::fromJson(body).array();
    ASSERT_EQ(array.size(), 4) << body.constData();
    EXPECT_EQ(array.at(3)["candidates"][0]["finishReason"].toString(), u"STOP");
    EXPECT_EQ(array.at(3)["usageMetadata"]["totalTokenCount"].toInt(), 7);
}

TEST_F(GeminiFormatTest, FunctionDeclarationsAndUserTextGetAFunctionCall)
{
    const QByteArray request = R"({"contents":[{"role":"user","parts":[{"text":"look it up"}]}],
                                   "tools":[{"functionDeclarations":[{"name":"lookup","parameters":{"type":"object"}}]}]})";
    const QJsonObject plain = json(call("POST", "/v1beta/models/m:generateContent", request, kKey)->body());
    const QJsonObject part = plain["candidates"][0]["content"]["parts"][0].toObject();
    EXPECT_EQ(part["functionCall"]["name"].toString(), u"lookup");
    EXPECT_TRUE(part["functionCall"]["args"].isObject());
    EXPECT_EQ(plain["candidates"][0]["finishReason"].toString(), u"STOP");

    const auto stream = call("POST", "/v1beta/models/m:streamGenerateContent?alt=sse", request, kKey);
    const QList<QByteArray> events = stream->sseData();
    ASSERT_EQ(events.size(), 1);
    EXPECT_EQ(json(events[0])["candidates"][0]["content"]["parts"][0]["functionCall"]["name"].toString(), u"lookup");
    const QJsonArray array = QJsonDocument::fromJson(
        call("POST", "/v1beta/models/m:streamGenerateContent", request, kKey)->body()).array();
    ASSERT_EQ(array.size(), 1);
    EXPECT_EQ(array.at(0)["candidates"][0]["content"]["parts"][0]["functionCall"]["name"].toString(), u"lookup");
}

TEST_F(GeminiFormatTest, MissingKeyIsPermissionDenied)
{
    const auto client = call("POST", "/v1beta/models/m:generateContent", kHello.toByteArray());
    EXPECT_EQ(client->status(), 403);
    EXPECT_EQ(json(client->body())["error"]["status"].toString(), u"PERMISSION_DENIED");
    EXPECT_EQ(json(client->body())["error"]["code"].toInt(), 403);
}

TEST_F(GeminiFormatTest, UnknownMethodIsAGoogleNotFound)
{
    const auto client = call("POST", "/gemini/v1beta/models/m:predict", kHello.toByteArray(), kKey);
    EXPECT_EQ(client->status(), 404);
    EXPECT_EQ(json(client->body())["error"]["status"].toString(), u"NOT_FOUND");
}

TEST_F(GeminiFormatTest, CountTokensAnswersTotalTokens)
{
    const auto client = call("POST", "/v1beta/models/m:countTokens", kHello.toByteArray(), kKey);
    EXPECT_EQ(client->status(), 200);
    EXPECT_EQ(json(client->body()), QJsonObject({{"totalTokens", 4}}));
}

TEST_F(GeminiFormatTest, ModelListNamesModelsWithTheirMethods)
{
    putRules(R"({"models":["g1"],"providers":{"gemini":["g2","g3"]},"rules":[]})");
    const QJsonObject list = json(call("GET", "/gemini/v1beta/models", {}, kKey)->body());
    const QJsonArray models = list["models"].toArray();
    ASSERT_EQ(models.size(), 2);
    EXPECT_EQ(models.at(0)["name"].toString(), u"models/g2");
    EXPECT_EQ(models.at(0)["displayName"].toString(), u"g2");
    EXPECT_TRUE(models.at(0)["supportedGenerationMethods"].toArray().contains(QStringLiteral("generateContent")));
    EXPECT_EQ(json(call("GET", "/v1beta/models", {}, kKey)->body())["models"][0]["name"].toString(), u"models/g1");
}

TEST(GeminiErrorTest, StatusesMapToGoogleStatusNames)
{
    EXPECT_EQ(GeminiFormat::errorStatus(429), "RESOURCE_EXHAUSTED");
    EXPECT_EQ(GeminiFormat::errorStatus(503), "UNAVAILABLE");
    EXPECT_EQ(GeminiFormat::errorStatus(400), "INVALID_ARGUMENT");
    EXPECT_EQ(GeminiFormat::errorStatus(401), "UNAUTHENTICATED");
    EXPECT_EQ(GeminiFormat::errorStatus(403), "PERMISSION_DENIED");
    EXPECT_EQ(GeminiFormat::errorStatus(500), "INTERNAL");
    const QJsonObject error = parseJson(GeminiFormat().errorBody(429, QStringLiteral("quota")))["error"].toObject();
    EXPECT_EQ(error["code"].toInt(), 429);
    EXPECT_EQ(error["message"].toString(), u"quota");
    EXPECT_EQ(error["status"].toString(), u"RESOURCE_EXHAUSTED");
}

} // namespace
} // namespace sy::sim::test
