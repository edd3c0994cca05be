// Embeddings on the simulator: OpenAI /v1/embeddings and Gemini :embedContent /
// :batchEmbedContents — shapes, deterministic vectors, dimensions, base64, and scripted failures.
#include "Embeddings.h"
#include "SimServerFixture.h"

#include <QJsonArray>
#include <QtEndian>
#include <cmath>

namespace sy::sim::test {
namespace {

using EmbeddingsTest = SimServerFixture;

const sy::test::HeaderList kGeminiKey{{"x-goog-api-key", "sk-test-gemini"}};

QList<double> numbers(const QJsonValue &array)
{
    QList<double> out;
    for (const QJsonValue &value : array.toArray())
        out.append(value.toDouble());
    return out;
}

TEST(EmbeddingVectorTest, SameTextSameUnitVectorOtherTextOtherVector)
{
    const std::vector<float> a = embeddingVector(QStringLiteral("hello"), 64);
    EXPECT_EQ(a, embeddingVector(QStringLiteral("hello"), 64));
    EXPECT_NE(a, embeddingVector(QStringLiteral("hello!"), 64));
    ASSERT_EQ(a.size(), 64u);
    double norm = 0;
    for (const float value : a)
        norm += double(value) * value;
    EXPECT_NEAR(norm, 1.0, 1e-5);
}

TEST_F(EmbeddingsTest, OpenAiListHasOneEmbeddingPerInputInOrder)
{
    const auto client = call("POST", "/openai/v1/embeddings",
                             R"({"model":"text-embedding-sim","input":["first text","second"],"dimensions":8})");
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonObject body = json(client->body());
    EXPECT_EQ(body["object"].toString(), u"list");
    EXPECT_EQ(body["model"].toString(), u"text-embedding-sim");
    const QJsonArray data = body["data"].toArray();
    ASSERT_EQ(data.size(), 2);
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(data.at(i)["object"].toString(), u"embedding");
        EXPECT_EQ(data.at(i)["index"].toInt(), i);
        EXPECT_EQ(data.at(i)["embedding"].toArray().size(), 8);
    }
    EXPECT_NE(numbers(data.at(0)["embedding"]), numbers(data.at(1)["embedding"]));
    EXPECT_EQ(body["usage"]["prompt_tokens"].toInt(), 4);  // 16 characters
    EXPECT_EQ(body["usage"]["total_tokens"].toInt(), 4);
    EXPECT_EQ(getStats()["providers"]["openai"].toInt(), 1);
}

TEST_F(EmbeddingsTest, OpenAiVectorsAreDeterministicAndDefaultTo1536)
{
    const QJsonObject one = json(call("POST", "/v1/embeddings", R"({"model":"e","input":"same"})")->body());
    const QJsonObject two = json(call("POST", "/v1/embeddings", R"({"model":"e","input":["same"]})")->body());
    EXPECT_EQ(one["data"][0]["embedding"].toArray().size(), 1536);
    EXPECT_EQ(numbers(one["data"][0]["embedding"]), numbers(two["data"][0]["embedding"]));
}

TEST_F(EmbeddingsTest, Base64EncodingIsLittleEndianFloat32OfTheSameVector)
{
    const QJsonObject floats = json(call("POST", "/v1/embeddings", R"({"model":"e","input":"x","dimensions":4})")->body());
    const QJsonObject packed = json(call("POST", "/v1/embeddings",
                                         R"({"model":"e","input":"x","dimensions":4,"encoding_format":"base64"})")->body());
    const QByteArray raw = QByteArray::fromBase64(packed["data"][0]["embedding"].toString().toLatin1());
    ASSERT_EQ(raw.size(), 16);
    const QList<double> expected = numbers(floats["data"][0]["embedding"]);
    for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(qFromLittleEndian<float>(raw.constData() + i * 4), expected.at(i), 1e-6);
}

TEST_F(EmbeddingsTest, BadOpenAiRequestsAre400)
{
    for (const QByteArray &body : {QByteArray(R"({"input":"x"})"), QByteArray(R"({"model":"e"})"),
                                  QByteArray(R"({"model":"e","input":[]})"),
                                  QByteArray(R"({"model":"e","input":"x","dimensions":0})"),
                                  QByteArray(R"({"model":"e","input":"x","encoding_format":"int8"})")}) {
        const auto client = call("POST", "/v1/embeddings", body);
        EXPECT_EQ(client->status(), 400) << body.constData();
        EXPECT_EQ(json(client->body())["error"]["type"].toString(), u"invalid_request_error");
    }
}

TEST_F(EmbeddingsTest, ScriptedFailuresApplyToEmbeddings)
{
    putRules(R"({"rules":[{"model":"down","failure":"status:503"},{"model":"limited","failure":"status:429","retry_after_s":3},
                           {"model":"empty","failure":"empty_200"},{"model":"slow","latency_ms":100}]})");
    EXPECT_EQ(call("POST", "/v1/embeddings", R"({"model":"down","input":"x"})")->status(), 503);
    const auto limited = call("POST", "/v1/embeddings", R"({"model":"limited","input":"x"})");
    EXPECT_EQ(limited->status(), 429);
    EXPECT_EQ(limited->header("retry-after"), "3");
    EXPECT_EQ(json(limited->body())["error"]["type"].toString(), u"rate_limit_exceeded");
    const auto empty = call("POST", "/v1/embeddings", R"({"model":"empty","input":"x"})");
    EXPECT_EQ(empty->status(), 200);
    EXPECT_TRUE(json(empty->body())["data"].toArray().isEmpty());
    const auto slow = call("POST", "/v1/embeddings", R"({"model":"slow","input":"x"})");
    EXPECT_EQ(slow->status(), 200);
    EXPECT_GE(*slow->msToHeaders(), 90);
    EXPECT_EQ(getStats()["failures"]["status:503"].toInt(), 1);
}

