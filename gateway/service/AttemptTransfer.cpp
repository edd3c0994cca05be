#include "service/AttemptTransfer.h"

#include "service/ChannelTransport.h"

namespace sy::service {

namespace {

constexpr qsizetype kMaxUpstreamBody = 64 * 1024 * 1024;

} // namespace

void AttemptTransfer::beginAttempt()
{
    m_status = 0;
    m_contentType.clear();
    m_retryAfter.clear();
    m_body.clear();
    m_timing = {m_clock.now(), std::nullopt, {}};
    if (!m_firstAttemptAt)
        m_firstAttemptAt = m_timing.started;
}

void AttemptTransfer::sendToChannel(const config::Channel &channel, const QString &credential, api::WireRequest wire,
                                    const std::optional<failover::Outage> &outage, bool streamed)
{
    upstream::UpstreamRequest request;
    request.url = channel.baseUrl.toUtf8() + wire.path;
    request.headers = std::move(wire.headers);
    request.body = std::move(wire.body);
    request.connectTimeout = channel.timeouts.connect;
    request.firstByteTimeout = channel.timeouts.firstByte;
    request.idleTimeout = channel.timeouts.idle;
    request.streamed = streamed;
    applyChannel(channel, credential, request);
    m_transfer = m_upstream.send(std::move(request), this, outage);
    m_transferActive = true;
}

void AttemptTransfer::stopTransfer()
{
    if (!m_transferActive)
        return;
    m_transferActive = false;
    m_upstream.cancel(m_transfer);
}

std::optional<QString> AttemptTransfer::appendBody(const QByteArray &bytes)
{
    m_body += bytes;
    if (m_body.size() > kMaxUpstreamBody)
        return QStringLiteral("upstream response larger than %1 bytes").arg(kMaxUpstreamBody);
    return std::nullopt;
}

AttemptTiming AttemptTransfer::timingNow() const
{
    AttemptTiming timing = m_timing;
    timing.ended = m_clock.now();
    return timing;
}

qint64 AttemptTransfer::attemptLatencyMs() const
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - m_timing.started).count();
}

QString AttemptTransfer::transportFailure(const upstream::UpstreamError &error)
{
    return QStringLiteral("%1: %2").arg(QString::fromLatin1(upstream::errorKindName(error.kind)), error.message);
}

void AttemptTransfer::onHeaders(int status, const http::HeaderList &headers)
{
    m_status = status;
    m_contentType = http::headerValue(headers, "content-type");
    m_retryAfter = http::headerValue(headers, "retry-after");
}

} // namespace sy::service
