#pragma once
// AttemptPlan: the request's candidate list expanded to attempts (SPEC §3.6, §7): the selector's
// ordered channels, each channel × its usable credentials; channels of models named in
// X-Simulate-Fail become one simulated failure each; rate-limited credentials become skips.
#include "routing/ChannelSelector.h"
#include "service/ChatRequest.h"
#include "service/GatewayState.h"
#include "service/Workspace.h"

#include <QPair>
#include <QSet>
#include <optional>
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
// The same from a selection request already made (routes that are not chat, e.g. embeddings).
AttemptPlan planAttempts(const Workspace &workspace, const routing::SelectionRequest &selectionRequest,
                         GatewayState &routing, const QSet<QString> &simulateFail);

// Why a planned attempt that never reaches the upstream is passed over, for the route trace:
// {status, reason} of SPEC §6 (`simulated_fail`, `skipped`); nullopt for an Upstream attempt.
// `now` dates a rate-limited credential's remaining wait.
std::optional<QPair<QString, QString>> plannedSkip(const PlannedAttempt &attempt, Clock::TimePoint now);

// The channel capacity side of an attempt loop (SPEC §8), over `used` (per planned attempt:
// tried or skipped already). Gateway thread.
struct TakenSlot {
    size_t index = 0;                            // the attempt that may run now
    limits::CapacityQueue::Slot slot;
};
// Attempt `index` when its channel has room, else the next unused upstream attempt of the same
// model whose channel has room; nullopt when all of them are full.
std::optional<TakenSlot> takeChannelWithRoom(const AttemptPlan &plan, const std::vector<bool> &used, size_t index,
                                             limits::CapacityQueue &capacity);
// The channels of `modelId`'s unused upstream attempts, once each: where a request waits when all are full.
QStringList channelsToWaitAt(const AttemptPlan &plan, const std::vector<bool> &used, const QString &modelId);
// The first unused upstream attempt on `channelId` (the channel whose slot the wait was granted).
std::optional<size_t> attemptOnChannel(const AttemptPlan &plan, const std::vector<bool> &used, const QString &channelId);

} // namespace sy::service
