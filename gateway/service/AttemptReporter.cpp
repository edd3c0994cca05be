#include "service/AttemptReporter.h"

namespace sy::service {

namespace {

constexpr std::chrono::milliseconds kDefaultRetryAfter{5'000};

metrics::ChannelModel keyOf(const PlannedAttempt &attempt)
{
    return {attempt.channel->id, attempt.modelId};
}

} // namespace

void AttemptReporter::started(const PlannedAttempt &attempt)
{
    m_state.metrics.recordStart(keyOf(attempt));
}

void AttemptReporter::succeeded(const PlannedAttempt &attempt, const AttemptTiming &timing, const api::TokenUsage &usage,
                                bool stream, const QByteArray &conversation, bool servedPrimary)
{
    const auto total = timing.total();
    // Time to first token: a stream's first content; a plain answer's is the whole answer.
    const auto ttft = timing.firstContent
        ? std::chrono::duration_cast<std::chrono::microseconds>(*timing.firstContent - timing.started)
        : total;
    std::optional<double> tokensPerSecond;
    const auto generation = total - (stream ? ttft : std::chrono::microseconds(0));
    if (usage.known && usage.outputTokens > 0 && generation.count() > 0)
        tokensPerSecond = double(usage.outputTokens) * 1e6 / double(generation.count());
    m_state.metrics.recordFinish(keyOf(attempt), {true, ttft, total, tokensPerSecond});
    ChannelTotals &totals = m_state.totals[attempt.channel->id];
    ++totals.attempts;
    totals.completionTokens += quint64(std::max<qint64>(0, usage.outputTokens));
    // Streams are judged by their time to first token; their length depends on the answer.
    m_state.health.recordSuccess(attempt.channel->id, attempt.modelId, stream ? ttft : total);
    if (attempt.credential >= 0)
        m_state.credentials.markSucceeded(attempt.channel->id, attempt.credential);
    if (!conversation.isEmpty() && servedPrimary)
        m_state.sticky.remember(conversation, attempt.channel->id);
}

void AttemptReporter::failure(const PlannedAttempt &attempt, const AttemptTiming &timing)
{
    m_state.metrics.recordFinish(keyOf(attempt), {false, std::nullopt, timing.total(), std::nullopt});
    ChannelTotals &totals = m_state.totals[attempt.channel->id];
    ++totals.attempts;
    ++totals.errors;
    m_state.health.recordFailure(attempt.channel->id, attempt.modelId);
}

void AttemptReporter::failed(const PlannedAttempt &attempt, const AttemptTiming &timing,
                             const failover::AfterFailure &after, const QByteArray &retryAfter)
{
    if (!after.penalisesChannel)
        return abandoned(attempt);
    failure(attempt, timing);
    switch (after.credential) {
    case failover::CredentialVerdict::RateLimited:
        m_state.credentials.markRateLimited(attempt.channel->id, attempt.credential,
            limits::CredentialStates::parseRetryAfter(retryAfter, kDefaultRetryAfter, m_clock.wallNow()));
        break;
    case failover::CredentialVerdict::Demoted:
        m_state.credentials.markDemoted(attempt.channel->id, attempt.credential);
        break;
    case failover::CredentialVerdict::None:
        break;
    }
}

void AttemptReporter::interrupted(const PlannedAttempt &attempt, const AttemptTiming &timing)
{
    // Pinned after the first chunk: no failover, but the channel's health hears about it.
    failure(attempt, timing);
}

void AttemptReporter::abandoned(const PlannedAttempt &attempt)
{
    m_state.metrics.recordAbandoned(keyOf(attempt));
}

} // namespace sy::service
