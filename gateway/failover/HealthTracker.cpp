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

void HealthTracker::prune(Channel &c) const
{
    const auto horizon = m_clock.now() - std::max<std::chrono::seconds>(m_policy.factorWindow, m_policy.recentWindow);
    while (!c.outcomes.empty() && c.outcomes.front().at < horizon)
        c.outcomes.pop_front();
    // A burst must not grow memory: the factor only needs a fair recent sample.
    while (c.outcomes.size() > 4096)
        c.outcomes.pop_front();
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

void HealthTracker::recordSuccess(const QString &channelId, const QString &modelId, std::chrono::milliseconds latency)
{
    Channel &c = channel(channelId);
    const double ms = double(latency.count());
    c.outcomes.push_back({m_clock.now(), true, modelId, ms});
    prune(c);
    c.consecutiveFailures = 0;
    c.cooldownLevel = 0;
    c.probing = false;
    c.cooldownUntil = {};
    // A slow average (about the last 20 successes) is the channel's own normal.
    auto it = c.normalLatencyMs.find(modelId);
    if (it == c.normalLatencyMs.end())
        c.normalLatencyMs.insert(modelId, ms);
    else
    {
        // A slowdown must not become the new normal as fast as it is noticed: outliers move it slowly.
        const double weight = ms > *it * m_policy.slowRatio ? 0.01 : 0.05;
        *it = *it * (1.0 - weight) + ms * weight;
    }
}

void HealthTracker::recordFailure(const QString &channelId, const QString &modelId)
{
    Channel &c = channel(channelId);
    c.outcomes.push_back({m_clock.now(), false, modelId, 0});
    prune(c);
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
    const auto it = m_channels.constFind(channelId);
    if (it == m_channels.cend())
        return false;
    const auto since = m_clock.now() - m_policy.recentWindow;
    int failures = 0;
    int total = 0;
    for (auto o = it->outcomes.rbegin(); o != it->outcomes.rend() && o->at >= since; ++o) {
        ++total;
        failures += o->success ? 0 : 1;
    }
    return failures >= m_policy.recentFailures && total > 0
        && double(failures) / double(total) >= m_policy.recentFailureShare;
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
    const auto it = m_channels.constFind(channelId);
    if (it == m_channels.cend())
        return 1.0;
    const auto since = m_clock.now() - m_policy.factorWindow;
    int failures = 0;
    int total = 0;
    double recentLatency = 0;
    int recentSuccesses = 0;
    for (auto o = it->outcomes.rbegin(); o != it->outcomes.rend() && o->at >= since; ++o) {
        ++total;
        failures += o->success ? 0 : 1;
        if (o->success && o->modelId == modelId && recentSuccesses < 10) {
            recentLatency += o->latencyMs;
            ++recentSuccesses;
        }
    }
    // Laplace smoothing: one failure in two requests is not yet a 50 % channel.
    const double errorRate = double(failures) / double(total + 2);
    double factor = std::pow(1.0 - errorRate, 2);
    const double normal = it->normalLatencyMs.value(modelId, 0);
    if (recentSuccesses > 0 && normal > 0) {
        const double ratio = (recentLatency / recentSuccesses) / normal;
        if (ratio > m_policy.slowRatio)
            factor *= m_policy.slowRatio / ratio;
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
