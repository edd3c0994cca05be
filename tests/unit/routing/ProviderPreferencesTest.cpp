// parseProviderPreferences: every field of the `provider` object, its defaults, and an error
// naming the field for every wrong type or value.
#include "QtPrinters.h"
#include "routing/ProviderPreferences.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sy::routing {
namespace {

QJsonValue json(const char *text)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray(text), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << text;
    return document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array());
}

ProviderPreferences parsed(const char *text)
{
    auto result = parseProviderPreferences(json(text));
    if (auto *error = std::get_if<PreferencesError>(&result)) {
        ADD_FAILURE() << text << " → " << error->param.toStdString() << ": " << error->message.toStdString();
        return {};
    }
    return std::get<ProviderPreferences>(result);
}

void expectDefaults(const ProviderPreferences &prefs)
{
    EXPECT_TRUE(prefs.order.isEmpty());
    EXPECT_TRUE(prefs.only.isEmpty());
    EXPECT_TRUE(prefs.ignore.isEmpty());
    EXPECT_TRUE(prefs.allowFallbacks);
    EXPECT_FALSE(prefs.sort);
    EXPECT_FALSE(prefs.maxPrice);
    EXPECT_TRUE(prefs.quantizations.isEmpty());
    EXPECT_FALSE(prefs.requireParameters);
    EXPECT_FALSE(prefs.denyDataCollection);
    EXPECT_FALSE(prefs.zdr);
    EXPECT_FALSE(prefs.enforceDistillableText);
    EXPECT_FALSE(prefs.preferredMinThroughput);
    EXPECT_FALSE(prefs.preferredMaxLatency);
}

TEST(ProviderPreferencesTest, UndefinedNullAndEmptyObjectGiveDefaults)
{
    for (const QJsonValue &value : {QJsonValue(QJsonValue::Undefined), QJsonValue(QJsonValue::Null),
                                    QJsonValue(QJsonObject())}) {
        const auto result = parseProviderPreferences(value);
        ASSERT_TRUE(std::holds_alternative<ProviderPreferences>(result));
        expectDefaults(std::get<ProviderPreferences>(result));
    }
}

TEST(ProviderPreferencesTest, NullFieldsMeanNotGiven)
{
    expectDefaults(parsed(R"({"order": null, "only": null, "allow_fallbacks": null, "sort": null,
                              "max_price": null, "data_collection": null, "preferred_max_latency": null})"));
}

TEST(ProviderPreferencesTest, ParsesEveryField)
{
    const ProviderPreferences prefs = parsed(R"({
        "order": ["yandex", "cloudru"], "only": ["cloudru", "ch-1"], "ignore": ["mws"],
        "allow_fallbacks": false, "sort": "throughput",
        "max_price": {"prompt": 500, "completion": 1000.5},
        "quantizations": ["int4", "fp8"], "require_parameters": true, "data_collection": "deny",
        "zdr": true, "enforce_distillable_text": true,
        "preferred_min_throughput": 30, "preferred_max_latency": {"p50": 1.5, "p99": 4}})");
    EXPECT_EQ(prefs.order, QStringList({"yandex", "cloudru"}));
    EXPECT_EQ(prefs.only, QStringList({"cloudru", "ch-1"}));
    EXPECT_EQ(prefs.ignore, QStringList({"mws"}));
    EXPECT_FALSE(prefs.allowFallbacks);
    ASSERT_TRUE(prefs.sort);
    EXPECT_EQ(prefs.sort->by, SortBy::Throughput);
    EXPECT_EQ(prefs.sort->partition, SortPartition::Model);
    ASSERT_TRUE(prefs.maxPrice);
    EXPECT_TRUE(prefs.maxPriceHasPrompt);
    EXPECT_TRUE(prefs.maxPriceHasCompletion);
    EXPECT_DOUBLE_EQ(prefs.maxPrice->prompt, 500);
    EXPECT_DOUBLE_EQ(prefs.maxPrice->completion, 1000.5);
    EXPECT_EQ(prefs.quantizations, QStringList({"int4", "fp8"}));
    EXPECT_TRUE(prefs.requireParameters);
    EXPECT_TRUE(prefs.denyDataCollection);
    EXPECT_TRUE(prefs.zdr);
    EXPECT_TRUE(prefs.enforceDistillableText);
    ASSERT_TRUE(prefs.preferredMinThroughput);
    EXPECT_EQ(prefs.preferredMinThroughput->p50, 30.0);
    EXPECT_FALSE(prefs.preferredMinThroughput->p90);
    ASSERT_TRUE(prefs.preferredMaxLatency);
    EXPECT_EQ(prefs.preferredMaxLatency->p50, 1.5);
    EXPECT_FALSE(prefs.preferredMaxLatency->p75);
    EXPECT_FALSE(prefs.preferredMaxLatency->p90);
    EXPECT_EQ(prefs.preferredMaxLatency->p99, 4.0);
}

