#pragma once
// ChannelOrdering: the ordering steps of SPEC §3.5 on one group of candidates (one model's
// channels, or every model's with sort partition "none"). ChannelSelector decides which steps
// run and in what sequence; each step here is stable where it does not draw, and appends short
// phrases for the route trace to `trace`.
//
// Units: prices per 1M tokens; throughput p50 in tokens/s; latency is time to first token in
// ms from MetricsWindow, thresholds from preferred_max_latency are in seconds (×1000 here).
//
// Health: every step reads the candidates' `health` (filled by ChannelSelector from the
// HealthView), never the view itself.
//
// Metrics: a step reads the window at one instant for its whole group (MetricsWindow::read), by
// each candidate's number (`keys.metrics`, or the window's number for its ids when it has none),
// and only the measure it needs.
//
// Thread: one thread; the referenced views and Random are used only during calls.
#include "routing/ChannelSelector.h"

#include <QStringList>
#include <optional>
#include <vector>

namespace sy::routing {

// Price used by the default draw and by sort "price": prompt + completion of the served model.
double candidatePrice(const Candidate &candidate);

// Below this a price counts as this (per 1M tokens) in the 1/price² weight, so a free channel is
// the cheapest by a wide but finite margin (weight 10^4 against 1 for a price of 1) instead of a
// division by zero that would starve every paid channel.
inline constexpr double kMinWeightedPrice = 0.01;

// Health factors are clamped into [kMinHealthFactor, 1] so a broken view cannot make a weight
// zero, negative or NaN (a zero weight would make the draw undefined for that channel).
inline constexpr double kMinHealthFactor = 1e-6;

class ChannelOrdering {
public:
    ChannelOrdering(const metrics::MetricsWindow &metrics, Random &random);

    // Default order: channels not failed recently first, drawn by weighted random without
    // replacement (weight = 1 / max(price, kMinWeightedPrice)² × health factor); then the
    // recently failed ones, drawn the same way among themselves.
    std::vector<Candidate> defaultOrder(std::vector<Candidate> group, QStringList &trace);

    // One weighted draw without replacement over `group` by the default weight.
    std::vector<Candidate> weightedDraw(std::vector<Candidate> group);

    // Stable sort by `by`; channels without the needed metric go last, keeping their order
    // (price never lacks a value).
    void sortBy(std::vector<Candidate> &group, SortBy by, QStringList &trace) const;

    // Moves channels whose metrics miss any given percentile of preferred_min_throughput or
    // preferred_max_latency to the end, keeping relative order. No metric = not penalised.
    void demoteThresholdMisses(std::vector<Candidate> &group, const ProviderPreferences &prefs,
                               QStringList &trace) const;

    // Moves channels that are cooling down to the very end, keeping relative order.
    void demoteCoolingDown(std::vector<Candidate> &group, QStringList &trace) const;

    // The sort key of `candidate` (smaller = earlier), or nullopt without metrics.
    std::optional<double> sortKey(const Candidate &candidate, SortBy by) const;

private:
    double weight(const Candidate &candidate) const;
    std::optional<double> sortKey(const Candidate &candidate, SortBy by, const metrics::MetricsWindow::Reading &reading) const;
    metrics::SeriesId seriesOf(const Candidate &candidate) const;

    const metrics::MetricsWindow &m_metrics;
    Random &m_random;
};

} // namespace sy::routing
