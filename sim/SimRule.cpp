#include "SimRule.h"

#include <QJsonValue>
#include <QSet>
#include <cmath>

namespace sy::sim {

namespace {

constexpr QStringView kStatusPrefix = u"status:";
constexpr QStringView kErrorMidStream = u"error_mid_stream";

std::optional<int> parseStatus(QStringView text)
{
    bool ok = false;
    const int status = text.toInt(&ok);
    if (!ok || status < 100 || status > 599)
        return std::nullopt;
    return status;
}

// Reads an optional number field into `out`; returns an error text or an empty string.
QString readNumber(const QJsonObject &object, const QString &key, double min, double max,
                   bool integer, double &out)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return {};
    if (!value.isDouble())
        return QStringLiteral("%1: expected a number").arg(key);
    const double number = value.toDouble();
    if (integer && number != std::floor(number))
        return QStringLiteral("%1: expected an integer").arg(key);
    if (number < min || number > max)
        return QStringLiteral("%1: %2 is out of range [%3, %4]").arg(key).arg(number).arg(min).arg(max);
    out = number;
    return {};
}

QString readString(const QJsonObject &object, const QString &key, QString &out)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined() || value.isNull())
        return {};
    if (!value.isString())
        return QStringLiteral("%1: expected a string").arg(key);
    out = value.toString();
    return {};
}

} // namespace

std::optional<Failure> parseFailure(QStringView text)
{
    if (text.startsWith(kStatusPrefix)) {
        const std::optional<int> status = parseStatus(text.mid(kStatusPrefix.size()));
        if (!status)
            return std::nullopt;
        return Failure{FailureKind::Status, *status};
    }
    if (text == kErrorMidStream)
        return Failure{FailureKind::ErrorMidStream, 500};
    if (text.startsWith(kErrorMidStream) && text.mid(kErrorMidStream.size()).startsWith(u':')) {
        const std::optional<int> status = parseStatus(text.mid(kErrorMidStream.size() + 1));
        if (!status)
            return std::nullopt;
        return Failure{FailureKind::ErrorMidStream, *status};
    }
    if (text == u"none")
        return Failure{};
    if (text == u"hang")
        return Failure{FailureKind::Hang};
    if (text == u"reset")
        return Failure{FailureKind::Reset};
    if (text == u"drop_mid_stream")
        return Failure{FailureKind::DropMidStream};
    if (text == u"empty_200")
        return Failure{FailureKind::Empty200};
    if (text == u"malformed_sse")
        return Failure{FailureKind::MalformedSse};
    return std::nullopt;
}

QString failureName(const Failure &failure)
{
    switch (failure.kind) {
    case FailureKind::None: return QStringLiteral("none");
    case FailureKind::Status: return QStringLiteral("status:%1").arg(failure.status);
    case FailureKind::Hang: return QStringLiteral("hang");
    case FailureKind::Reset: return QStringLiteral("reset");
    case FailureKind::DropMidStream: return QStringLiteral("drop_mid_stream");
    case FailureKind::Empty200: return QStringLiteral("empty_200");
    case FailureKind::MalformedSse: return QStringLiteral("malformed_sse");
    case FailureKind::ErrorMidStream: return QStringLiteral("error_mid_stream:%1").arg(failure.status);
    }
    return QStringLiteral("none");
}

int SimRule::specificity() const
{
    if (!provider.isEmpty() && !model.isEmpty())
        return 3;
    if (!model.isEmpty())
        return 2;
    if (!provider.isEmpty())
        return 1;
    return 0;
}

bool SimRule::appliesTo(QStringView requestProvider, QStringView requestModel) const
{
    return (provider.isEmpty() || provider == requestProvider)
        && (model.isEmpty() || model == requestModel);
}

RuleParse parseRule(const QJsonObject &object)
{
    static const QSet<QString> known = {
        QStringLiteral("provider"), QStringLiteral("model"), QStringLiteral("latency_ms"),
        QStringLiteral("ttft_ms"), QStringLiteral("tokens_per_s"), QStringLiteral("output_tokens"),
        QStringLiteral("error_rate"), QStringLiteral("failure"), QStringLiteral("retry_after_s"),
        QStringLiteral("drop_after_chunks"),
    };
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key()))
            return {std::nullopt, QStringLiteral("%1: unknown field").arg(it.key())};
    }

    SimRule rule;
    constexpr double kMaxMs = 24.0 * 3600 * 1000;
    double latency = 0, ttft = 0, outputTokens = rule.outputTokens, retryAfter = rule.retryAfterSeconds,
           dropAfter = rule.dropAfterChunks, errorRate = -1;
    QString failureText;
    for (const QString &error : {
             readString(object, QStringLiteral("provider"), rule.provider),
             readString(object, QStringLiteral("model"), rule.model),
             readNumber(object, QStringLiteral("latency_ms"), 0, kMaxMs, true, latency),
             readNumber(object, QStringLiteral("ttft_ms"), 0, kMaxMs, true, ttft),
             readNumber(object, QStringLiteral("tokens_per_s"), 0, 1e9, false, rule.tokensPerSecond),
             readNumber(object, QStringLiteral("output_tokens"), 0, 1e6, true, outputTokens),
             readNumber(object, QStringLiteral("error_rate"), 0, 1, false, errorRate),
             readString(object, QStringLiteral("failure"), failureText),
             readNumber(object, QStringLiteral("retry_after_s"), 0, 86400, true, retryAfter),
             readNumber(object, QStringLiteral("drop_after_chunks"), 0, 1e6, true, dropAfter),
         }) {
        if (!error.isEmpty())
            return {std::nullopt, error};
    }

    rule.latency = std::chrono::milliseconds(qint64(latency));
    rule.timeToFirstToken = std::chrono::milliseconds(qint64(ttft));
    rule.outputTokens = int(outputTokens);
    rule.retryAfterSeconds = int(retryAfter);
    rule.dropAfterChunks = int(dropAfter);
    if (!failureText.isEmpty()) {
        const std::optional<Failure> failure = parseFailure(failureText);
        if (!failure)
            return {std::nullopt, QStringLiteral("failure: unknown failure \"%1\"").arg(failureText)};
        rule.failure = *failure;
    }
    if (errorRate < 0)  // absent
        rule.errorRate = rule.failure.kind == FailureKind::None ? 0.0 : 1.0;
    else
        rule.errorRate = errorRate;
    if (rule.errorRate > 0 && rule.failure.kind == FailureKind::None && failureText.isEmpty())
        rule.failure = Failure{FailureKind::Status, 500};
    return {rule, {}};
}

QJsonObject ruleToJson(const SimRule &rule)
{
    QJsonObject object{
        {QStringLiteral("latency_ms"), qint64(rule.latency.count())},
        {QStringLiteral("ttft_ms"), qint64(rule.timeToFirstToken.count())},
        {QStringLiteral("tokens_per_s"), rule.tokensPerSecond},
        {QStringLiteral("output_tokens"), rule.outputTokens},
        {QStringLiteral("error_rate"), rule.errorRate},
        {QStringLiteral("failure"), failureName(rule.failure)},
        {QStringLiteral("retry_after_s"), rule.retryAfterSeconds},
        {QStringLiteral("drop_after_chunks"), rule.dropAfterChunks},
    };
    if (!rule.provider.isEmpty())
        object.insert(QStringLiteral("provider"), rule.provider);
    if (!rule.model.isEmpty())
        object.insert(QStringLiteral("model"), rule.model);
    return object;
}

} // namespace sy::sim
