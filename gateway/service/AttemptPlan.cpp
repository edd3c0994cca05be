#include "service/AttemptPlan.h"

#include "service/CredentialVaulting.h"

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
    AttemptPlan plan;
    routing::SelectionRequest selectionRequest;
    selectionRequest.chain = request.chain;
    selectionRequest.preferences = request.preferences;
    selectionRequest.requestParameters = request.parameters;
    selectionRequest.admitPriority = request.admitPriority;
    selectionRequest.admitFlex = request.admitFlex;
    selectionRequest.stickyChannelId = stickyChannelId;
    plan.selection = routing.selector.select(workspace.config().channels, workspace.routeTable(), selectionRequest);

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

} // namespace sy::service
