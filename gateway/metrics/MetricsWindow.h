#pragma once
// MetricsWindow: live performance of each (channel, model) over a rolling window (default 5 min,
// SPEC §3.5, §10): time to first token, total latency and throughput percentiles, request and
// error counts, in-flight. The routing policies (`sort`, `preferred_*` thresholds, the health
// factor) and the dashboard read it.
//
// Time comes from the injected Clock, so tests step across bucket and window boundaries.
// Thread: one thread (the gateway thread); snapshots are plain values safe to hand elsewhere.
//
// Exact rules (the tests pin each of them):
// - Buckets. Steady time is cut into buckets of `bucket` length aligned to the clock's epoch; the
//   window holds ceil(window / bucket) buckets, the newest being the one `now` falls in (so a
//   window that is not a whole number of buckets is rounded up to one).
// - Expiry. A sample recorded at t belongs to the bucket starting at bucketStart(t) <= t and is
//   counted while  now < bucketStart(t) + window , i.e. for at least window - bucket and at most
//   window after it was recorded. At now == bucketStart(t) + window it is gone.
// - Percentiles. Nearest rank: the smallest kept value v such that at least p% of the (weighted)
//   samples are <= v. No interpolation, so every reported value was really observed.
// - Units. TTFT and latency are kept in microseconds and reported in milliseconds as doubles,
//   so sub-millisecond upstreams keep their differences.
// - Memory. Each bucket keeps at most kMaxSamplesPerBucket values per measure, chosen by
//   reservoir sampling (a uniform random subset, deterministic seed). Each kept value then stands
//   for seen / kept samples of its bucket, so a busy bucket keeps its true share against quiet
//   ones. Worst case per key: buckets x 3 measures x 512 doubles (~370 KB at 30 buckets).
// - Successes feed TTFT, latency and tokens/s; failed attempts count only as errors, and their
//   latency is ignored: a channel that refuses connections in 2 ms must not look fast. Health
//   (failover/) judges failures.
// - Cache. Percentiles are recomputed on snapshot() when the last computation is >= 1 s of Clock
//   time old or the newest bucket changed since (buckets rotated, so samples may have expired);
//   they may therefore lag a new sample by under a second. requests, errors, errorRate and
//   inFlight are summed on every call and always exact.
// - Idle keys. A key with nothing in flight and no record call for a whole window is dropped
//   (all its samples have expired by then): from keys() and, at most once per bucket, on record.
// - Numbers. idOf() gives a key a number (SeriesId) for reads that must not hash its ids each time
//   (a routing decision reads every candidate). A number is never reused and stays valid for the
//   window's lifetime: it sees the key's samples whenever they are recorded, before or after it
//   was given, and after an idle drop. A numbered key keeps only its number and ids when dropped.
#include "core/Clock.h"

#include <QHash>
#include <QString>
#include <chrono>
#include <cstdint>
#include <memory>
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

// MetricsWindow::idOf(): the window's number for a key; -1 is no key.
using SeriesId = int;

// The measures a Reading answers for one at a time.
enum class Measure { TtftMs, LatencyMs, TokensPerSecond };

struct Percentiles {
    double p50 = 0;
    double p75 = 0;
    double p90 = 0;
    double p99 = 0;
};

// What one finished attempt contributes. Durations in microseconds, so an upstream that answers
// in under a millisecond is measured, not rounded to 0 (a caller holding milliseconds converts
// implicitly, at millisecond precision).
struct AttemptSample {
    bool success = false;
    std::optional<std::chrono::microseconds> timeToFirstToken;  // streams, or first byte of plain
    std::chrono::microseconds totalLatency{0};                  // upstream time only, never queue time
    std::optional<double> tokensPerSecond;                      // completion tokens / generation time
};

struct MetricsSnapshot {
    quint64 requests = 0;          // finished attempts in the window
    quint64 errors = 0;            // of which failed
    int inFlight = 0;
    double errorRate = 0;          // errors / requests; 0 when no requests
    // Milliseconds with a fractional part (samples are kept in microseconds): 300 µs is 0.3.
    std::optional<Percentiles> ttftMs;          // absent when no sample in the window
    std::optional<Percentiles> latencyMs;
    std::optional<Percentiles> tokensPerSecond;
};

