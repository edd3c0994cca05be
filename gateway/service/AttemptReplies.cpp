#include "service/AttemptReplies.h"

#include <QJsonArray>
#include <QJsonObject>

namespace sy::service {

http::HeaderList answerHeaders(const Workspace &workspace, const QByteArray &requestId, const PlannedAttempt &answered,
                               const AttemptTrace &trace, std::chrono::milliseconds queued)
{
    // Names as literals: static data, no allocation per request.
    http::HeaderList headers;
    headers.reserve(6);
    headers.emplaceBack(QByteArrayLiteral("x-request-id"), requestId);
    headers.emplaceBack(QByteArrayLiteral("X-TsarRouter-Provider"), workspace.channelLabel(*answered.channel).toUtf8());
    headers.emplaceBack(QByteArrayLiteral("X-TsarRouter-Model"), answered.modelId.toUtf8());
    headers.emplaceBack(QByteArrayLiteral("X-TsarRouter-Attempts"), trace.toHeaderValue());
    if (queued.count() > 0)
        headers.emplaceBack("x-lovely-queued-ms", QByteArray::number(qint64(queued.count())));
    if (const config::Model *model = workspace.findModel(answered.modelId); model && model->deprecated) {
        headers.emplaceBack("X-Model-Deprecated", "true");
        headers.emplaceBack("Sunset", model->deprecated->toString(Qt::ISODate).toLatin1());
    }
    return headers;
}

ErrorReply allFailedReply(const QStringList &chain, const AttemptPlan &plan, const AttemptTrace &trace,
                          int upstreamAttempts, Clock::TimePoint now)
{
    // SPEC §3.6: nothing was tried because every credential is rate limited upstream.
    if (upstreamAttempts == 0) {
        std::optional<Clock::TimePoint> earliest;
        bool onlyRateLimited = !plan.attempts.empty();
        for (const PlannedAttempt &attempt : plan.attempts) {
            if (attempt.kind != PlannedAttempt::Kind::RateLimitedSkip) {
                onlyRateLimited = false;
                break;
            }
            earliest = earliest ? std::min(*earliest, attempt.rateLimitedUntil) : attempt.rateLimitedUntil;
        }
        if (onlyRateLimited) {
            const auto wait = std::chrono::duration_cast<std::chrono::seconds>(*earliest - now).count() + 1;
            ErrorReply reply{429, QStringLiteral("all upstream credentials for this model are rate limited"),
                             "upstream_rate_limited", {}, int(std::max<qint64>(1, wait))};
            reply.metadata.insert("attempts", trace.toJson());
            return reply;
        }
    }
    const QString message = chain.size() == 1
        ? QStringLiteral("All providers failed for model %1").arg(chain.first())
        : QStringLiteral("All providers failed for model chain [%1]").arg(chain.join(", "));
    ErrorReply reply{502, message, "all_providers_failed"};
    reply.metadata.insert("attempts", trace.toJson());
    if (!plan.selection.filtered.empty()) {
        // Why channels were never tried: a `provider` filter that excludes everything is a common cause.
        QJsonArray filtered;
        for (const routing::FilteredChannel &f : plan.selection.filtered)
            filtered.append(QJsonObject{{"channel", f.channelId}, {"model", f.modelId}, {"reason", f.reason}});
        reply.metadata.insert("filtered", filtered);
    }
    return reply;
}

} // namespace sy::service
