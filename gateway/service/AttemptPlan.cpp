#include "service/AttemptPlan.h"

#include "service/CredentialVaulting.h"

#include <algorithm>

namespace sy::service {

QSet<QString> parseSimulateFail(const QByteArray &header)
{
    QSet<QString> models;
    for (const QByteArray &part : header.split(',')) {
        QString id = QString::fromUtf8(part.trimmed());
        if (id.endsWith(QLatin1String(":nitro")) || id.endsWith(QLatin1String(":floor")))
            id.chop(6);
        if (!id.isEmpty())
            models.insert(id);
    }
    return models;
}

AttemptPlan planAttempts(const Workspace &workspace, const ChatRequest &request, GatewayState &routing,
                         const QSet<QString> &simulateFail, const QString &stickyChannelId)
{
    routing::SelectionRequest selectionRequest;
    selectionRequest.chain = request.chain;
    selectionRequest.preferences = request.preferences;
    selectionRequest.requestParameters = request.parameters;
    selectionRequest.admitPriority = request.admitPriority;
    selectionRequest.admitFlex = request.admitFlex;
    selectionRequest.stickyChannelId = stickyChannelId;
    return planAttempts(workspace, selectionRequest, routing, simulateFail);
}

AttemptPlan planAttempts(const Workspace &workspace, const routing::SelectionRequest &selectionRequest,
                         GatewayState &routing, const QSet<QString> &simulateFail)
{
    AttemptPlan plan;
    plan.selection = routing.selector.select(workspace.config().channels, workspace.routeTable(), selectionRequest);
    size_t expected = 0;   // one attempt per credential (or one per channel without any)
    for (const routing::Candidate &candidate : plan.selection.ordered)
        expected += std::max<size_t>(1, candidate.channel->credentials.size());
    plan.attempts.reserve(expected);

    for (const routing::Candidate &candidate : plan.selection.ordered) {
        PlannedAttempt base;
        base.channel = candidate.channel;
        base.served = candidate.served;
        base.modelId = candidate.modelId;
        if (simulateFail.contains(candidate.modelId)) {
            base.kind = PlannedAttempt::Kind::SimulatedFail;
            plan.attempts.push_back(base);
            continue;
        }
        const int count = int(candidate.channel->credentials.size());
        if (count == 0) {
            plan.attempts.push_back(base);
            continue;
        }
        std::vector<int> limited;
        const std::vector<int> order = routing.credentials.attemptOrder(candidate.channel->id, count, &limited);
        for (int credential : order) {
            PlannedAttempt attempt = base;
            attempt.credential = credential;
            if (candidate.channel->credentials[size_t(credential)].startsWith(QLatin1String(kVaultReferencePrefix)))
                attempt.kind = PlannedAttempt::Kind::CredentialUnavailable;
            plan.attempts.push_back(attempt);
        }
        for (int credential : limited) {
            PlannedAttempt skip = base;
            skip.kind = PlannedAttempt::Kind::RateLimitedSkip;
            skip.credential = credential;
            skip.rateLimitedUntil = routing.credentials.rateLimitedUntil(candidate.channel->id, credential);
            plan.attempts.push_back(skip);
        }
    }
    return plan;
}

std::optional<QPair<QString, QString>> plannedSkip(const PlannedAttempt &attempt, Clock::TimePoint now)
{
    switch (attempt.kind) {
    case PlannedAttempt::Kind::SimulatedFail:
        // SPEC §7: marked failed without contacting the upstream, without charge or health effect.
        return QPair<QString, QString>(QStringLiteral("simulated_fail"), QStringLiteral("X-Simulate-Fail"));
    case PlannedAttempt::Kind::RateLimitedSkip: {
        const auto wait = std::chrono::duration_cast<std::chrono::seconds>(attempt.rateLimitedUntil - now);
        return QPair<QString, QString>(QStringLiteral("skipped"),
                                       QStringLiteral("credential %1 rate limited by the upstream for %2 s more")
                                           .arg(attempt.credential + 1).arg(std::max<qint64>(1, wait.count())));
    }
    case PlannedAttempt::Kind::CredentialUnavailable:
        return QPair<QString, QString>(QStringLiteral("skipped"),
                                       QStringLiteral("credential %1 is not available: the OS keychain did not return it "
                                                      "(locked, or the entry was removed); enter it again in the channel")
                                           .arg(attempt.credential + 1));
    case PlannedAttempt::Kind::Upstream:
        break;
    }
    return std::nullopt;
}

std::optional<TakenSlot> takeChannelWithRoom(const AttemptPlan &plan, const std::vector<bool> &used, size_t index,
                                             limits::CapacityQueue &capacity)
{
    const QString &modelId = plan.attempts[index].modelId;
    for (size_t i = index; i < plan.attempts.size(); ++i) {
        const PlannedAttempt &candidate = plan.attempts[i];
        if (used[i] || candidate.kind != PlannedAttempt::Kind::Upstream || candidate.modelId != modelId)
            continue;
        if (auto slot = capacity.tryAcquire(candidate.channel->id))
            return TakenSlot{i, std::move(*slot)};
    }
    return std::nullopt;
}

QStringList channelsToWaitAt(const AttemptPlan &plan, const std::vector<bool> &used, const QString &modelId)
{
    QStringList channels;
    for (size_t i = 0; i < plan.attempts.size(); ++i) {
        const PlannedAttempt &a = plan.attempts[i];
        if (!used[i] && a.kind == PlannedAttempt::Kind::Upstream && a.modelId == modelId && !channels.contains(a.channel->id))
            channels.append(a.channel->id);
    }
    return channels;
}

std::optional<size_t> attemptOnChannel(const AttemptPlan &plan, const std::vector<bool> &used, const QString &channelId)
{
    for (size_t i = 0; i < plan.attempts.size(); ++i) {
        const PlannedAttempt &a = plan.attempts[i];
        if (!used[i] && a.kind == PlannedAttempt::Kind::Upstream && a.channel->id == channelId)
            return i;
    }
    return std::nullopt;
}

} // namespace sy::service
