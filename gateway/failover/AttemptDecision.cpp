#include "failover/AttemptDecision.h"

namespace sy::failover {

AfterFailure decideAfterFailure(const AttemptFacts &facts)
{
    AfterFailure after;
    const AttemptOutcome &outcome = facts.outcome;
    if (outcome.transportError == upstream::UpstreamErrorKind::LocalResources) {
        // The gateway's own shortage (out of file descriptors): no channel or credential is at
        // fault, and the same channel again would meet the same wall at once; another channel
        // may have a connection open already.
        after.penalisesChannel = false;
        return after;
    }
    if (decide(outcome) == Decision::ReturnToClient) {
        // The request is wrong (400/404/413/422): not the channel's fault. A single model answers
        // with it at once; a chain goes on (seed 000: a client 4xx does not stop the enumeration).
        after.penalisesChannel = false;
        after.next = facts.chainLength == 1 ? NextStep::ReturnToClient : NextStep::KeepAndContinue;
        return after;
    }
    const bool rateLimited = outcome.httpStatus == 429 && !outcome.transportError;
    if (facts.hasCredential && rateLimited)
        after.credential = CredentialVerdict::RateLimited;
    else if (facts.hasCredential && blamesCredential(outcome))
        after.credential = CredentialVerdict::Demoted;

    // Plain single-model requests give a transiently failing channel one more chance; a
    // rate-limited credential is not retried: its retry-after says when.
    const bool retry = !facts.stream && facts.chainLength == 1 && !facts.retriedAlready && isTransient(outcome)
        && !rateLimited && mayStartAnotherAttempt(facts.attemptsMade, facts.maxAttempts);
    after.next = retry ? NextStep::RetrySame : NextStep::NextCandidate;
    return after;
}

bool mayStartAnotherAttempt(int attemptsMade, int maxAttempts)
{
    return maxAttempts <= 0 || attemptsMade < maxAttempts;
}

} // namespace sy::failover
