#pragma once
// ProviderPreferences: the request's `provider` object (SPEC §3.4–3.5, seed 002), parsed and
// checked. Provider names match a channel's provider slug or its channel id.
#include "config/Config.h"

#include <QJsonValue>
#include <QStringList>
#include <optional>
#include <variant>

namespace sy::routing {

enum class SortBy { Price, Throughput, Latency };
enum class SortPartition { Model, None };

struct SortSpec {
    SortBy by = SortBy::Price;
    SortPartition partition = SortPartition::Model;
};

// Every given percentile must be met. A bare number means {p50: number}.
struct PercentileThresholds {
    std::optional<double> p50, p75, p90, p99;
};

struct ProviderPreferences {
    QStringList order;
    QStringList only;                     // wins over ignore
    QStringList ignore;
    bool allowFallbacks = true;
    std::optional<SortSpec> sort;
    std::optional<config::Price> maxPrice;          // hard ceiling per 1M tokens; a side may be absent (= no limit)
    bool maxPriceHasPrompt = false;
    bool maxPriceHasCompletion = false;
    QStringList quantizations;            // empty = any
    bool requireParameters = false;
    bool denyDataCollection = false;      // data_collection: "deny"
    bool zdr = false;
    bool enforceDistillableText = false;
    std::optional<PercentileThresholds> preferredMinThroughput;  // tokens/s
    std::optional<PercentileThresholds> preferredMaxLatency;     // seconds (SPEC choice)
};

struct PreferencesError {
    QString param;     // e.g. "provider.sort"
    QString message;
};

// Parses `value` (the `provider` field; undefined/null = defaults). Unknown fields and wrong
// types are errors (400 for the client, naming the field).
std::variant<ProviderPreferences, PreferencesError> parseProviderPreferences(const QJsonValue &value);

} // namespace sy::routing