TEST(ProviderPreferencesTest, SortStringsMapToKeysWithModelPartition)
{
    const std::pair<const char *, SortBy> rows[] = {{R"({"sort": "price"})", SortBy::Price},
                                                    {R"({"sort": "throughput"})", SortBy::Throughput},
                                                    {R"({"sort": "latency"})", SortBy::Latency}};
    for (const auto &[text, by] : rows) {
        const ProviderPreferences prefs = parsed(text);
        ASSERT_TRUE(prefs.sort) << text;
        EXPECT_EQ(prefs.sort->by, by) << text;
        EXPECT_EQ(prefs.sort->partition, SortPartition::Model) << text;
    }
}

TEST(ProviderPreferencesTest, SortObjectTakesByAndPartition)
{
    ProviderPreferences prefs = parsed(R"({"sort": {"by": "latency", "partition": "none"}})");
    ASSERT_TRUE(prefs.sort);
    EXPECT_EQ(prefs.sort->by, SortBy::Latency);
    EXPECT_EQ(prefs.sort->partition, SortPartition::None);

    prefs = parsed(R"({"sort": {"by": "price"}})");
    ASSERT_TRUE(prefs.sort);
    EXPECT_EQ(prefs.sort->partition, SortPartition::Model);
}

TEST(ProviderPreferencesTest, MaxPriceSidesAreOptional)
{
    ProviderPreferences prefs = parsed(R"({"max_price": {"completion": 2}})");
    ASSERT_TRUE(prefs.maxPrice);
    EXPECT_FALSE(prefs.maxPriceHasPrompt);
    EXPECT_TRUE(prefs.maxPriceHasCompletion);
    EXPECT_DOUBLE_EQ(prefs.maxPrice->completion, 2);

    prefs = parsed(R"({"max_price": {"prompt": 0}})");
    EXPECT_TRUE(prefs.maxPriceHasPrompt);
    EXPECT_FALSE(prefs.maxPriceHasCompletion);
}

TEST(ProviderPreferencesTest, DataCollectionAllowKeepsDefault)
{
    EXPECT_FALSE(parsed(R"({"data_collection": "allow"})").denyDataCollection);
}

TEST(ProviderPreferencesTest, ThresholdObjectTakesEveryPercentile)
{
    const ProviderPreferences prefs =
        parsed(R"({"preferred_min_throughput": {"p50": 10, "p75": 20, "p90": 30, "p99": 0}})");
    ASSERT_TRUE(prefs.preferredMinThroughput);
    EXPECT_EQ(prefs.preferredMinThroughput->p50, 10.0);
    EXPECT_EQ(prefs.preferredMinThroughput->p75, 20.0);
    EXPECT_EQ(prefs.preferredMinThroughput->p90, 30.0);
    EXPECT_EQ(prefs.preferredMinThroughput->p99, 0.0);
}

struct ErrorRow {
    const char *body;
    const char *param;
};

void PrintTo(const ErrorRow &row, std::ostream *os)
{
    *os << row.body;
}

class ProviderPreferencesErrorTest : public ::testing::TestWithParam<ErrorRow> {};

