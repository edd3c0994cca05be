#include "metrics/MetricsWindow.h"

#include "metrics/NearestRank.h"
#include "metrics/SampleReservoir.h"

#include <algorithm>
#include <cmath>

namespace sy::metrics {

namespace {

// One time bucket of one key. A ring slot is reused for a later bucket index once its own index
// has left the window; `index` says which bucket the slot currently holds.
struct Bucket {
    std::int64_t index = INT64_MIN;
    quint64 requests = 0;
    quint64 errors = 0;
    SampleReservoir ttftUs{MetricsWindow::kMaxSamplesPerBucket};     // microseconds
    SampleReservoir latencyUs{MetricsWindow::kMaxSamplesPerBucket};  // microseconds
    SampleReservoir tokensPerSecond{MetricsWindow::kMaxSamplesPerBucket};

    void reuseFor(std::int64_t newIndex)
    {
        index = newIndex;
        requests = 0;
        errors = 0;
        ttftUs.clear();
        latencyUs.clear();
        tokensPerSecond.clear();
    }
};

struct CachedPercentiles {
    bool valid = false;
    Clock::TimePoint computedAt{};
    std::int64_t newestBucket = INT64_MIN;
    std::optional<Percentiles> ttftMs;
    std::optional<Percentiles> latencyMs;
    std::optional<Percentiles> tokensPerSecond;
};

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Division, not a multiplication by 1e-3: a whole number of milliseconds stays exact.
std::optional<Percentiles> toMilliseconds(std::optional<Percentiles> microseconds)
{
    if (microseconds) {
        microseconds->p50 /= 1000.0;
        microseconds->p75 /= 1000.0;
        microseconds->p90 /= 1000.0;
        microseconds->p99 /= 1000.0;
    }
    return microseconds;
}

double nonNegativeMicroseconds(std::chrono::microseconds d)
{
    return static_cast<double>(std::max<std::chrono::microseconds::rep>(0, d.count()));
}

void appendWeighted(std::vector<WeightedValue> &out, const SampleReservoir &reservoir)
{
    const double weight = reservoir.weightPerValue();
    for (double value : reservoir.values())
        out.push_back({value, weight});
}

} // namespace

struct MetricsWindow::Series {
    std::vector<Bucket> ring;
    int inFlight = 0;
    Clock::TimePoint lastTouched{};
    std::uint64_t randomState = 0;
    CachedPercentiles cache;

    bool isLive(const Bucket &bucket, std::int64_t newest) const
    {
        const auto count = static_cast<std::int64_t>(ring.size());
        return bucket.index != INT64_MIN && bucket.index <= newest && bucket.index > newest - count;
    }

    Bucket &bucketAt(std::int64_t index)
    {
        const auto count = static_cast<std::int64_t>(ring.size());
        Bucket &bucket = ring[static_cast<std::size_t>(((index % count) + count) % count)];
        if (bucket.index != index)
            bucket.reuseFor(index);
        return bucket;
    }

    // The cached percentiles, recomputed first when stale (see "Cache" in the header).
    const CachedPercentiles &percentilesAt(Clock::TimePoint now, std::int64_t newest)
    {
        if (!cache.valid || cache.newestBucket != newest || now - cache.computedAt >= kRecomputeInterval)
            recomputePercentiles(now, newest);
        return cache;
    }

