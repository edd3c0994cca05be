#pragma once
// AttemptDecision: what the attempt loop does after one upstream attempt did not answer (SPEC §4)
// — retry the same channel once, move on, or hand the upstream's answer to the client — and what
// the failure says about the credential. Every retry / fail-over choice of the exchange is made
// here; FailureClassifier's table supplies the verdict on the outcome itself. Pure.
#include "failover/FailureClassifier.h"

namespace sy::failover {

// What the loop knows when an attempt ended without a usable answer.
struct AttemptFacts {
    AttemptOutcome outcome;
    bool stream = false;
    int chainLength = 1;          // models in the request's chain
    bool retriedAlready = false;  // this channel was already retried once for this request
    int attemptsMade = 0;         // upstream attempts so far, this one included
    int maxAttempts = 0;          // settings.max_attempts; 0 = no cap
    bool hasCredential = false;   // the attempt used one of the channel's credentials
};

enum class NextStep {
    RetrySame,         // the same channel and credential again after the retry pause
    NextCandidate,     // the next credential / channel / model of the plan
    ReturnToClient,    // the request itself is wrong and nothing else is left to try: answer now
    KeepAndContinue,   // the request is wrong for this model, but a chain goes on; keep the answer
                       // as the last word in case nobody else answers
};

enum class CredentialVerdict {
    None,
    RateLimited,       // upstream 429: skip the credential until its retry-after passes
    Demoted,           // upstream 401/402/403: the credential is at fault
};

struct AfterFailure {
    NextStep next = NextStep::NextCandidate;
    CredentialVerdict credential = CredentialVerdict::None;
    bool penalisesChannel = true;   // counts against the channel's health and metrics
};

AfterFailure decideAfterFailure(const AttemptFacts &facts);

// Whether the attempt cap leaves room for another upstream attempt.
bool mayStartAnotherAttempt(int attemptsMade, int maxAttempts);

} // namespace sy::failover
