// The attempt loop's decisions after a failed attempt, row by row from SPEC §4: retry the same
// channel once (plain single-model requests, transient failures, within the attempt cap), move
// on, answer the client's own error at once or keep it as a chain's last word, and what the
// failure says about the credential.
#include "failover/AttemptDecision.h"

#include <gtest/gtest.h>

namespace sy::failover {
namespace {

using upstream::UpstreamErrorKind;

AttemptFacts plain(std::optional<int> status, std::optional<UpstreamErrorKind> transport = std::nullopt)
{
    AttemptFacts facts;
    facts.outcome.httpStatus = status;
    facts.outcome.transportError = transport;
    facts.attemptsMade = 1;
    facts.hasCredential = true;
    return facts;
}

struct Row {
    const char *name;
    AttemptFacts facts;
    NextStep next;
    CredentialVerdict credential;
    bool penalises;
};

AttemptFacts with(AttemptFacts facts, void (*change)(AttemptFacts &))
{
    change(facts);
    return facts;
}

class AttemptDecisionTest : public ::testing::TestWithParam<Row> {};

TEST_P(AttemptDecisionTest, DecidesTheNextStep)
{
    const Row &row = GetParam();
    const AfterFailure after = decideAfterFailure(row.facts);
    EXPECT_EQ(int(after.next), int(row.next)) << row.name;
    EXPECT_EQ(int(after.credential), int(row.credential)) << row.name;
    EXPECT_EQ(after.penalisesChannel, row.penalises) << row.name;
}

INSTANTIATE_TEST_SUITE_P(Spec4, AttemptDecisionTest, ::testing::Values(
    Row{"plain 503 retries the same channel", plain(503), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"plain 500 retries", plain(500), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"plain 408 retries", plain(408), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"plain reset retries", plain(std::nullopt, UpstreamErrorKind::Reset), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"plain connect failure retries", plain(std::nullopt, UpstreamErrorKind::Connect), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"the gateway's own shortage of descriptors moves on, penalising nobody",
        plain(std::nullopt, UpstreamErrorKind::LocalResources), NextStep::NextCandidate, CredentialVerdict::None, false},
    Row{"plain first-byte timeout retries", plain(std::nullopt, UpstreamErrorKind::FirstByteTimeout), NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"429 is not retried and rate-limits the credential", plain(429), NextStep::NextCandidate, CredentialVerdict::RateLimited, true},
    Row{"429 without a credential only moves on", with(plain(429), [](AttemptFacts &f) { f.hasCredential = false; }),
        NextStep::NextCandidate, CredentialVerdict::None, true},
    Row{"401 demotes the credential and moves on", plain(401), NextStep::NextCandidate, CredentialVerdict::Demoted, true},
    Row{"402 demotes the credential", plain(402), NextStep::NextCandidate, CredentialVerdict::Demoted, true},
    Row{"403 demotes the credential", plain(403), NextStep::NextCandidate, CredentialVerdict::Demoted, true},
    Row{"an empty 200 retries", with(plain(200), [](AttemptFacts &f) { f.outcome.emptyOrMalformed = true; }),
        NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"a retried channel is not retried twice", with(plain(503), [](AttemptFacts &f) { f.retriedAlready = true; }),
        NextStep::NextCandidate, CredentialVerdict::None, true},
    Row{"streams try each candidate once", with(plain(503), [](AttemptFacts &f) { f.stream = true; }),
        NextStep::NextCandidate, CredentialVerdict::None, true},
    Row{"chains try each candidate once", with(plain(503), [](AttemptFacts &f) { f.chainLength = 2; }),
        NextStep::NextCandidate, CredentialVerdict::None, true},
    Row{"the attempt cap leaves no room for a retry", with(plain(503), [](AttemptFacts &f) { f.maxAttempts = 1; }),
        NextStep::NextCandidate, CredentialVerdict::None, true},
    Row{"under the attempt cap a retry is allowed", with(plain(503), [](AttemptFacts &f) { f.maxAttempts = 2; }),
        NextStep::RetrySame, CredentialVerdict::None, true},
    Row{"400 of a single model goes to the client", plain(400), NextStep::ReturnToClient, CredentialVerdict::None, false},
    Row{"404 of a single model goes to the client", plain(404), NextStep::ReturnToClient, CredentialVerdict::None, false},
    Row{"413 of a single model goes to the client", plain(413), NextStep::ReturnToClient, CredentialVerdict::None, false},
    Row{"422 of a single model goes to the client", plain(422), NextStep::ReturnToClient, CredentialVerdict::None, false},
    Row{"400 in a chain is kept and the chain goes on", with(plain(400), [](AttemptFacts &f) { f.chainLength = 3; }),
        NextStep::KeepAndContinue, CredentialVerdict::None, false},
    Row{"a stream's 400 goes to the client too", with(plain(400), [](AttemptFacts &f) { f.stream = true; }),
        NextStep::ReturnToClient, CredentialVerdict::None, false}));

TEST(AttemptCapTest, ZeroMeansEveryCandidate)
{
    EXPECT_TRUE(mayStartAnotherAttempt(100, 0));
    EXPECT_TRUE(mayStartAnotherAttempt(2, 3));
    EXPECT_FALSE(mayStartAnotherAttempt(3, 3));
    EXPECT_FALSE(mayStartAnotherAttempt(4, 3));
}

} // namespace
} // namespace sy::failover
