#pragma once
// MetricsWindow: live performance of each (channel, model) over a rolling window (default 5 min,
// SPEC §3.5, §10): time to first token, total latency and throughput percentiles, request and
// error counts, in-flight. The routing policies (`sort`, `preferred_*` thresholds, the health
// factor) and the dashboard read it.
//
// Time comes from the injected Clock, so tests step across bucket and window boundaries.
// Thread: one thread (the gateway thread); snapshots are plain values safe to hand elsewhere.
#include "core/Clock.h"

#include <QHash>
#include <QString>
#include <chrono>
#include <optional>
#include <vector>

namespace sy::metrics {

struct ChannelModel {
    QString channelId;
    QString modelId;
    friend bool operator==(const ChannelModel &, const ChannelModel &) = default;
};
inline size_t qHash(const ChannelModel &key, size_t seed = 0)
{
    return ::qHash(key.channelId, seed) ^ (::qHash(key.modelId, seed) * 31);
}

struct Percentiles {
    double p50 = 0;
    double p75 = 0;
    double p90 = 0;
    double p99 = 0;
};

// What one finished attempt contributes.
struct AttemptSample {
    bool success = false;
    std::optional<std::chrono::milliseconds> timeToFirstToken;  // streams, or first byte of plain
    std::chrono::milliseconds totalLatency{0};                  // upstream time only, never queue time
    std::optional<double> tokensPerSecond;                      // completion tokens / generation time
};

struct MetricsSnapshot {
    quint64 requests = 0;          // finished attempts in the window
    quint64 errors = 0;            // of which failed
    int inFlight = 0;
    double errorRate = 0;          // errors / requests; 0 when no requests
    std::optional<Percentiles> ttftMs;          // absent when no sample in the window
    std::optional<Percentiles> latencyMs;
    std::optional<Percentiles> tokensPerSecond;
};

class MetricsWindow {
public:
    explicit MetricsWindow(const Clock &clock, std::chrono::seconds window = std::chrono::minutes(5),
                           std::chrono::seconds bucket = std::chrono::seconds(10));

    void recordStart(const ChannelModel &key);
    void recordFinish(const ChannelModel &key, const AttemptSample &sample);
    // Forget an attempt that was started but never finished with a sample (e.g. cancelled).
    void recordAbandoned(const ChannelModel &key);

    // Metrics of `key` over the window ending now. Cheap enough for every routing decision:
    // percentiles are recomputed at most once per second per key.
    MetricsSnapshot snapshot(const ChannelModel &key) const;
    // Every key seen in the window (for the dashboard and /metrics).
    std::vector<ChannelModel> keys() const;

private:
    struct Series;
    const Clock &m_clock;
    std::chrono::seconds m_window;
    std::chrono::seconds m_bucket;
    mutable QHash<ChannelModel, std::shared_ptr<Series>> m_series;
};

} // namespace sy::metrics
