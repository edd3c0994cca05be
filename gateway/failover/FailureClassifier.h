#pragma once
// FailureClassifier: SPEC §4 in one place. Given what one attempt at an upstream produced, decide
// whether the gateway moves on to the next credential / channel / model, or hands the upstream's
// answer back to the client. The table lives here and only here.
#include "upstream/UpstreamClient.h"

#include <optional>

namespace sy::failover {

struct AttemptOutcome {
    // HTTP status of the upstream response, when one arrived.
    std::optional<int> httpStatus;
    // Transport failure (connect, timeouts, reset, protocol), when there was one.
    std::optional<upstream::UpstreamErrorKind> transportError;
    // A 200 whose body had no usable answer (no choices / no content / unparseable).
    bool emptyOrMalformed = false;
};

enum class Decision {
    Success,         // a usable answer: return it
    FailOver,        // try the next candidate
    ReturnToClient,  // the request itself is wrong (400/404/413/422): pass the upstream answer on
};

Decision decide(const AttemptOutcome &outcome);

// Worth one more try of the same channel after a short pause (plain single-model requests only):
// timeouts, resets, connect failures, 408/425/429/5xx. Not auth failures (401/402/403).
bool isTransient(const AttemptOutcome &outcome);

// The credential (not the channel) is at fault: upstream 401/402/403. The caller demotes it.
bool blamesCredential(const AttemptOutcome &outcome);

} // namespace sy::failover
