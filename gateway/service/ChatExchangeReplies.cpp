// ChatExchange, the answers that are not a model's: the gateway's own errors in the client's
// format, an upstream's answer to a wrong request, and the 502 / 429 when every candidate failed.
#include "service/ChatExchange.h"

#include "core/SecretRedaction.h"
#include "service/ErrorReply.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::service {

void ChatExchange::replyError(const ErrorReply &reply)
{
    sendErrorReply(*m_sink, m_context.requestId, reply, m_request.format);
    done(reply.status, reply.message);
}

void ChatExchange::keepClientError(bool returnNow)
{
    // The upstream's own answer to a wrong request, in the client's format: as it came when both
    // speak the same format, else its message in the client's error shape. Secrets redacted.
    const QStringList secrets = m_current->channel->credentials;
    const bool sameFormat = api::channelFormatFromName(m_current->channel->format) == m_request.format;
    m_clientErrorStatus = m_status;
    if (sameFormat) {
        m_clientErrorBody = redactSecrets(m_body, secrets);
        m_clientErrorType = m_contentType.isEmpty() ? QByteArray("application/json") : m_contentType;
    } else {
        m_clientErrorBody = errorBodyIn(m_request.format, {m_status, redacted(upstreamErrorMessage(m_body)), "upstream_error"});
        m_clientErrorType = "application/json";
    }
    if (!returnNow)
        return;
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", m_clientErrorType);
    m_sink->respond(m_clientErrorStatus, headers, m_clientErrorBody);
    done(m_clientErrorStatus);
}

void ChatExchange::replyAllFailed()
{
    if (m_clientErrorStatus) {
        m_sink->respond(m_clientErrorStatus, {{"Content-Type", m_clientErrorType}, {"x-request-id", m_context.requestId}},
                        m_clientErrorBody);
        return done(m_clientErrorStatus);
    }
    // SPEC §3.6: nothing was tried because every credential is rate limited upstream.
    if (m_upstreamAttempts == 0) {
        std::optional<Clock::TimePoint> earliest;
        bool onlyRateLimited = !m_plan.attempts.empty();
        for (const PlannedAttempt &attempt : m_plan.attempts) {
            if (attempt.kind != PlannedAttempt::Kind::RateLimitedSkip) {
                onlyRateLimited = false;
                break;
            }
            earliest = earliest ? std::min(*earliest, attempt.rateLimitedUntil) : attempt.rateLimitedUntil;
        }
        if (onlyRateLimited) {
            const auto wait = std::chrono::duration_cast<std::chrono::seconds>(*earliest - m_clock.now()).count() + 1;
            ErrorReply reply{429, QStringLiteral("all upstream credentials for this model are rate limited"),
                             "upstream_rate_limited", {}, int(std::max<qint64>(1, wait))};
            reply.metadata.insert("attempts", m_trace.toJson());
            return replyError(reply);
        }
    }
    const QString message = m_request.chain.size() == 1
        ? QStringLiteral("All providers failed for model %1").arg(m_request.chain.first())
        : QStringLiteral("All providers failed for model chain [%1]").arg(m_request.chain.join(", "));
    ErrorReply reply{502, message, "all_providers_failed"};
    reply.metadata.insert("attempts", m_trace.toJson());
    if (!m_plan.selection.filtered.empty()) {
        // Why channels were never tried: a `provider` filter that excludes everything is a common cause.
        QJsonArray filtered;
        for (const routing::FilteredChannel &f : m_plan.selection.filtered)
            filtered.append(QJsonObject{{"channel", f.channelId}, {"model", f.modelId}, {"reason", f.reason}});
        reply.metadata.insert("filtered", filtered);
    }
    replyError(reply);
}

} // namespace sy::service
