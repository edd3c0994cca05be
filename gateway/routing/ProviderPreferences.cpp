// Parsing of the request's `provider` object (SPEC §3.4–3.5, seed 002).
//
// Contract details beyond the header:
// - A field given as JSON null means "not given" (the default), like an absent field.
// - Errors name the offending field by its JSON path: "provider.sort", "provider.sort.by",
//   "provider.max_price.prompt", "provider.preferred_max_latency.p90", "provider.only[1]".
// - Prices and thresholds must be finite numbers >= 0; max_price is per 1M tokens in the
//   workspace currency, preferred_max_latency in seconds, preferred_min_throughput in tokens/s.
// - String lists keep their order and duplicates (harmless: matching is by membership, and
//   `order` uses the first position a provider appears at).
#include "routing/ProviderPreferences.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>

namespace sy::routing {
namespace {

// Thrown only inside this file and turned into the returned PreferencesError at the boundary;
// it keeps each field parser a straight line instead of threading error values through.
struct ParseFailure {
    PreferencesError error;
};

[[noreturn]] void fail(const QString &param, const QString &message)
{
    throw ParseFailure{PreferencesError{param, message}};
}

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("undefined");
}

QStringList parseStringList(const QJsonValue &value, const QString &param)
{
    if (!value.isArray())
        fail(param, QStringLiteral("must be an array of strings, got %1").arg(typeName(value)));
    QStringList result;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonValue item = array.at(i);
        if (!item.isString())
            fail(QStringLiteral("%1[%2]").arg(param).arg(i),
                 QStringLiteral("must be a string, got %1").arg(typeName(item)));
        result.append(item.toString());
    }
    return result;
}

bool parseBool(const QJsonValue &value, const QString &param)
{
    if (!value.isBool())
        fail(param, QStringLiteral("must be a boolean, got %1").arg(typeName(value)));
    return value.toBool();
}

double parseNonNegativeNumber(const QJsonValue &value, const QString &param)
{
    if (!value.isDouble())
        fail(param, QStringLiteral("must be a number, got %1").arg(typeName(value)));
    const double number = value.toDouble();
    if (!std::isfinite(number) || number < 0)
        fail(param, QStringLiteral("must be a number >= 0"));
    return number;
}

SortBy parseSortBy(const QJsonValue &value, const QString &param)
{
    if (!value.isString())
        fail(param, QStringLiteral("must be \"price\", \"throughput\" or \"latency\", got %1").arg(typeName(value)));
    const QString text = value.toString();
    if (text == QLatin1String("price"))
        return SortBy::Price;
    if (text == QLatin1String("throughput"))
        return SortBy::Throughput;
    if (text == QLatin1String("latency"))
        return SortBy::Latency;
    fail(param, QStringLiteral("must be \"price\", \"throughput\" or \"latency\", got \"%1\"").arg(text));
}

// "price" | {by: "price", partition?: "model" | "none"}; `by` is required in the object form.
SortSpec parseSort(const QJsonValue &value)
{
    const QString param = QStringLiteral("provider.sort");
    if (value.isString())
        return SortSpec{parseSortBy(value, param), SortPartition::Model};
    if (!value.isObject())
        fail(param, QStringLiteral("must be a string or an object {by, partition}, got %1").arg(typeName(value)));

    const QJsonObject object = value.toObject();
    SortSpec spec;
    bool hasBy = false;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString field = param + QLatin1Char('.') + it.key();
        if (it.key() == QLatin1String("by")) {
            spec.by = parseSortBy(it.value(), field);
            hasBy = true;
        } else if (it.key() == QLatin1String("partition")) {
            if (it.value().isNull())
                continue;
            const QString text = it.value().toString();
            if (it.value().isString() && text == QLatin1String("model"))
                spec.partition = SortPartition::Model;
            else if (it.value().isString() && text == QLatin1String("none"))
                spec.partition = SortPartition::None;
            else
                fail(field, QStringLiteral("must be \"model\" or \"none\""));
        } else {
            fail(field, QStringLiteral("unknown field"));
        }
    }
    if (!hasBy)
        fail(param + QStringLiteral(".by"), QStringLiteral("is required"));
    return spec;
}

// {prompt?, completion?}: an absent side has no limit.
void parseMaxPrice(const QJsonValue &value, ProviderPreferences &prefs)
{
    const QString param = QStringLiteral("provider.max_price");
    if (!value.isObject())
        fail(param, QStringLiteral("must be an object {prompt, completion}, got %1").arg(typeName(value)));
    config::Price price;
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString field = param + QLatin1Char('.') + it.key();
        if (it.key() == QLatin1String("prompt")) {
            if (it.value().isNull())
                continue;
            price.prompt = parseNonNegativeNumber(it.value(), field);
            prefs.maxPriceHasPrompt = true;
        } else if (it.key() == QLatin1String("completion")) {
            if (it.value().isNull())
                continue;
            price.completion = parseNonNegativeNumber(it.value(), field);
            prefs.maxPriceHasCompletion = true;
        } else {
            fail(field, QStringLiteral("unknown field"));
        }
    }
    prefs.maxPrice = price;
}

