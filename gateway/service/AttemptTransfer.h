#pragma once
// AttemptTransfer: the upstream transfer of an exchange's attempt in progress, shared by the chat
// and embeddings exchanges — the request on the channel's wire (its base URL, timeouts, TLS,
// proxy and auth style), the answer's status and headers, the body buffered up to a cap, the
// attempt's timing, and cancelling it. One transfer at a time. The exchange derives from it
// privately and handles the body and the end (onChunk, onComplete, onError); this records the
// headers.
//
// Thread: the gateway thread only. `upstream` and `clock` must outlive it. The exchange calls
// stopTransfer() in its own destructor (while its parts still exist); this one cancels nothing.
#include "api/Codec.h"
#include "config/Config.h"
#include "core/Clock.h"
#include "failover/OutagePlan.h"
#include "service/AttemptReporter.h"
#include "service/OutageInjector.h"
#include "upstream/UpstreamClient.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace sy::service {

class AttemptTransfer : protected upstream::StreamHandler {
protected:
    AttemptTransfer(OutageInjector &upstream, const Clock &clock) : m_upstream(upstream), m_clock(clock) {}
    ~AttemptTransfer() override = default;

    // Forgets the previous attempt's answer and starts this attempt's clock (the first attempt's
    // start is kept in m_firstAttemptAt, the start of the request's upstream phase).
    void beginAttempt();
    // Sends `wire` to `channel` (its path appended to the base URL); `credential` is the key the
    // wire was written with (empty: none); `outage` the failure lab's for this channel and model;
    // `streamed` whether the answer is relayed to the client as it comes.
    void sendToChannel(const config::Channel &channel, const QString &credential, api::WireRequest wire,
                       const std::optional<failover::Outage> &outage, bool streamed);
    // Cancels the transfer if it still runs; the handler hears nothing more of it.
    void stopTransfer();
    // Appends to m_body. Past the cap (64 MiB) returns why the attempt fails (a protocol error).
    std::optional<QString> appendBody(const QByteArray &bytes);
    // The attempt's timing ended now, and its age in milliseconds.
    AttemptTiming timingNow() const;
    qint64 attemptLatencyMs() const;
    // A transport failure as an attempt's reason: "<kind>: <message>".
    static QString transportFailure(const upstream::UpstreamError &error);

    void onHeaders(int status, const http::HeaderList &headers) override;

    OutageInjector &m_upstream;
    const Clock &m_clock;
    upstream::TransferId m_transfer = 0;
    bool m_transferActive = false;
    AttemptTiming m_timing;
    int m_status = 0;                       // of the answer; 0 until its headers came
    QByteArray m_contentType;
    QByteArray m_retryAfter;
    QByteArray m_body;
    std::optional<Clock::TimePoint> m_firstAttemptAt;
};

} // namespace sy::service
