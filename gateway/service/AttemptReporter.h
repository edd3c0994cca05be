#pragma once
// AttemptReporter: the one place where an attempt's outcome reaches what the gateway learns
// across requests — live metrics, channel health, per-channel totals, credential states and
// sticky conversations (Envoy's shape: the data path reports, the detectors decide).
//
// Thread: the gateway thread.
#include "api/Canonical.h"
#include "core/Clock.h"
#include "failover/AttemptDecision.h"
#include "service/AttemptPlan.h"
#include "service/GatewayState.h"

#include <optional>

namespace sy::service {

// When one attempt started, when its first content arrived, and now.
struct AttemptTiming {
    Clock::TimePoint started{};
    std::optional<Clock::TimePoint> firstContent;   // first non-empty delta (streams)
    Clock::TimePoint ended{};

    std::chrono::microseconds total() const
    {
        return std::chrono::duration_cast<std::chrono::microseconds>(ended - started);
    }
};

class AttemptReporter {
public:
    AttemptReporter(GatewayState &state, const Clock &clock) : m_state(state), m_clock(clock) {}

    void started(const PlannedAttempt &attempt);
    // A usable answer. `conversation` (maybe empty) is remembered for the channel when the
    // attempt served the chain's primary model.
    void succeeded(const PlannedAttempt &attempt, const AttemptTiming &timing, const api::TokenUsage &usage,
                   bool stream, const QByteArray &conversation, bool servedPrimary);
    // No usable answer; `after` is the decision taken on it; `retryAfter` the upstream's header.
    void failed(const PlannedAttempt &attempt, const AttemptTiming &timing, const failover::AfterFailure &after,
                const QByteArray &retryAfter);
    // A stream that broke after it was committed to the client.
    void interrupted(const PlannedAttempt &attempt, const AttemptTiming &timing);
    // The attempt ended for a reason that is nobody's fault (the client left, the request was wrong).
    void abandoned(const PlannedAttempt &attempt);

private:
    void failure(const PlannedAttempt &attempt, const AttemptTiming &timing);

    GatewayState &m_state;
    const Clock &m_clock;
};

} // namespace sy::service