// A number (= p50) or {p50?, p75?, p90?, p99?}.
PercentileThresholds parseThresholds(const QJsonValue &value, const QString &param)
{
    PercentileThresholds thresholds;
    if (value.isDouble()) {
        thresholds.p50 = parseNonNegativeNumber(value, param);
        return thresholds;
    }
    if (!value.isObject())
        fail(param, QStringLiteral("must be a number or an object {p50, p75, p90, p99}, got %1").arg(typeName(value)));
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString field = param + QLatin1Char('.') + it.key();
        std::optional<double> *slot = nullptr;
        if (it.key() == QLatin1String("p50"))
            slot = &thresholds.p50;
        else if (it.key() == QLatin1String("p75"))
            slot = &thresholds.p75;
        else if (it.key() == QLatin1String("p90"))
            slot = &thresholds.p90;
        else if (it.key() == QLatin1String("p99"))
            slot = &thresholds.p99;
        else
            fail(field, QStringLiteral("unknown field"));
        if (!it.value().isNull())
            *slot = parseNonNegativeNumber(it.value(), field);
    }
    return thresholds;
}

const QStringList kKnownFields = {
    QStringLiteral("order"), QStringLiteral("only"), QStringLiteral("ignore"),
    QStringLiteral("allow_fallbacks"), QStringLiteral("sort"), QStringLiteral("max_price"),
    QStringLiteral("quantizations"), QStringLiteral("require_parameters"),
    QStringLiteral("data_collection"), QStringLiteral("zdr"), QStringLiteral("enforce_distillable_text"),
    QStringLiteral("preferred_min_throughput"), QStringLiteral("preferred_max_latency"),
};

// `key` is one of kKnownFields and `value` is not null.
void parseField(const QString &key, const QJsonValue &value, ProviderPreferences &prefs)
{
    const QString param = QStringLiteral("provider.") + key;
    if (key == QLatin1String("order")) {
        prefs.order = parseStringList(value, param);
    } else if (key == QLatin1String("only")) {
        prefs.only = parseStringList(value, param);
    } else if (key == QLatin1String("ignore")) {
        prefs.ignore = parseStringList(value, param);
    } else if (key == QLatin1String("allow_fallbacks")) {
        prefs.allowFallbacks = parseBool(value, param);
    } else if (key == QLatin1String("sort")) {
        prefs.sort = parseSort(value);
    } else if (key == QLatin1String("max_price")) {
        parseMaxPrice(value, prefs);
    } else if (key == QLatin1String("quantizations")) {
        prefs.quantizations = parseStringList(value, param);
    } else if (key == QLatin1String("require_parameters")) {
        prefs.requireParameters = parseBool(value, param);
    } else if (key == QLatin1String("data_collection")) {
        const QString text = value.toString();
        if (!value.isString() || (text != QLatin1String("allow") && text != QLatin1String("deny")))
            fail(param, QStringLiteral("must be \"allow\" or \"deny\""));
        prefs.denyDataCollection = text == QLatin1String("deny");
    } else if (key == QLatin1String("zdr")) {
        prefs.zdr = parseBool(value, param);
    } else if (key == QLatin1String("enforce_distillable_text")) {
        prefs.enforceDistillableText = parseBool(value, param);
    } else if (key == QLatin1String("preferred_min_throughput")) {
        prefs.preferredMinThroughput = parseThresholds(value, param);
    } else if (key == QLatin1String("preferred_max_latency")) {
        prefs.preferredMaxLatency = parseThresholds(value, param);
    }
}

} // namespace

std::variant<ProviderPreferences, PreferencesError> parseProviderPreferences(const QJsonValue &value)
{
    ProviderPreferences prefs;
    if (value.isUndefined() || value.isNull())
        return prefs;
    if (!value.isObject())
        return PreferencesError{QStringLiteral("provider"),
                                QStringLiteral("must be an object, got %1").arg(typeName(value))};
    try {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!kKnownFields.contains(it.key()))
                fail(QStringLiteral("provider.") + it.key(), QStringLiteral("unknown field"));
            if (it.value().isNull())
                continue;   // null = not given
            parseField(it.key(), it.value(), prefs);
        }
    } catch (const ParseFailure &failure) {
        return failure.error;
    }
    return prefs;
}

} // namespace sy::routing
