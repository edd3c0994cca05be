#include "failover/HealthTracker.h"

#include <algorithm>
#include <cmath>

namespace sy::failover {

const char *healthStateName(HealthState state)
{
    switch (state) {
    case HealthState::Healthy: return "healthy";
    case HealthState::Degraded: return "degraded";
    case HealthState::CoolingDown: return "cooling_down";
    case HealthState::SimulatedDown: return "simulated_down";
    }
    return "healthy";
}

HealthTracker::HealthTracker(const Clock &clock, HealthPolicy policy)
    : m_clock(clock)
    , m_policy(policy)
{
}

int HealthTracker::channelIndex(const QString &channelId) const
{
    const auto it = m_channelIndex.constFind(channelId);
    if (it != m_channelIndex.cend())
        return *it;
    const int index = int(m_channels.size());
    m_channels.emplace_back();
    m_channelIndex.insert(channelId, index);
    return index;
}

HealthTracker::Channel &HealthTracker::channel(const QString &channelId)
{
    return m_channels[size_t(channelIndex(channelId))];
}

HealthTracker::Channel *HealthTracker::find(const QString &channelId) const
{
    const auto it = m_channelIndex.constFind(channelId);
    return it == m_channelIndex.cend() ? nullptr : &m_channels[size_t(*it)];
}

const HealthTracker::RecentLatency *HealthTracker::Channel::latencyOf(const QString &modelId) const
{
    const auto it = latencyIndex.constFind(modelId);
    return it == latencyIndex.cend() ? nullptr : &latency[size_t(*it)];
}

void HealthTracker::advance(Channel &c, Clock::TimePoint now) const
{
    const auto recentFrom = now - m_policy.recentWindow;
    const auto factorFrom = now - m_policy.factorWindow;
    while (c.recentStart < c.outcomes.size() && c.outcomes[c.recentStart].at < recentFrom) {
        --c.recentTotal;
        c.recentFailures -= c.outcomes[c.recentStart].success ? 0 : 1;
        ++c.recentStart;
    }
    while (c.factorStart < c.outcomes.size() && c.outcomes[c.factorStart].at < factorFrom) {
        --c.factorTotal;
        c.factorFailures -= c.outcomes[c.factorStart].success ? 0 : 1;
        ++c.factorStart;
    }
    // Outcomes outside both windows are no longer needed.
    const size_t drop = std::min(c.recentStart, c.factorStart);
    if (drop == 0)
        return;
    c.outcomes.erase(c.outcomes.begin(), c.outcomes.begin() + qsizetype(drop));
    c.recentStart -= drop;
    c.factorStart -= drop;
}

void HealthTracker::record(Channel &c, bool success) const
{
    const auto now = m_clock.now();
    advance(c, now);
    c.outcomes.push_back({now, success});
    ++c.recentTotal;
    ++c.factorTotal;
    if (!success) {
        ++c.recentFailures;
        ++c.factorFailures;
    }
}

void HealthTracker::startCooldown(Channel &c)
{
    const std::chrono::milliseconds length = std::min<std::chrono::milliseconds>(
        m_policy.cooldownMax, m_policy.cooldownBase * (1LL << std::min(c.cooldownLevel, 20)));
    c.cooldownUntil = m_clock.now() + length;
    ++c.cooldownLevel;
    c.consecutiveFailures = 0;
    c.probing = true;  // when it ends, the first outcome is the probe's
}

void HealthTracker::recordSuccess(const QString &channelId, const QString &modelId, std::chrono::microseconds latency)
{
    Channel &c = channel(channelId);
    const double us = double(std::max<std::chrono::microseconds::rep>(latency.count(), 0));
    record(c, true);
    c.consecutiveFailures = 0;
    c.cooldownLevel = 0;
    c.probing = false;
    c.cooldownUntil = {};
    auto index = c.latencyIndex.constFind(modelId);
    if (index == c.latencyIndex.cend()) {
        index = c.latencyIndex.insert(modelId, int(c.latency.size()));
        c.latency.emplace_back();
    }
    RecentLatency &l = c.latency[size_t(*index)];
    l.ring[size_t(l.next)] = {m_clock.now(), us};
    l.next = (l.next + 1) % RecentLatency::kSize;
    l.count = std::min(l.count + 1, RecentLatency::kSize);
    // A slow average (about the last 20 successes) is the channel's own normal; a slowdown must
    // not become the new normal as fast as it is noticed, so outliers move it slowly.
    if (!l.normalUs) {
        l.normalUs = us;
    } else {
        const double weight = us > *l.normalUs * m_policy.slowRatio ? 0.01 : 0.05;
        l.normalUs = *l.normalUs * (1.0 - weight) + us * weight;
    }
}

void HealthTracker::recordFailure(const QString &channelId, const QString &)
{
    Channel &c = channel(channelId);
    record(c, false);
    const bool probeFailed = c.probing && m_clock.now() >= c.cooldownUntil;
    if (probeFailed) {
        startCooldown(c);
        return;
    }
    if (++c.consecutiveFailures >= m_policy.failuresToCool && m_clock.now() >= c.cooldownUntil)
        startCooldown(c);
}

void HealthTracker::setSimulatedDown(const QString &channelId, Clock::TimePoint until)
{
    channel(channelId).simulatedUntil = until;
}

void HealthTracker::clearSimulatedDown(const QString &channelId)
{
    channel(channelId).simulatedUntil = {};
}

bool HealthTracker::failedRecentlyIn(const Channel &c) const
{
    return c.recentFailures >= m_policy.recentFailures && c.recentTotal > 0
        && double(c.recentFailures) / double(c.recentTotal) >= m_policy.recentFailureShare;
}

bool HealthTracker::coolingDownAt(const Channel &c, Clock::TimePoint now)
{
    return now < c.cooldownUntil || now < c.simulatedUntil;
}

double HealthTracker::factorOf(const Channel &c, const RecentLatency *latency, Clock::TimePoint now) const
{
    // Laplace smoothing: one failure in two requests is not yet a 50 % channel.
    const double errorRate = double(c.factorFailures) / double(c.factorTotal + 2);
    double factor = (1.0 - errorRate) * (1.0 - errorRate);
    if (latency && latency->normalUs) {
        const auto since = now - m_policy.factorWindow;
        double sum = 0;
        int n = 0;
        for (int i = 0; i < latency->count; ++i) {
            const auto &[at, us] = latency->ring[size_t(i)];
            if (at >= since) {
                sum += us;
                ++n;
            }
        }
        if (n > 0) {
            // A normal below the clock's resolution is taken as 1 µs, so the ratio stays finite.
            const double ratio = (sum / n) / std::max(*latency->normalUs, 1.0);
            if (ratio > m_policy.slowRatio)
                factor *= m_policy.slowRatio / ratio;
        }
    }
    return std::clamp(factor, 0.01, 1.0);
}

bool HealthTracker::failedRecently(const QString &channelId) const
{
    Channel *c = find(channelId);
    if (!c)
        return false;
    advance(*c, m_clock.now());
    return failedRecentlyIn(*c);
}

bool HealthTracker::isCoolingDown(const QString &channelId) const
{
    const Channel *c = find(channelId);
    if (!c)
        return false;
    return coolingDownAt(*c, m_clock.now());
}

double HealthTracker::healthFactor(const QString &channelId, const QString &modelId) const
{
    Channel *c = find(channelId);
    if (!c)
        return 1.0;
    const auto now = m_clock.now();
    advance(*c, now);
    return factorOf(*c, c->latencyOf(modelId), now);
}

routing::HealthFacts HealthTracker::factsOf(Channel &c, const RecentLatency *latency, Clock::TimePoint now) const
{
    advance(c, now);
    return {failedRecentlyIn(c), coolingDownAt(c, now), factorOf(c, latency, now)};
}

routing::HealthFacts HealthTracker::facts(const QString &channelId, const QString &modelId) const
{
    Channel *c = find(channelId);
    if (!c)
        return {};
    return factsOf(*c, c->latencyOf(modelId), m_clock.now());
}

routing::HealthKey HealthTracker::keyOf(const QString &channelId, const QString &modelId) const
{
    const int index = channelIndex(channelId);
    Channel &c = m_channels[size_t(index)];
    auto model = c.latencyIndex.constFind(modelId);
    if (model == c.latencyIndex.cend()) {
        model = c.latencyIndex.insert(modelId, int(c.latency.size()));
        c.latency.emplace_back();
    }
    return {index, *model};
}

void HealthTracker::fillFacts(std::span<routing::Candidate> candidates) const
{
    const auto now = m_clock.now();
    for (routing::Candidate &candidate : candidates) {
        const routing::HealthKey key = candidate.keys.health;
        if (key.channel >= 0 && size_t(key.channel) < m_channels.size()) {
            Channel &c = m_channels[size_t(key.channel)];
            const bool numbered = key.model >= 0 && size_t(key.model) < c.latency.size();
            candidate.health = factsOf(c, numbered ? &c.latency[size_t(key.model)] : c.latencyOf(candidate.modelId), now);
            continue;
        }
        Channel *c = find(candidate.channel->id);
        candidate.health = c ? factsOf(*c, c->latencyOf(candidate.modelId), now) : routing::HealthFacts{};
    }
}

HealthState HealthTracker::state(const QString &channelId) const
{
    const Channel *it = find(channelId);
    if (!it)
        return HealthState::Healthy;
    const auto now = m_clock.now();
    if (now < it->simulatedUntil)
        return HealthState::SimulatedDown;
    if (now < it->cooldownUntil)
        return HealthState::CoolingDown;
    if (failedRecently(channelId))
        return HealthState::Degraded;
    return HealthState::Healthy;
}

Clock::TimePoint HealthTracker::cooldownUntil(const QString &channelId) const
{
    const Channel *c = find(channelId);
    return c ? c->cooldownUntil : Clock::TimePoint{};
}

} // namespace sy::failover
