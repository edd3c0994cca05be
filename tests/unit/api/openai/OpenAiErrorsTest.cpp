// OpenAI error bodies (SPEC §9): the `type` of each gateway status and the exact body shape.
#include "api/openai/OpenAiErrors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::api::openai {
namespace {

QJsonObject parsedError(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    EXPECT_EQ(parseError.error, QJsonParseError::NoError) << body.toStdString();
    EXPECT_EQ(doc.object().keys(), QStringList{"error"}) << body.toStdString();
    return doc.object().value("error").toObject();
}

TEST(OpenAiErrorsTest, SpecTableStatusesHaveTheirOpenAiTypes)
{
    const std::vector<std::pair<int, QByteArray>> rows{
        {429, "rate_limit_exceeded"},  {402, "insufficient_quota"},   {502, "api_error"},
        {400, "invalid_request_error"}, {401, "authentication_error"}, {403, "permission_error"},
    };
    for (const auto &[status, type] : rows) {
        SCOPED_TRACE(status);
        EXPECT_EQ(errorTypeForStatus(status), type);
    }
}

TEST(OpenAiErrorsTest, EveryServerErrorIsAnApiError)
{
    for (int status = 500; status <= 599; ++status) {
        SCOPED_TRACE(status);
        EXPECT_EQ(errorTypeForStatus(status), "api_error");
    }
}

TEST(OpenAiErrorsTest, OtherRequestErrorsAreInvalidRequestsAndNotFoundIsItsOwnType)
{
    for (int status : {405, 413, 415, 422, 431, 409})
        EXPECT_EQ(errorTypeForStatus(status), "invalid_request_error") << status;
    EXPECT_EQ(errorTypeForStatus(404), "not_found_error");
}

TEST(OpenAiErrorsTest, BodyHasMessageTypeAndNullParamAndCodeWhenEmpty)
{
    const QByteArray body = errorBody(502, QStringLiteral("All providers failed for model a"));
    const QJsonObject error = parsedError(body);
    QStringList keys = error.keys();
    keys.sort();
    EXPECT_EQ(keys, (QStringList{"code", "message", "param", "type"}));
    EXPECT_EQ(error.value("message").toString(), u"All providers failed for model a");
    EXPECT_EQ(error.value("type").toString(), u"api_error");
    EXPECT_TRUE(error.value("param").isNull());
    EXPECT_TRUE(error.value("code").isNull());
    EXPECT_FALSE(body.contains('\n'));
}

TEST(OpenAiErrorsTest, CodeAndParamAreStringsWhenGiven)
{
    const QJsonObject error = parsedError(
        errorBody(400, QStringLiteral("The model 'x' does not exist."), "model_not_found", QStringLiteral("model")));
    EXPECT_EQ(error.value("type").toString(), u"invalid_request_error");
    EXPECT_EQ(error.value("code").toString(), u"model_not_found");
    EXPECT_EQ(error.value("param").toString(), u"model");
}

TEST(OpenAiErrorsTest, MetadataIsAddedOnlyWhenNotEmpty)
{
    EXPECT_FALSE(parsedError(errorBody(502, QStringLiteral("failed"))).contains("metadata"));

    const QJsonObject metadata{{"attempts", QJsonArray{QJsonObject{{"provider", "sim"}, {"status", "error"}}}}};
    const QJsonObject error = parsedError(errorBody(502, QStringLiteral("failed"), {}, {}, metadata));
    EXPECT_EQ(error.value("metadata").toObject(), metadata);
}

TEST(OpenAiErrorsTest, NonAsciiMessageSurvivesTheRoundTrip)
{
    const QString message = QStringLiteral("Баланс исчерпан — пополните счёт");
    EXPECT_EQ(parsedError(errorBody(402, message)).value("message").toString(), message);
}

} // namespace
} // namespace sy::api::openai
