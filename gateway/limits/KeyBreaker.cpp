#include "limits/KeyBreaker.h"

#include <algorithm>
#include <cmath>

namespace sy::limits {

using std::chrono::milliseconds;
using std::chrono::seconds;

const char *breakerStateName(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed:
        return "closed";
    case BreakerState::Suspended:
        return "suspended";
    case BreakerState::Disabled:
        return "disabled";
    }
    return "closed";
}

KeyBreaker::KeyBreaker(const Clock &clock, BreakerPolicy policy)
    : m_clock(clock)
    , m_policy(policy)
{
    m_policy.minRequests = std::max(1, m_policy.minRequests);
    m_policy.window = std::max(seconds(1), m_policy.window);
    m_policy.suspensionsToDisable = std::max(1, m_policy.suspensionsToDisable);
    // "More than 90 %" must be exact at the boundary (90 of 100 does not trip), which a double
    // product such as 0.9 * 100 does not guarantee; compare in integer millionths instead.
    m_shareAboveMillionths = std::llround(std::clamp(m_policy.failureShareAbove, 0.0, 1.0) * 1'000'000.0);
}

std::int64_t KeyBreaker::secondOf(Clock::TimePoint t)
{
    return std::chrono::floor<seconds>(t.time_since_epoch()).count();
}

KeyBreaker::Totals KeyBreaker::totals(const Key &key, Clock::TimePoint now) const
{
    Totals sum;
    const std::int64_t nowSecond = secondOf(now);
    const std::int64_t windowSeconds = m_policy.window.count();
    for (const Bucket &bucket : key.buckets) {
        if (bucket.second <= nowSecond && nowSecond - bucket.second < windowSeconds) {
            sum.total += bucket.total;
            sum.failed += bucket.failed;
        }
    }
    return sum;
}

bool KeyBreaker::shouldTrip(const Totals &totals) const
{
    return totals.total >= m_policy.minRequests
        && static_cast<std::int64_t>(totals.failed) * 1'000'000 > m_shareAboveMillionths * totals.total;
}

void KeyBreaker::trip(Key &key, Clock::TimePoint now)
{
    while (!key.trips.empty() && key.trips.front() + m_policy.suspensionMemory <= now)
        key.trips.pop_front();
    key.trips.push_back(now);
    // Start the next period with a fresh window; the vector is allocated again on the next outcome.
    key.buckets = {};

    const int trips = static_cast<int>(key.trips.size());
    if (trips >= m_policy.suspensionsToDisable) {
        key.disabled = true;
        return;
    }
    // trips < suspensionsToDisable, but cap the shift anyway for absurd policies.
    const int doublings = std::min(trips - 1, 20);
    key.suspendedUntil = now + m_policy.firstSuspension * (std::int64_t{1} << doublings);
}

BreakerState KeyBreaker::stateOf(const Key &key, Clock::TimePoint now) const
{
    if (key.disabled)
        return BreakerState::Disabled;
    return now < key.suspendedUntil ? BreakerState::Suspended : BreakerState::Closed;
}

BreakerState KeyBreaker::recordOutcome(const QString &keyName, bool failed)
{
    const Clock::TimePoint now = m_clock.now();
    Key &key = m_keys[keyName];
    const BreakerState before = stateOf(key, now);
    if (before != BreakerState::Closed)
        return before;

    const std::int64_t windowSeconds = m_policy.window.count();
    if (key.buckets.empty())
        key.buckets.resize(static_cast<std::size_t>(windowSeconds));
    const std::int64_t second = secondOf(now);
    Bucket &bucket = key.buckets[static_cast<std::size_t>(second % windowSeconds)];
    if (bucket.second != second)
        bucket = Bucket{second, 0, 0};
    ++bucket.total;
    if (failed)
        ++bucket.failed;

    if (shouldTrip(totals(key, now)))
        trip(key, now);
    return stateOf(key, now);
}

KeyBreaker::Verdict KeyBreaker::check(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    if (it == m_keys.cend())
        return {};
    const Clock::TimePoint now = m_clock.now();
    Verdict verdict;
    verdict.state = stateOf(*it, now);
    if (verdict.state == BreakerState::Suspended)
        verdict.retryAfter = std::chrono::ceil<milliseconds>(it->suspendedUntil - now);
    return verdict;
}

BreakerState KeyBreaker::state(const QString &keyName) const
{
    return check(keyName).state;
}

void KeyBreaker::reset(const QString &keyName)
{
    m_keys.remove(keyName);
}

int KeyBreaker::suspensions(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    if (it == m_keys.cend())
        return 0;
    if (it->disabled)
        return static_cast<int>(it->trips.size());
    const Clock::TimePoint now = m_clock.now();
    return static_cast<int>(std::count_if(it->trips.cbegin(), it->trips.cend(), [&](Clock::TimePoint at) {
        return at + m_policy.suspensionMemory > now;
    }));
}

int KeyBreaker::requestsInWindow(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    return it == m_keys.cend() ? 0 : totals(*it, m_clock.now()).total;
}

int KeyBreaker::failuresInWindow(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    return it == m_keys.cend() ? 0 : totals(*it, m_clock.now()).failed;
}

} // namespace sy::limits
