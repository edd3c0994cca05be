#include "api/embeddings/EmbeddingsRequest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <cmath>
#include <limits>

namespace sy::api::embeddings {

namespace {

ApiError badRequest(const QString &message, const QString &param, const QByteArray &code = {})
{
    return ApiError{400, message, code, param};
}

bool isWholeNumber(const QJsonValue &value, double min, double max)
{
    if (!value.isDouble())
        return false;
    const double number = value.toDouble();
    return std::isfinite(number) && std::floor(number) == number && number >= min && number <= max;
}

// A non-empty array of token ids; their count, or nullopt when `value` is not one.
std::optional<qint64> tokenArrayLength(const QJsonArray &array)
{
    if (array.isEmpty())
        return std::nullopt;
    for (const QJsonValue &token : array) {
        if (!isWholeNumber(token, 0, double(std::numeric_limits<qint32>::max())))
            return std::nullopt;
    }
    return array.size();
}

std::optional<ApiError> readInput(const QJsonValue &input, EmbeddingsRequest &request)
{
    const QString shape = QStringLiteral("'input' must be a non-empty string, a non-empty array of non-empty strings, "
                                         "a non-empty array of token ids or a non-empty array of them.");
    if (input.isUndefined() || input.isNull())
        return badRequest(QStringLiteral("'input' is required."), QStringLiteral("input"));
    if (input.isString()) {
        if (input.toString().isEmpty())
            return badRequest(shape, QStringLiteral("input"));
        request.texts.append(input.toString());
    } else if (input.isArray()) {
        const QJsonArray items = input.toArray();
        if (items.isEmpty())
            return badRequest(shape, QStringLiteral("input"));
        if (items.first().isDouble()) {
            // One token array.
            const std::optional<qint64> tokens = tokenArrayLength(items);
            if (!tokens)
                return badRequest(shape, QStringLiteral("input"));
            request.tokenInput = true;
            request.inputTokens = *tokens;
            request.inputCount = 1;
            return std::nullopt;
        }
        const bool arrays = items.first().isArray();
        for (qsizetype i = 0; i < items.size(); ++i) {
            const QJsonValue item = items.at(i);
            const QString param = QStringLiteral("input[%1]").arg(i);
            if (arrays) {
                const std::optional<qint64> tokens = item.isArray() ? tokenArrayLength(item.toArray()) : std::nullopt;
                if (!tokens)
                    return badRequest(QStringLiteral("'%1' must be a non-empty array of token ids, like the other inputs.").arg(param), param);
                request.inputTokens += *tokens;
            } else {
                if (!item.isString() || item.toString().isEmpty())
                    return badRequest(QStringLiteral("'%1' must be a non-empty string, like the other inputs.").arg(param), param);
                request.texts.append(item.toString());
            }
        }
        request.tokenInput = arrays;
        if (arrays) {
            request.inputCount = int(items.size());
            return std::nullopt;
        }
    } else {
        return badRequest(shape, QStringLiteral("input"));
    }
    request.inputCount = int(request.texts.size());
    for (const QString &text : std::as_const(request.texts))
        request.inputCharacters += text.size();
    return std::nullopt;
}

} // namespace

std::variant<EmbeddingsRequest, ApiError> parseEmbeddingsRequest(const QByteArray &raw)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(raw, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return ApiError{400, QStringLiteral("Request body is not valid JSON: %1 at offset %2.")
                                 .arg(parseError.errorString()).arg(parseError.offset), "invalid_json"};
    if (!document.isObject())
        return ApiError{400, QStringLiteral("Request body must be a JSON object."), "invalid_json"};

    EmbeddingsRequest request;
    request.raw = raw;
    request.body = document.object();
    const QJsonValue model = request.body.value("model");
    if (model.isUndefined() || model.isNull() || (model.isString() && model.toString().isEmpty()))
        return badRequest(QStringLiteral("'model' is required."), QStringLiteral("model"));
    if (!model.isString())
        return badRequest(QStringLiteral("'model' must be a string."), QStringLiteral("model"));
    request.model = model.toString();

    if (std::optional<ApiError> invalid = readInput(request.body.value("input"), request))
        return *invalid;

    if (const QJsonValue dimensions = request.body.value("dimensions"); !dimensions.isUndefined() && !dimensions.isNull()) {
        if (!isWholeNumber(dimensions, 1, double(std::numeric_limits<int>::max())))
            return badRequest(QStringLiteral("'dimensions' must be a positive integer."), QStringLiteral("dimensions"));
        request.dimensions = int(dimensions.toDouble());
    }
    if (const QJsonValue encoding = request.body.value("encoding_format"); !encoding.isUndefined() && !encoding.isNull()) {
        if (encoding != QJsonValue(QStringLiteral("float")) && encoding != QJsonValue(QStringLiteral("base64")))
            return badRequest(QStringLiteral("'encoding_format' must be \"float\" or \"base64\"."), QStringLiteral("encoding_format"));
        request.base64 = encoding.toString() == QLatin1String("base64");
    }
    if (const QJsonValue user = request.body.value("user"); !user.isUndefined() && !user.isNull()) {
        if (!user.isString())
            return badRequest(QStringLiteral("'user' must be a string."), QStringLiteral("user"));
        request.user = user.toString();
    }
    return request;
}

} // namespace sy::api::embeddings
