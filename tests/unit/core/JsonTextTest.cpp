#include "core/JsonText.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>
#include <limits>
#include <random>

namespace sy::test {
namespace {

// Qt's own text for one value: "[value]" without the brackets.
QByteArray qtText(const QJsonValue &value)
{
    const QByteArray text = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return text.sliced(1, text.size() - 2);
}

QByteArray numberText(double value)
{
    QByteArray out = "x";  // appended after what is there
    json::appendNumber(out, value);
    return out.sliced(1);
}

QByteArray stringText(const QString &value)
{
    QByteArray out;
    json::appendString(out, value);
    return out;
}

TEST(JsonTextTest, NumbersAreWrittenAsQtsWriterWritesThem)
{
    const double cases[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.3, 1.5e-7, 0.00012345, 0.0001, 0.00001,
                            1e21, 1e22, 123456789.125, 9007199254740992.0, -9007199254740992.0,
                            9007199254740993.0, 1e300, -1e-300, 2.5e-5, 100000.0, 1e15 + 0.5,
                            std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::denorm_min(), 3.0000000000000004,
                            0.000420, 12.34, 1234567.0, 0.1 + 0.2};
    for (const double value : cases)
        EXPECT_EQ(numberText(value), qtText(QJsonValue(value))) << value;

    // Prices and costs as the gateway computes them: products and sums of small decimals, and
    // values spread over the whole range of the type.
    std::mt19937_64 random(20261207);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int> exponent(-320, 300);
    for (int i = 0; i < 20000; ++i) {
        const double price = std::round(unit(random) * 1e6) / 1e6;
        const double tokens = std::floor(unit(random) * 200000);
        const double cost = price * tokens / 1e6;
        const double wide = (unit(random) - 0.5) * std::pow(10.0, exponent(random));
        ASSERT_EQ(numberText(cost), qtText(QJsonValue(cost))) << cost;
        ASSERT_EQ(numberText(wide), qtText(QJsonValue(wide))) << wide;
    }
}

TEST(JsonTextTest, NumbersJsonCannotHoldAreNull)
{
    for (const double value : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN()}) {
        EXPECT_EQ(numberText(value), "null");
        EXPECT_EQ(numberText(value), qtText(QJsonValue(value)));
    }
}

TEST(JsonTextTest, StringsAreWrittenAsQtsWriterWritesThem)
{
    const QString cases[] = {
        QString(), QStringLiteral("plain"), QStringLiteral("quote \" and backslash \\"),
        QStringLiteral("controls \b\f\n\r\t and \x01\x1f"), QString::fromUtf8("caf\u00e9 \u4e2d\u6587"),
        QString::fromUtf8("emoji \U0001F600 pair"), QString(QChar(0xd800)) + QStringLiteral(" lone"),
        QStringLiteral("slash / and del \x7f"),
    };
    for (const QString &value : cases)
        EXPECT_EQ(stringText(value), qtText(QJsonValue(value))) << value.toStdString();
}

} // namespace
} // namespace sy::test
