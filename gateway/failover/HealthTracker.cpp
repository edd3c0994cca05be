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

HealthTracker::Channel &HealthTracker::channel(const QString &channelId)
{
    return m_channels[channelId];
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
    RecentLatency &l = c.latency[modelId];
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

double HealthTracker::factorOf(const Channel &c, const QString &modelId, Clock::TimePoint now) const
{
    // Laplace smoothing: one failure in two requests is not yet a 50 % channel.
    const double errorRate = double(c.factorFailures) / double(c.factorTotal + 2);
    double factor = (1.0 - errorRate) * (1.0 - errorRate);
    const auto latency = c.latency.constFind(modelId);
    if (latency != c.latency.cend() && latency->normalUs) {
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
    const auto it = m_channels.find(channelId);
    if (it == m_channels.end())
        return false;
    advance(*it, m_clock.now());
    return failedRecentlyIn(*it);
}

bool HealthTracker::isCoolingDown(const QString &channelId) const
{
    const auto it = m_channels.constFind(channelId);
    if (it == m_channels.cend())
        return false;
    return coolingDownAt(*it, m_clock.now());
}

double HealthTracker::healthFactor(const QString &channelId, const QString &modelId) const
{
    const auto it = m_channels.find(channelId);
    if (it == m_channels.end())
        return 1.0;
    const auto now = m_clock.now();
    advance(*it, now);
    return factorOf(*it, modelId, now);
}

routing::HealthFacts HealthTracker::facts(const QString &channelId, const QString &modelId) const
{
    const auto it = m_channels.find(channelId);
    if (it == m_channels.end())
        return {};
    const auto now = m_clock.now();
    advance(*it, now);
    return {failedRecentlyIn(*it), coolingDownAt(*it, now), factorOf(*it, modelId, now)};
}

HealthState HealthTracker::state(const QString &channelId) const
{
    const auto it = m_channels.constFind(channelId);
    if (it == m_channels.cend())
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
    return m_channels.value(channelId).cooldownUntil;
}

} // namespace sy::failover
