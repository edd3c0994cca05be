// AttemptTrace: the SPEC §6 attempt objects, and a header value that is one line of ASCII JSON
// whatever the error text holds.
#include "service/AttemptTrace.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>

namespace sy::service {
namespace {

AttemptTrace sampleTrace()
{
    AttemptTrace trace;
    trace.add({"deepseek", "deepseek/deepseek-v4-flash", "error", 1200, "HTTP 503: overloaded"});
    trace.add({"sim", "alpha", "simulated_fail", std::nullopt, "simulated"});
    trace.add({"yandex", "alpha", "ok", 0, {}});
    return trace;
}

TEST(AttemptTraceTest, RecordsKeepTheirOrder)
{
    const AttemptTrace trace = sampleTrace();
    ASSERT_EQ(trace.count(), 3);
    EXPECT_EQ(trace.records()[0].provider, u"deepseek");
    EXPECT_EQ(trace.records()[1].status, u"simulated_fail");
    EXPECT_EQ(trace.records()[2].provider, u"yandex");
}

TEST(AttemptTraceTest, JsonCarriesTheSpecFields)
{
    const QJsonArray json = sampleTrace().toJson();
    ASSERT_EQ(json.size(), 3);
    const QJsonObject first = json[0].toObject();
    EXPECT_EQ(first.value("provider").toString(), u"deepseek");
    EXPECT_EQ(first.value("model").toString(), u"deepseek/deepseek-v4-flash");
    EXPECT_EQ(first.value("status").toString(), u"error");
    EXPECT_EQ(first.value("latency_ms").toInteger(), 1200);
    EXPECT_EQ(first.value("error").toString(), u"HTTP 503: overloaded");
}

TEST(AttemptTraceTest, LatencyIsAbsentWhenNotMeasuredAndPresentWhenZero)
{
    const QJsonArray json = sampleTrace().toJson();
    EXPECT_FALSE(json[1].toObject().contains("latency_ms"));
    ASSERT_TRUE(json[2].toObject().contains("latency_ms"));
    EXPECT_EQ(json[2].toObject().value("latency_ms").toInteger(-1), 0);
    EXPECT_FALSE(sampleTrace().toHeaderValue().contains("\"latency_ms\":null"));
}

TEST(AttemptTraceTest, ErrorIsAbsentForASuccessfulAttempt)
{
    const QJsonObject ok = sampleTrace().toJson()[2].toObject();
    EXPECT_EQ(ok.value("status").toString(), u"ok");
    EXPECT_FALSE(ok.contains("error"));
}

TEST(AttemptTraceTest, EmptyTraceIsAnEmptyArray)
{
    EXPECT_EQ(AttemptTrace().toHeaderValue(), "[]");
}

TEST(AttemptTraceTest, HeaderValueIsOneLineOfAsciiJsonEvenWithNonAsciiErrors)
{
    AttemptTrace trace = sampleTrace();
    const QString error = QStringLiteral("Превышен лимит — «429»\r\nretry\tlater \U0001F600 \u00e9\x7f");
    trace.add({"cloudru", "модель", "error", 15, error});

    const QByteArray header = trace.toHeaderValue();
    for (char c : header) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 && byte <= 0x7e) << "byte " << int(byte) << " in " << header.toStdString();
    }
    QJsonParseError parseError;
    const QJsonDocument parsed = QJsonDocument::fromJson(header, &parseError);
    ASSERT_EQ(parseError.error, QJsonParseError::NoError) << header.toStdString();
    ASSERT_TRUE(parsed.isArray());
    EXPECT_EQ(parsed.array(), trace.toJson());
    EXPECT_EQ(parsed.array()[3].toObject().value("error").toString(), error);
    EXPECT_EQ(parsed.array()[3].toObject().value("model").toString(), u"модель");
}

TEST(AttemptTraceTest, AsciiHeaderValueIsPlainCompactJson)
{
    const QByteArray header = sampleTrace().toHeaderValue();
    EXPECT_EQ(header, QJsonDocument(sampleTrace().toJson()).toJson(QJsonDocument::Compact));
    EXPECT_TRUE(header.startsWith("[{"));
}

} // namespace
} // namespace sy::service
