// SPEC §4 as a table: every upstream status 400..599, transport errors, empty and good 200s, and
// which outcomes earn a retry of the same channel or blame the credential.
#include "failover/FailureClassifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>

namespace sy::failover {
namespace {

using upstream::UpstreamErrorKind;

AttemptOutcome withStatus(int status, bool emptyOrMalformed = false)
{
    AttemptOutcome outcome;
    outcome.httpStatus = status;
    outcome.emptyOrMalformed = emptyOrMalformed;
    return outcome;
}

AttemptOutcome withTransportError(UpstreamErrorKind kind)
{
    AttemptOutcome outcome;
    outcome.transportError = kind;
    return outcome;
}

bool isOneOf(int status, std::initializer_list<int> statuses)
{
    return std::find(statuses.begin(), statuses.end(), status) != statuses.end();
}

const char *decisionName(Decision decision)
{
    switch (decision) {
    case Decision::Success: return "Success";
    case Decision::FailOver: return "FailOver";
    case Decision::ReturnToClient: return "ReturnToClient";
    }
    return "?";
}

// One row of the SPEC §4 table, written from the SPEC's lists rather than from the classifier.
struct ExpectedRow {
    Decision decision;
    bool transient;
    bool blamesCredential;
};

ExpectedRow specRow(int status)
{
    if (isOneOf(status, {400, 404, 413, 422}))
        return {Decision::ReturnToClient, false, false};
    if (isOneOf(status, {401, 402, 403}))
        return {Decision::FailOver, false, true};
    if (isOneOf(status, {408, 425, 429}) || status >= 500)
        return {Decision::FailOver, true, false};
    // 409 fails over but is not worth the same channel again; so does any status the table does
    // not name (somebody else may answer).
    return {Decision::FailOver, false, false};
}

TEST(FailureClassifierTest, EveryStatusFrom400To599FollowsTheSpecTable)
{
    for (int status = 400; status <= 599; ++status) {
        SCOPED_TRACE(status);
        const ExpectedRow expected = specRow(status);
        const AttemptOutcome outcome = withStatus(status);
        EXPECT_STREQ(decisionName(decide(outcome)), decisionName(expected.decision));
        EXPECT_EQ(isTransient(outcome), expected.transient);
        EXPECT_EQ(blamesCredential(outcome), expected.blamesCredential);
    }
}

TEST(FailureClassifierTest, UpstreamBadRequestIsReturnedToClient)
{
    for (int status : {400, 404, 413, 422}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::ReturnToClient);
        EXPECT_FALSE(isTransient(withStatus(status)));
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
}

TEST(FailureClassifierTest, TimeoutConflictTooEarlyAndRateLimitFailOver)
{
    for (int status : {408, 409, 425, 429}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::FailOver);
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
    EXPECT_TRUE(isTransient(withStatus(408)));
    EXPECT_TRUE(isTransient(withStatus(425)));
    EXPECT_TRUE(isTransient(withStatus(429)));
    EXPECT_FALSE(isTransient(withStatus(409)));
}

TEST(FailureClassifierTest, GeminiQuotaAndUnavailableFailOverLikeAnyFormatsStatus)
{
    // Gemini says RESOURCE_EXHAUSTED with 429 and UNAVAILABLE with 503; Anthropic's overloaded is
    // 529. The classifier reads the status, never the body, so each format's name for it fails over.
    for (int status : {429, 503, 529}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::FailOver);
        EXPECT_TRUE(isTransient(withStatus(status)));
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
}

TEST(FailureClassifierTest, EveryServerErrorFailsOverAndIsRetriedOnce)
{
    for (int status = 500; status <= 599; ++status) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::FailOver);
        EXPECT_TRUE(isTransient(withStatus(status)));
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
}

TEST(FailureClassifierTest, CredentialRejectionFailsOverAndBlamesTheCredential)
{
    for (int status : {401, 402, 403}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::FailOver);
        EXPECT_TRUE(blamesCredential(withStatus(status)));
        // The same credential would be refused again: no retry of the same channel.
        EXPECT_FALSE(isTransient(withStatus(status)));
    }
}

TEST(FailureClassifierTest, EveryTransportErrorFailsOverAndIsRetriedOnce)
{
    for (UpstreamErrorKind kind : {UpstreamErrorKind::Connect, UpstreamErrorKind::FirstByteTimeout,
                                   UpstreamErrorKind::IdleTimeout, UpstreamErrorKind::Reset,
                                   UpstreamErrorKind::Protocol, UpstreamErrorKind::Other}) {
        SCOPED_TRACE(int(kind));
        const AttemptOutcome outcome = withTransportError(kind);
        EXPECT_EQ(decide(outcome), Decision::FailOver);
        EXPECT_TRUE(isTransient(outcome));
        EXPECT_FALSE(blamesCredential(outcome));
    }
}

TEST(FailureClassifierTest, TransportErrorAfterHeadersWinsOverTheStatus)
{
    // Headers arrived, then the connection broke: the status alone would say otherwise.
    for (int status : {200, 400, 401}) {
        SCOPED_TRACE(status);
        AttemptOutcome outcome = withStatus(status);
        outcome.transportError = UpstreamErrorKind::Reset;
        EXPECT_EQ(decide(outcome), Decision::FailOver);
        EXPECT_TRUE(isTransient(outcome));
        EXPECT_FALSE(blamesCredential(outcome));
    }
}

TEST(FailureClassifierTest, EmptyOkFailsOverAndIsRetriedOnce)
{
    const AttemptOutcome outcome = withStatus(200, true);
    EXPECT_EQ(decide(outcome), Decision::FailOver);
    EXPECT_TRUE(isTransient(outcome));
    EXPECT_FALSE(blamesCredential(outcome));
}

TEST(FailureClassifierTest, UsableOkIsASuccess)
{
    for (int status : {200, 201}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::Success);
        EXPECT_FALSE(isTransient(withStatus(status)));
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
}

TEST(FailureClassifierTest, OutcomeWithoutStatusOrErrorFailsOver)
{
    const AttemptOutcome nothing;
    EXPECT_EQ(decide(nothing), Decision::FailOver);
    EXPECT_TRUE(isTransient(nothing));
    EXPECT_FALSE(blamesCredential(nothing));
}

TEST(FailureClassifierTest, InformationalAndRedirectStatusesFailOverWithoutRetry)
{
    for (int status : {100, 301, 302, 304, 307}) {
        SCOPED_TRACE(status);
        EXPECT_EQ(decide(withStatus(status)), Decision::FailOver);
        EXPECT_FALSE(isTransient(withStatus(status)));
        EXPECT_FALSE(blamesCredential(withStatus(status)));
    }
}

} // namespace
} // namespace sy::failover
