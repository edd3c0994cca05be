#include "failover/FailureClassifier.h"

namespace sy::failover {

namespace {

bool isClientFault(int status)
{
    return status == 400 || status == 404 || status == 413 || status == 422;
}

} // namespace

Decision decide(const AttemptOutcome &outcome)
{
    if (outcome.transportError)
        return Decision::FailOver;
    if (!outcome.httpStatus)
        return Decision::FailOver;
    const int status = *outcome.httpStatus;
    if (status >= 200 && status < 300)
        return outcome.emptyOrMalformed ? Decision::FailOver : Decision::Success;
    if (isClientFault(status))
        return Decision::ReturnToClient;
    // 408, 409, 425, 429, 5xx, 401/402/403 (the channel's own credential or account), and any
    // other unexpected status: somebody else may answer.
    return Decision::FailOver;
}

bool isTransient(const AttemptOutcome &outcome)
{
    if (outcome.transportError)
        return true;
    if (!outcome.httpStatus)
        return true;
    const int status = *outcome.httpStatus;
    if (status >= 200 && status < 300)
        return outcome.emptyOrMalformed;
    return status == 408 || status == 425 || status == 429 || status >= 500;
}

bool blamesCredential(const AttemptOutcome &outcome)
{
    return outcome.httpStatus && !outcome.transportError
        && (*outcome.httpStatus == 401 || *outcome.httpStatus == 402 || *outcome.httpStatus == 403);
}

} // namespace sy::failover
