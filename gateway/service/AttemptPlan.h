#pragma once
// AttemptPlan: the request's candidate list expanded to attempts (SPEC §3.6, §7): the selector's
// ordered channels, each channel × its usable credentials; channels of models named in
// X-Simulate-Fail become one simulated failure each; rate-limited credentials become skips.
#include "routing/ChannelSelector.h"
#include "service/ChatRequest.h"
#include "service/GatewayState.h"
#include "service/Workspace.h"

#include <QSet>
#include <vector>

namespace sy::service {

struct PlannedAttempt {
    // CredentialUnavailable: the credential is a keychain reference the OS keychain did not
    // return at start (locked, or the entry is gone): it is never sent upstream.
    enum class Kind { Upstream, SimulatedFail, RateLimitedSkip, CredentialUnavailable };
    Kind kind = Kind::Upstream;
    const config::Channel *channel = nullptr;
    const config::ChannelModel *served = nullptr;
    QString modelId;
    int credential = -1;                         // -1: the channel has no credentials
    Clock::TimePoint rateLimitedUntil{};         // RateLimitedSkip only
};

struct AttemptPlan {
    std::vector<PlannedAttempt> attempts;
    routing::Selection selection;                // for the route trace
};

// Parses X-Simulate-Fail: comma-separated model ids (suffixes stripped).
QSet<QString> parseSimulateFail(const QByteArray &header);

AttemptPlan planAttempts(const Workspace &workspace, const ChatRequest &request, GatewayState &routing,
                         const QSet<QString> &simulateFail, const QString &stickyChannelId);

} // namespace sy::service
