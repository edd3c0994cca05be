#include "metrics/NearestRank.h"

#include <algorithm>
#include <array>

namespace sy::metrics {

std::optional<Percentiles> nearestRankPercentiles(std::vector<WeightedValue> &values)
{
    double totalWeight = 0;
    for (const WeightedValue &v : values)
        totalWeight += v.weight;
    if (values.empty() || !(totalWeight > 0))
        return std::nullopt;

    std::sort(values.begin(), values.end(),
              [](const WeightedValue &a, const WeightedValue &b) { return a.value < b.value; });

    constexpr std::array<int, 4> kPercents{50, 75, 90, 99};
    std::array<double, 4> results{};
    std::size_t next = 0;
    double cumulative = 0;
    for (const WeightedValue &v : values) {
        cumulative += v.weight;
        // Fractional weights are sums of seen/kept ratios; the relative slack keeps float rounding
        // from pushing a rank that is exactly met one value too far. With unit weights both sides
        // are exact whenever the threshold is a whole number, so the slack never changes a rank.
        while (next < kPercents.size()
               && cumulative >= kPercents[next] * totalWeight / 100.0 * (1.0 - 1e-12)) {
            results[next] = v.value;
            ++next;
        }
        if (next == kPercents.size())
            break;
    }
    while (next < kPercents.size())  // only reachable through rounding: the top value
        results[next++] = values.back().value;

    return Percentiles{results[0], results[1], results[2], results[3]};
}

} // namespace sy::metrics