class MetricsWindow {
public:
    static constexpr int kMaxSamplesPerBucket = 512;  // per measure (TTFT, latency, tokens/s)
    static constexpr std::chrono::seconds kRecomputeInterval{1};

    // `bucket` below 1 s is raised to 1 s; `window` below one bucket is raised to one bucket.
    // The clock must outlive this object.
    explicit MetricsWindow(const Clock &clock, std::chrono::seconds window = std::chrono::minutes(5),
                           std::chrono::seconds bucket = std::chrono::seconds(10));
    ~MetricsWindow();
    MetricsWindow(const MetricsWindow &) = delete;
    MetricsWindow &operator=(const MetricsWindow &) = delete;

    void recordStart(const ChannelModel &key);
    void recordFinish(const ChannelModel &key, const AttemptSample &sample);
    // Forget an attempt that was started but never finished with a sample (e.g. cancelled).
    void recordAbandoned(const ChannelModel &key);

    // Metrics of `key` over the window ending now. Cheap enough for every routing decision:
    // percentiles are recomputed at most once per second per key.
    MetricsSnapshot snapshot(const ChannelModel &key) const;
    // snapshot() without the counts (requests, errors, inFlight and errorRate stay 0): the
    // routing decision reads only the percentiles, once per candidate, and the counts are a sum
    // over every bucket of the window.
    MetricsSnapshot percentiles(const ChannelModel &key) const;
    // The number of `key` (given on the first call, the same ever after), for read().
    SeriesId idOf(const ChannelModel &key) const;

    // The window at one instant, for many reads by number: the clock is read once, when read()
    // makes it. Valid while the window lives; meant to be used at once (one decision), not kept.
    class Reading {
    public:
        // One measure's percentiles of the key numbered `id` (units as in MetricsSnapshot), the
        // same values snapshot() gives at this instant; nullopt without a sample in the window.
        std::optional<Percentiles> percentiles(SeriesId id, Measure measure) const;

    private:
        friend class MetricsWindow;
        Reading(const MetricsWindow &window, Clock::TimePoint now);
        const MetricsWindow &m_window;
        Clock::TimePoint m_now;
        std::int64_t m_newest;
    };
    Reading read() const;

    // Every key seen in the window (for the dashboard and /metrics).
    std::vector<ChannelModel> keys() const;

    // The effective window (a whole number of buckets) and the bucket length.
    std::chrono::seconds window() const { return m_window; }
    std::chrono::seconds bucket() const { return m_bucket; }
    // Values currently held for `key` over all its buckets and measures, live or not yet reused
    // (the memory bound made visible for tests and diagnostics).
    std::size_t keptSampleCount(const ChannelModel &key) const;

private:
    struct Series;
    struct Slot {
        ChannelModel key;
        std::shared_ptr<Series> series;   // null while the key has nothing in the window
    };
    Series &seriesFor(const ChannelModel &key);
    Series *find(const ChannelModel &key) const;
    MetricsSnapshot snapshotOf(const ChannelModel &key, bool withCounts) const;
    std::int64_t bucketIndexAt(Clock::TimePoint time) const;
    // Drops idle keys; runs its sweep at most once per bucket unless `force`.
    void pruneIdle(Clock::TimePoint now, bool force) const;

    const Clock &m_clock;
    std::chrono::seconds m_window;
    std::chrono::seconds m_bucket;
    int m_bucketCount = 1;
    std::uint64_t m_nextSeed = 0x9E3779B97F4A7C15ull;
    mutable std::int64_t m_lastPruneBucket = INT64_MIN;
    // Keys by number; a slot is never removed (an idle drop clears its series), so numbers stay.
    mutable QHash<ChannelModel, SeriesId> m_ids;
    mutable std::vector<Slot> m_slots;
};

} // namespace sy::metrics
