// ChatExchange, the answers that are not a model's: the gateway's own errors in the client's
// format, an upstream's answer to a wrong request, and the 502 / 429 when every candidate failed.
#include "service/ChatExchange.h"

#include "core/SecretRedaction.h"
#include "service/AttemptReplies.h"
#include "service/ErrorReply.h"


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
    replyError(allFailedReply(m_request.chain, m_plan, m_trace, m_upstreamAttempts, m_clock.now()));
}

} // namespace sy::service
