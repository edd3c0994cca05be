// Ordering steps of SPEC §3.5. See ChannelOrdering.h for the contracts.
#include "routing/ChannelOrdering.h"

#include <QVarLengthArray>

#include <algorithm>
#include <cmath>

namespace sy::routing {

double candidatePrice(const Candidate &candidate)
{
    return candidate.served->price.prompt + candidate.served->price.completion;
}

namespace {

QString idsOf(const std::vector<Candidate> &candidates)
{
    QStringList ids;
    for (const Candidate &candidate : candidates)
        ids.append(candidate.channel->id);
    return ids.join(QStringLiteral(", "));
}

// Stable partition that also reports what moved, for the trace.
template <class Predicate>
std::vector<Candidate> moveToEnd(std::vector<Candidate> &group, Predicate shouldMove)
{
    // Usually nothing moves: one pass to find the first that does, and no copies until then.
    std::size_t first = 0;
    while (first < group.size() && !shouldMove(group[first]))
        ++first;
    if (first == group.size())
        return {};
    std::vector<Candidate> moved{group[first]};
    std::size_t kept = first;
    for (std::size_t i = first + 1; i < group.size(); ++i) {
        if (shouldMove(group[i]))
            moved.push_back(group[i]);
        else
            group[kept++] = group[i];
    }
    std::copy(moved.begin(), moved.end(), group.begin() + std::ptrdiff_t(kept));
    return moved;
}

// True when any given percentile is missed; `better(value, threshold)` says the value meets it.
template <class Meets>
bool missesAny(const metrics::Percentiles &observed, const PercentileThresholds &thresholds, Meets meets)
{
    const std::pair<const std::optional<double> &, double> pairs[] = {
        {thresholds.p50, observed.p50}, {thresholds.p75, observed.p75},
        {thresholds.p90, observed.p90}, {thresholds.p99, observed.p99}};
    return std::any_of(std::begin(pairs), std::end(pairs), [&](const auto &pair) {
        return pair.first.has_value() && !meets(pair.second, *pair.first);
    });
}

} // namespace

ChannelOrdering::ChannelOrdering(const metrics::MetricsWindow &metrics, Random &random)
    : m_metrics(metrics), m_random(random)
{
}

metrics::SeriesId ChannelOrdering::seriesOf(const Candidate &candidate) const
{
    if (candidate.keys.metrics >= 0)
        return candidate.keys.metrics;
    return m_metrics.idOf(metrics::ChannelModel{candidate.channel->id, candidate.modelId});
}

double ChannelOrdering::weight(const Candidate &candidate) const
{
    const double price = std::max(candidatePrice(candidate), kMinWeightedPrice);
    double factor = candidate.health.factor;
    if (!std::isfinite(factor) || factor < kMinHealthFactor)
        factor = kMinHealthFactor;
    factor = std::min(factor, 1.0);
    return factor / (price * price);
}

std::vector<Candidate> ChannelOrdering::weightedDraw(std::vector<Candidate> group)
{
    // The draw works on positions and weights (on the stack for the usual few candidates);
    // candidates are moved once, into `drawn`.
    QVarLengthArray<std::size_t, 16> remaining;
    QVarLengthArray<double, 16> weights;
    remaining.reserve(qsizetype(group.size()));
    weights.reserve(qsizetype(group.size()));
    for (std::size_t i = 0; i < group.size(); ++i) {
        remaining.push_back(i);
        weights.push_back(weight(group[i]));
    }
    std::vector<Candidate> drawn;
    drawn.reserve(group.size());
    while (!remaining.empty()) {
        double total = 0;
        for (double w : weights)
            total += w;
        const double target = m_random.uniform() * total;
        // The last one also takes a target that rounding pushed to (or past) the total.
        qsizetype pick = remaining.size() - 1;
        double cumulative = 0;
        for (qsizetype i = 0; i < remaining.size(); ++i) {
            cumulative += weights[i];
            if (target < cumulative) {
                pick = i;
                break;
            }
        }
        drawn.push_back(std::move(group[remaining[pick]]));
        remaining.erase(remaining.cbegin() + pick);
        weights.erase(weights.cbegin() + pick);
    }
    return drawn;
}

std::vector<Candidate> ChannelOrdering::defaultOrder(std::vector<Candidate> group, QStringList &trace)
{
    trace.append(QStringLiteral("weighted random by 1/price² × health"));
    // Usually no candidate failed recently: one draw over the group as it is.
    if (std::none_of(group.begin(), group.end(), [](const Candidate &c) { return c.health.failedRecently; }))
        return weightedDraw(std::move(group));

    std::vector<Candidate> stable;
    std::vector<Candidate> failed;
    for (Candidate &candidate : group)
        (candidate.health.failedRecently ? failed : stable).push_back(std::move(candidate));

    std::vector<Candidate> ordered = weightedDraw(std::move(stable));
    const std::vector<Candidate> failedOrdered = weightedDraw(std::move(failed));
    ordered.insert(ordered.end(), failedOrdered.begin(), failedOrdered.end());
    trace.append(QStringLiteral("%1 failed recently → last").arg(idsOf(failedOrdered)));
    return ordered;
}

std::optional<double> ChannelOrdering::sortKey(const Candidate &candidate, SortBy by) const
{
    return sortKey(candidate, by, m_metrics.read());
}

std::optional<double> ChannelOrdering::sortKey(const Candidate &candidate, SortBy by,
                                               const metrics::MetricsWindow::Reading &reading) const
{
    switch (by) {
    case SortBy::Price:
        return candidatePrice(candidate);
    case SortBy::Throughput: {
        const auto tokensPerSecond = reading.percentiles(seriesOf(candidate), metrics::Measure::TokensPerSecond);
        if (!tokensPerSecond)
            return std::nullopt;
        return -tokensPerSecond->p50;   // highest first
    }
    case SortBy::Latency: {
        // Latency = time to first token (OpenRouter's latency): total latency grows with the
        // length of each answer and would rank channels by what they were asked, not how fast
        // they start.
        const auto ttft = reading.percentiles(seriesOf(candidate), metrics::Measure::TtftMs);
        if (!ttft)
            return std::nullopt;
        return ttft->p50;
    }
    }
    return std::nullopt;
}

void ChannelOrdering::sortBy(std::vector<Candidate> &group, SortBy by, QStringList &trace) const
{
    // Sorted as (key, position) pairs, then the candidates moved once into that order.
    std::vector<std::pair<std::optional<double>, std::size_t>> keyed;
    keyed.reserve(group.size());
    const metrics::MetricsWindow::Reading reading = m_metrics.read();
    for (std::size_t i = 0; i < group.size(); ++i)
        keyed.emplace_back(sortKey(group[i], by, reading), i);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto &a, const auto &b) {
        if (a.first.has_value() != b.first.has_value())
            return a.first.has_value();     // with metrics before without
        return a.first.has_value() && *a.first < *b.first;
    });

    std::vector<Candidate> sorted;
    sorted.reserve(group.size());
    std::vector<Candidate> withoutMetrics;
    for (const auto &[key, position] : keyed) {
        if (!key)
            withoutMetrics.push_back(group[position]);
        sorted.push_back(std::move(group[position]));
    }
    group = std::move(sorted);

    static const char *const descriptions[] = {"price (prompt+completion, cheapest first)",
                                               "throughput (p50 tokens/s, highest first)",
                                               "latency (p50 time to first token, lowest first)"};
    trace.append(QStringLiteral("sort by %1").arg(QLatin1String(descriptions[static_cast<int>(by)])));
    if (!withoutMetrics.empty())
        trace.append(QStringLiteral("%1 without metrics → last").arg(idsOf(withoutMetrics)));
}