TEST_P(ProviderPreferencesErrorTest, NamesTheOffendingField)
{
    const ErrorRow row = GetParam();
    const auto result = parseProviderPreferences(json(row.body));
    ASSERT_TRUE(std::holds_alternative<PreferencesError>(result)) << row.body;
    const PreferencesError &error = std::get<PreferencesError>(result);
    EXPECT_EQ(error.param.toStdString(), row.param) << row.body;
    EXPECT_FALSE(error.message.isEmpty());
}

INSTANTIATE_TEST_SUITE_P(EveryField, ProviderPreferencesErrorTest, ::testing::Values(
    ErrorRow{R"(["openai"])", "provider"},
    ErrorRow{R"({"unknown_field": 1})", "provider.unknown_field"},
    ErrorRow{R"({"unknown_field": null})", "provider.unknown_field"},
    ErrorRow{R"({"order": "openai"})", "provider.order"},
    ErrorRow{R"({"order": ["openai", 3]})", "provider.order[1]"},
    ErrorRow{R"({"only": {"a": 1}})", "provider.only"},
    ErrorRow{R"({"only": [true]})", "provider.only[0]"},
    ErrorRow{R"({"ignore": "mws"})", "provider.ignore"},
    ErrorRow{R"({"ignore": [null]})", "provider.ignore[0]"},
    ErrorRow{R"({"allow_fallbacks": "false"})", "provider.allow_fallbacks"},
    ErrorRow{R"({"allow_fallbacks": 0})", "provider.allow_fallbacks"},
    ErrorRow{R"({"sort": "cheapest"})", "provider.sort"},
    ErrorRow{R"({"sort": 1})", "provider.sort"},
    ErrorRow{R"({"sort": ["price"]})", "provider.sort"},
    ErrorRow{R"({"sort": {"partition": "none"}})", "provider.sort.by"},
    ErrorRow{R"({"sort": {"by": "speed"}})", "provider.sort.by"},
    ErrorRow{R"({"sort": {"by": "price", "partition": "provider"}})", "provider.sort.partition"},
    ErrorRow{R"({"sort": {"by": "price", "partition": 1}})", "provider.sort.partition"},
    ErrorRow{R"({"sort": {"by": "price", "order": "asc"}})", "provider.sort.order"},
    ErrorRow{R"({"max_price": 5})", "provider.max_price"},
    ErrorRow{R"({"max_price": {"prompt": "5"}})", "provider.max_price.prompt"},
    ErrorRow{R"({"max_price": {"completion": -1}})", "provider.max_price.completion"},
    ErrorRow{R"({"max_price": {"request": 1}})", "provider.max_price.request"},
    ErrorRow{R"({"quantizations": "int4"})", "provider.quantizations"},
    ErrorRow{R"({"quantizations": [4]})", "provider.quantizations[0]"},
    ErrorRow{R"({"require_parameters": "yes"})", "provider.require_parameters"},
    ErrorRow{R"({"data_collection": "never"})", "provider.data_collection"},
    ErrorRow{R"({"data_collection": false})", "provider.data_collection"},
    ErrorRow{R"({"zdr": 1})", "provider.zdr"},
    ErrorRow{R"({"enforce_distillable_text": "true"})", "provider.enforce_distillable_text"},
    ErrorRow{R"({"preferred_min_throughput": "30"})", "provider.preferred_min_throughput"},
    ErrorRow{R"({"preferred_min_throughput": -1})", "provider.preferred_min_throughput"},
    ErrorRow{R"({"preferred_min_throughput": {"p95": 10}})", "provider.preferred_min_throughput.p95"},
    ErrorRow{R"({"preferred_min_throughput": {"p50": "10"}})", "provider.preferred_min_throughput.p50"},
    ErrorRow{R"({"preferred_max_latency": [2]})", "provider.preferred_max_latency"},
    ErrorRow{R"({"preferred_max_latency": {"p90": -0.5}})", "provider.preferred_max_latency.p90"},
    ErrorRow{R"({"preferred_max_latency": {"p99": true}})", "provider.preferred_max_latency.p99"}));

} // namespace
} // namespace sy::routing