    void recomputePercentiles(Clock::TimePoint now, std::int64_t newest)
    {
        std::vector<WeightedValue> values;
        auto percentilesOf = [&](SampleReservoir Bucket::*measure) {
            values.clear();
            for (const Bucket &bucket : ring) {
                if (isLive(bucket, newest))
                    appendWeighted(values, bucket.*measure);
            }
            return nearestRankPercentiles(values);
        };
        cache.ttftMs = toMilliseconds(percentilesOf(&Bucket::ttftUs));
        cache.latencyMs = toMilliseconds(percentilesOf(&Bucket::latencyUs));
        cache.tokensPerSecond = percentilesOf(&Bucket::tokensPerSecond);
        cache.valid = true;
        cache.computedAt = now;
        cache.newestBucket = newest;
    }
};

MetricsWindow::MetricsWindow(const Clock &clock, std::chrono::seconds window, std::chrono::seconds bucket)
    : m_clock(clock), m_bucket(std::max(bucket, std::chrono::seconds(1)))
{
    const auto requested = std::max(window, m_bucket);
    m_bucketCount = static_cast<int>((requested.count() + m_bucket.count() - 1) / m_bucket.count());
    m_window = m_bucket * m_bucketCount;
}

MetricsWindow::~MetricsWindow() = default;

std::int64_t MetricsWindow::bucketIndexAt(Clock::TimePoint time) const
{
    const auto sinceEpoch = time.time_since_epoch();
    const auto bucketLength = std::chrono::duration_cast<Clock::TimePoint::duration>(m_bucket);
    return floorDiv(sinceEpoch.count(), bucketLength.count());
}

SeriesId MetricsWindow::idOf(const ChannelModel &key) const
{
    const auto it = m_ids.constFind(key);
    if (it != m_ids.cend())
        return *it;
    const auto id = static_cast<SeriesId>(m_slots.size());
    m_slots.push_back({key, nullptr});
    m_ids.insert(key, id);
    return id;
}

MetricsWindow::Series *MetricsWindow::find(const ChannelModel &key) const
{
    const auto it = m_ids.constFind(key);
    return it == m_ids.cend() ? nullptr : m_slots[static_cast<std::size_t>(*it)].series.get();
}

MetricsWindow::Series &MetricsWindow::seriesFor(const ChannelModel &key)
{
    std::shared_ptr<Series> &slot = m_slots[static_cast<std::size_t>(idOf(key))].series;
    if (!slot) {
        slot = std::make_shared<Series>();
        slot->ring.resize(static_cast<std::size_t>(m_bucketCount));
        slot->randomState = m_nextSeed;
        m_nextSeed = nextRandom(m_nextSeed);
    }
    return *slot;
}

void MetricsWindow::pruneIdle(Clock::TimePoint now, bool force) const
{
    const std::int64_t current = bucketIndexAt(now);
    if (!force && current == m_lastPruneBucket)
        return;
    m_lastPruneBucket = current;
    // Idle for a whole window means every sample of the key has expired (each expires at most one
    // window after it was recorded), so nothing observable is lost.
    for (Slot &slot : m_slots) {
        if (slot.series && slot.series->inFlight == 0 && now - slot.series->lastTouched >= m_window)
            slot.series.reset();
    }
}

void MetricsWindow::recordStart(const ChannelModel &key)
{
    const auto now = m_clock.now();
    pruneIdle(now, false);
    Series &series = seriesFor(key);
    ++series.inFlight;
    series.lastTouched = now;
}

void MetricsWindow::recordFinish(const ChannelModel &key, const AttemptSample &sample)
{
    const auto now = m_clock.now();
    pruneIdle(now, false);
    Series &series = seriesFor(key);
    // A finish without a matching start (a caller that records only outcomes) still counts as a
    // request but must not drive inFlight below zero.
    series.inFlight = std::max(0, series.inFlight - 1);
    series.lastTouched = now;

    Bucket &bucket = series.bucketAt(bucketIndexAt(now));
    ++bucket.requests;
    if (!sample.success) {
        ++bucket.errors;
        return;
    }
    if (sample.timeToFirstToken)
        bucket.ttftUs.offer(nonNegativeMicroseconds(*sample.timeToFirstToken), series.randomState);
    bucket.latencyUs.offer(nonNegativeMicroseconds(sample.totalLatency), series.randomState);
    // A rate that is not a finite non-negative number (e.g. zero generation time) says nothing.
    if (sample.tokensPerSecond && std::isfinite(*sample.tokensPerSecond) && *sample.tokensPerSecond >= 0)
        bucket.tokensPerSecond.offer(*sample.tokensPerSecond, series.randomState);
}

void MetricsWindow::recordAbandoned(const ChannelModel &key)
{
    const auto now = m_clock.now();
    Series *found = find(key);
    if (!found)
        return;  // nothing was started here; do not create a key for it
    Series &series = *found;
    series.inFlight = std::max(0, series.inFlight - 1);
    series.lastTouched = now;
}

MetricsSnapshot MetricsWindow::snapshot(const ChannelModel &key) const
{
    return snapshotOf(key, true);
}

MetricsSnapshot MetricsWindow::percentiles(const ChannelModel &key) const
{
    return snapshotOf(key, false);
}

MetricsSnapshot MetricsWindow::snapshotOf(const ChannelModel &key, bool withCounts) const
{
    MetricsSnapshot result;
    Series *found = find(key);
    if (!found)
        return result;
    Series &series = *found;
    const auto now = m_clock.now();
    const std::int64_t newest = bucketIndexAt(now);

    // Counts are a sum over at most bucketCount slots: exact on every call.
    if (withCounts) {
        for (const Bucket &bucket : series.ring) {
            if (series.isLive(bucket, newest)) {
                result.requests += bucket.requests;
                result.errors += bucket.errors;
            }
        }
        result.inFlight = series.inFlight;
        result.errorRate = result.requests == 0
            ? 0.0
            : static_cast<double>(result.errors) / static_cast<double>(result.requests);
    }

    const CachedPercentiles &cache = series.percentilesAt(now, newest);
    result.ttftMs = cache.ttftMs;
    result.latencyMs = cache.latencyMs;
    result.tokensPerSecond = cache.tokensPerSecond;
    return result;
}

MetricsWindow::Reading::Reading(const MetricsWindow &window, Clock::TimePoint now)
    : m_window(window), m_now(now), m_newest(window.bucketIndexAt(now))
{
}

MetricsWindow::Reading MetricsWindow::read() const
{
    return Reading(*this, m_clock.now());
}

std::optional<Percentiles> MetricsWindow::Reading::percentiles(SeriesId id, Measure measure) const
{
    if (id < 0 || static_cast<std::size_t>(id) >= m_window.m_slots.size())
        return std::nullopt;
    Series *series = m_window.m_slots[static_cast<std::size_t>(id)].series.get();
    if (!series)
        return std::nullopt;
    const CachedPercentiles &cache = series->percentilesAt(m_now, m_newest);
    switch (measure) {
    case Measure::TtftMs: return cache.ttftMs;
    case Measure::LatencyMs: return cache.latencyMs;
    case Measure::TokensPerSecond: return cache.tokensPerSecond;
    }
    return std::nullopt;
}

std::vector<ChannelModel> MetricsWindow::keys() const
{
    pruneIdle(m_clock.now(), true);
    std::vector<ChannelModel> result;
    for (const Slot &slot : m_slots) {
        if (slot.series)
            result.push_back(slot.key);
    }
    // A stable order for the dashboard and /metrics, whatever the hash order.
    std::sort(result.begin(), result.end(), [](const ChannelModel &a, const ChannelModel &b) {
        return a.channelId != b.channelId ? a.channelId < b.channelId : a.modelId < b.modelId;
    });
    return result;
}

std::size_t MetricsWindow::keptSampleCount(const ChannelModel &key) const
{
    const Series *series = find(key);
    if (!series)
        return 0;
    std::size_t count = 0;
    for (const Bucket &bucket : series->ring)
        count += bucket.ttftUs.values().size() + bucket.latencyUs.values().size()
            + bucket.tokensPerSecond.values().size();
    return count;
}

} // namespace sy::metrics
