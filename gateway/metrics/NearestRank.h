#pragma once
// Nearest-rank percentiles over weighted values: pN is the smallest value v such that the weights
// of values <= v add up to at least N% of the total weight. With every weight 1 this is the
// textbook nearest rank, value number ceil(N/100 * n) of the sorted list (1-based). No
// interpolation: each reported percentile is a value that was observed.
#include "metrics/MetricsWindow.h"

#include <optional>
#include <vector>

namespace sy::metrics {

struct WeightedValue {
    double value = 0;
    double weight = 1;  // how many observed samples this value stands for; > 0
};

// p50/p75/p90/p99 of `values`, or nothing when it is empty or weighs nothing. Sorts `values`.
std::optional<Percentiles> nearestRankPercentiles(std::vector<WeightedValue> &values);

} // namespace sy::metrics