void ChannelOrdering::demoteThresholdMisses(std::vector<Candidate> &group, const ProviderPreferences &prefs,
                                            QStringList &trace) const
{
    if (!prefs.preferredMinThroughput && !prefs.preferredMaxLatency)
        return;
    const metrics::MetricsWindow::Reading reading = m_metrics.read();
    const auto misses = [&](const Candidate &candidate) {
        const metrics::SeriesId series = seriesOf(candidate);
        if (prefs.preferredMinThroughput) {
            const auto throughput = reading.percentiles(series, metrics::Measure::TokensPerSecond);
            if (throughput && missesAny(*throughput, *prefs.preferredMinThroughput,
                                        [](double observed, double minimum) { return observed >= minimum; }))
                return true;
        }
        if (!prefs.preferredMaxLatency)
            return false;
        // Thresholds are in seconds, time to first token in ms.
        const auto ttft = reading.percentiles(series, metrics::Measure::TtftMs);
        return ttft && missesAny(*ttft, *prefs.preferredMaxLatency,
                                 [](double observedMs, double maximumSeconds) { return observedMs <= maximumSeconds * 1000.0; });
    };
    const std::vector<Candidate> moved = moveToEnd(group, misses);
    if (!moved.empty())
        trace.append(QStringLiteral("%1 below preferred thresholds → end").arg(idsOf(moved)));
}

void ChannelOrdering::demoteCoolingDown(std::vector<Candidate> &group, QStringList &trace) const
{
    const std::vector<Candidate> moved = moveToEnd(
        group, [](const Candidate &candidate) { return candidate.health.coolingDown; });
    if (!moved.empty())
        trace.append(QStringLiteral("%1 cooling down → very end (last resort)").arg(idsOf(moved)));
}

} // namespace sy::routing