TEST_F(EmbeddingsTest, GeminiEmbedContentAnswersOneEmbedding)
{
    const auto client = call("POST", "/gemini/v1beta/models/text-embedding-004:embedContent",
                             R"({"content":{"parts":[{"text":"hello"}]},"outputDimensionality":16})", kGeminiKey);
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QList<double> values = numbers(json(client->body())["embedding"]["values"]);
    EXPECT_EQ(values.size(), 16);
    // The same text gives the same vector in every format.
    const QJsonObject openAi = json(call("POST", "/v1/embeddings", R"({"model":"e","input":"hello","dimensions":16})")->body());
    EXPECT_EQ(values, numbers(openAi["data"][0]["embedding"]));
}

TEST_F(EmbeddingsTest, GeminiBatchEmbedAnswersOneEmbeddingPerRequest)
{
    const auto client = call("POST", "/v1beta/models/e:batchEmbedContents",
                             R"({"requests":[{"model":"models/e","content":{"parts":[{"text":"a"}]}},
                                             {"model":"models/e","content":{"parts":[{"text":"b"}]}}]})", kGeminiKey);
    ASSERT_EQ(client->status(), 200) << client->body().constData();
    const QJsonArray embeddings = json(client->body())["embeddings"].toArray();
    ASSERT_EQ(embeddings.size(), 2);
    EXPECT_EQ(embeddings.at(0)["values"].toArray().size(), 768);
    EXPECT_NE(numbers(embeddings.at(0)["values"]), numbers(embeddings.at(1)["values"]));
}

TEST_F(EmbeddingsTest, GeminiEmbeddingErrorsAreGoogleShaped)
{
    putRules(R"({"rules":[{"failure":"status:429"}]})");
    const auto limited = call("POST", "/v1beta/models/e:embedContent", R"({"content":{"parts":[{"text":"a"}]}})", kGeminiKey);
    EXPECT_EQ(limited->status(), 429);
    EXPECT_EQ(json(limited->body())["error"]["status"].toString(), u"RESOURCE_EXHAUSTED");
    const auto bad = call("POST", "/v1beta/models/e:batchEmbedContents", R"({"requests":[]})", kGeminiKey);
    EXPECT_EQ(bad->status(), 400);
    EXPECT_EQ(json(bad->body())["error"]["status"].toString(), u"INVALID_ARGUMENT");
}

} // namespace
} // namespace sy::sim::test
