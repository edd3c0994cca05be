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

void HealthTracker::advance(Channel &c) const
{
    const auto now = m_clock.now();
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
    c.outcomes.erase(c.outcomes.begin(), c.outcomes.begin() + qsizetype(drop));
    c.recentStart -= drop;
    c.factorStart -= drop;
}

void HealthTracker::record(Channel &c, bool success) const
{
    advance(c);
    c.outcomes.push_back({m_clock.now(), success});
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

bool HealthTracker::failedRecently(const QString &channelId) const
{
    const auto it = m_channels.find(channelId);
    if (it == m_channels.end())
        return false;
    advance(*it);
    return it->recentFailures >= m_policy.recentFailures && it->recentTotal > 0
        && double(it->recentFailures) / double(it->recentTotal) >= m_policy.recentFailureShare;
}

bool HealthTracker::isCoolingDown(const QString &channelId) const
{
    const auto it = m_channels.constFind(channelId);
    if (it == m_channels.cend())
        return false;
    const auto now = m_clock.now();
    return now < it->cooldownUntil || now < it->simulatedUntil;
}

double HealthTracker::healthFactor(const QString &channelId, const QString &modelId) const
{
    const auto it = m_channels.find(channelId);
    if (it == m_channels.end())
        return 1.0;
    advance(*it);
    // Laplace smoothing: one failure in two requests is not yet a 50 % channel.
    const double errorRate = double(it->factorFailures) / double(it->factorTotal + 2);
    double factor = std::pow(1.0 - errorRate, 2);
    const auto latency = it->latency.constFind(modelId);
    if (latency != it->latency.cend() && latency->normalUs) {
        const auto since = m_clock.now() - m_policy.factorWindow;
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
