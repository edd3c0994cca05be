#pragma once
// SharedKeyLimits: the per-key limits of SPEC §8 (KeyLimiter's rules) decided for every gateway
// instance together, by a store they share (RedisKeyLimiter). Unlike KeyLimiter the answer takes
// a network round trip, so it comes back through a callback.
//
// Thread: the gateway thread, callbacks included. `done` is never called from inside
// tryAcquire() (always from the event loop later), exactly once, unless the limiter is destroyed
// first. The limiter must outlive every Permit it handed out.
#include "limits/KeyLimiter.h"

#include <chrono>
#include <functional>
#include <variant>

namespace sy::limits {

// The shared store cannot be asked now and the limiter was told to fail closed.
struct Unavailable {
    std::chrono::milliseconds retryAfter{1000};
    QString reason;    // for the log and the 503's message; never contains a secret
};

using SharedOutcome = std::variant<KeyLimiter::Permit, Refusal, Unavailable>;

class SharedKeyLimits {
public:
    using Done = std::function<void(SharedOutcome outcome)>;
    virtual ~SharedKeyLimits() = default;

    // Same decision and retry-after as KeyLimiter::tryAcquire, across every instance.
    virtual void tryAcquire(const QString &keyName, const KeyLimits &limits, const QString &primaryModel,
                            int modelRequestsPerMinute, Done done) = 0;
    // Called after a permit of this limiter is released (a local waiter may take the slot).
    virtual void setOnRelease(std::function<void(const QString &keyName)> callback) = 0;
    // False while the last exchange with the store failed.
    virtual bool isReachable() const = 0;

    // Whether a request with these limits needs the store at all (every limit off: it does not).
    static bool anyLimit(const KeyLimits &limits, int modelRequestsPerMinute)
    {
        return limits.requestsPerMinute > 0 || limits.maxConcurrent > 0 || modelRequestsPerMinute > 0;
    }
};

} // namespace sy::limits
