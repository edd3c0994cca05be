#pragma once
// KeyBreaker: the key breaker of SPEC §8. A gateway key that keeps failing is taken out of
// service so a runaway client stops burning upstream capacity:
//  - trip: at least `minRequests` outcomes in the last `window` of which MORE than
//    `failureShareAbove` failed (100 requests, > 90 %, 60 s by default). The caller decides what a
//    failure is (the gateway's own 4xx count, SPEC §8); this class only counts.
//  - suspension: a trip suspends the key (the caller answers 429 with retry-after). The k-th trip
//    within `suspensionMemory` lasts firstSuspension * 2^(k-1): 60 s, then 120 s, ... by default.
//  - disable: the trip that would be the `suspensionsToDisable`-th within `suspensionMemory`
//    (the 3rd within 1 h by default) disables the key instead, until reset() (the user re-enables
//    it). Persisting the disabled flag in the key's configuration is the caller's business.
//  - a trip clears the outcome window, and outcomes recorded while the key is Suspended or Disabled
//    are ignored (they are the breaker's own refusals, not evidence), so a key whose suspension
//    ended starts with a fresh window and needs `minRequests` new outcomes to trip again.
//
// Window resolution: one-second buckets (bounded memory, not one entry per request). An outcome
// recorded during second s counts until second s + window begins, i.e. for window - 1 s to window.
//
// Thread: one thread (the gateway thread). Time from the injected Clock, which must outlive this.
#include "core/Clock.h"

#include <QHash>
#include <QString>

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

namespace sy::limits {

enum class BreakerState { Closed, Suspended, Disabled };
// "closed" | "suspended" | "disabled", for the dashboard and metrics.
const char *breakerStateName(BreakerState state);

struct BreakerPolicy {
    int minRequests = 100;                       // outcomes in the window before it may trip
    std::chrono::seconds window{60};             // whole seconds, at least 1
    double failureShareAbove = 0.9;              // trips when failed / total is strictly above this
    std::chrono::seconds firstSuspension{60};    // doubles with each further trip in memory
    int suspensionsToDisable = 3;                // this many trips within suspensionMemory disable
    std::chrono::seconds suspensionMemory{3600}; // a trip at t is remembered while now < t + memory
};

class KeyBreaker {
public:
    struct Verdict {
        BreakerState state = BreakerState::Closed;
        std::chrono::milliseconds retryAfter{0};  // until the suspension ends (rounded up); 0 otherwise
    };

    explicit KeyBreaker(const Clock &clock, BreakerPolicy policy = {});

    // Records the outcome of one request of `keyName` (failed = counts against the key) and
    // returns the key's state afterwards; Suspended or Disabled right after a Closed key means this
    // outcome tripped it. Ignored while the key is Suspended or Disabled.
    BreakerState recordOutcome(const QString &keyName, bool failed);

    // Whether a request of `keyName` may proceed now (Closed), and if Suspended for how long not.
    Verdict check(const QString &keyName) const;
    BreakerState state(const QString &keyName) const;

    // The user re-enabled the key: Closed, outcome window and trip history cleared.
    void reset(const QString &keyName);

    // Trips remembered for the key (those within suspensionMemory; all of them while Disabled),
    // including the one that disabled it.
    int suspensions(const QString &keyName) const;
    // Outcomes and failures in the key's current window (0 while Suspended or Disabled).
    int requestsInWindow(const QString &keyName) const;
    int failuresInWindow(const QString &keyName) const;

    const BreakerPolicy &policy() const { return m_policy; }

private:
    struct Bucket {
        std::int64_t second = 0;  // which second this bucket holds; stale when outside the window
        int total = 0;
        int failed = 0;
    };
    struct Key {
        std::vector<Bucket> buckets;       // ring of window-seconds buckets, allocated on first use
        std::deque<Clock::TimePoint> trips; // start of each remembered trip, oldest first
        Clock::TimePoint suspendedUntil{};
        bool disabled = false;
    };
    struct Totals {
        int total = 0;
        int failed = 0;
    };

    static std::int64_t secondOf(Clock::TimePoint t);
    Totals totals(const Key &key, Clock::TimePoint now) const;
    bool shouldTrip(const Totals &totals) const;
    void trip(Key &key, Clock::TimePoint now);
    BreakerState stateOf(const Key &key, Clock::TimePoint now) const;

    const Clock &m_clock;
    BreakerPolicy m_policy;
    std::int64_t m_shareAboveMillionths;  // failureShareAbove in millionths, for exact comparison
    QHash<QString, Key> m_keys;
};

} // namespace sy::limits
