#pragma once
// Sample builders shared by the metrics tests.
#include "metrics/MetricsWindow.h"

#include <chrono>
#include <optional>

namespace sy::metrics::test {

inline AttemptSample successMs(int latencyMs, std::optional<int> ttftMs = std::nullopt,
                               std::optional<double> tokensPerSecond = std::nullopt)
{
    AttemptSample sample;
    sample.success = true;
    sample.totalLatency = std::chrono::milliseconds(latencyMs);
    if (ttftMs)
        sample.timeToFirstToken = std::chrono::milliseconds(*ttftMs);
    sample.tokensPerSecond = tokensPerSecond;
    return sample;
}

inline AttemptSample failureMs(int latencyMs)
{
    AttemptSample sample;
    sample.success = false;
    sample.totalLatency = std::chrono::milliseconds(latencyMs);
    return sample;
}

} // namespace sy::metrics::test
