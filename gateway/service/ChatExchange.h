#pragma once
// ChatExchange: one client's Chat Completions request, from the first upstream attempt to the
// last byte sent back. It walks the attempt plan (model chain × ordered channels × credentials),
// asks FailureClassifier after each attempt, reports every outcome to the routing state (metrics,
// health, credentials, stickiness), and for streams holds the client's 200 back until the first
// valid upstream chunk, so every switch before it is invisible (SPEC §4, §5, §7).
//
// Ownership: created by the service with `new`, it deletes itself (deleteLater) when the
// response is complete or the client is gone. Thread: the gateway thread only.
#include "api/SseParser.h"
#include "core/Clock.h"
#include "failover/FailureClassifier.h"
#include "http/ResponseSink.h"
#include "service/AdmissionGate.h"
#include "service/AttemptPlan.h"
#include "service/AttemptTrace.h"
#include "service/ChatBodies.h"
#include "service/ChatRequest.h"
#include "service/OutageInjector.h"
#include "service/RequestContent.h"
#include "service/RequestRecord.h"
#include "service/GatewayState.h"
#include "service/Workspace.h"
#include "upstream/UpstreamClient.h"

#include <QBasicTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>

namespace sy::service {

// What the service knows about the request beyond its body.
struct ExchangeContext {
    QByteArray requestId;
    RequestRecord record;              // filled in so far by the service (id, key, timings of auth)
    Clock::TimePoint arrivedAt{};
    QSet<QString> simulateFail;        // X-Simulate-Fail
    QByteArray conversation;           // sticky conversation key
};

class ChatExchange : public QObject, private upstream::StreamHandler {
    Q_OBJECT
public:
    // `ticket`: what admission granted (key permit, money reservation); the exchange settles or
    // releases the reservation exactly once when it ends.
    ChatExchange(ExchangeContext context, WorkspacePtr workspace, ChatRequest request, AdmissionTicket ticket,
                 std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                 GatewayState &state, const Clock &clock, QObject *parent = nullptr);
    ~ChatExchange() override;

    // Plans the attempts and starts the first. Call once.
    void start();

signals:
    // Emitted once when the exchange is over, before it deletes itself, with the complete record.
    void finished(const sy::service::RequestRecord &record);

protected:
    void timerEvent(QTimerEvent *event) override;

private:
    void onHeaders(int status, const http::HeaderList &headers) override;
    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;

    void tryNext();
    // Capacity (ChatExchangeQueue.cpp): a slot on `attempt`'s channel, another channel of the
    // same model with room, or the FIFO queue of the channel expected to free first.
    bool startWithCapacity(size_t index);
    void queueForCapacity(const QString &modelId);
    void onCapacityGranted(limits::CapacityQueue::Slot slot, std::chrono::milliseconds waited);
    void onCapacityTimeout();
    void leaveCapacityQueue();
    void settleMoney(int status);
    void sendAttempt(const PlannedAttempt &attempt);
    void attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason);
    void recordSuccess();
    void handleStreamEvent(const api::SseEvent &event);
    void commitStream();
    void interruptStream(const QString &reason);
    void answerPlain();
    void replyAllFailed();
    void onFirstChunkTimeout();
    void onClientGone();
    void done(int status, const QString &errorMessage = {});
    void stopTransfer();
    qint64 attemptLatencyMs() const;
    void addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error);
    http::HeaderList traceHeaders() const;
    QByteArray upstreamBody(const PlannedAttempt &attempt) const;
    bool refusedForMoney(const PlannedAttempt &attempt) const;
    metrics::ChannelModel metricsKey() const;

    ExchangeContext m_context;
    WorkspacePtr m_workspace;
    ChatRequest m_request;
    std::shared_ptr<http::ResponseSink> m_sink;
    AdmissionTicket m_ticket;
    OutageInjector &m_upstream;
    GatewayState &m_state;
    const Clock &m_clock;

    AttemptPlan m_plan;
    std::vector<bool> m_used;               // per planned attempt: already tried or skipped
    AttemptTrace m_trace;
    bool m_retriedCurrent = false;
    bool m_finished = false;
    int m_upstreamAttempts = 0;

    // Last upstream answer that must not fail over (400/404/413/422), returned if it is the last word.
    int m_clientErrorStatus = 0;
    QByteArray m_clientErrorBody;
    QByteArray m_clientErrorType;

    // The attempt in progress.
    const PlannedAttempt *m_current = nullptr;
    upstream::TransferId m_transfer = 0;
    bool m_transferActive = false;
    Clock::TimePoint m_attemptStart{};
    std::optional<Clock::TimePoint> m_firstByteAt;
    int m_status = 0;
    QByteArray m_contentType;
    QByteArray m_retryAfter;
    QByteArray m_body;
    api::SseParser m_sse;
    std::vector<QByteArray> m_heldEvents;   // stream events before commit
    bool m_committed = false;
    Usage m_usage;
    std::unique_ptr<ContentCapture> m_capture;   // only with settings.log_message_content
    // QBasicTimer, not QTimer: every request creates an exchange, and a QTimer is a QObject of
    // its own with a connection; these are two ids delivered to timerEvent(), single-shot.
    QBasicTimer m_firstChunkTimer;   // precise: a coarse timer may fire 5 % early
    std::optional<Clock::TimePoint> m_firstAttemptAt;

    // Channel capacity.
    std::optional<limits::CapacityQueue::Slot> m_slot;  // released by reset()
    std::vector<limits::CapacityQueue::WaiterId> m_capacityWaiters;   // one per full channel of the model
    std::optional<Clock::TimePoint> m_queueStartedAt;     // first time this request queued
    Clock::TimePoint m_waitStartedAt{};                   // current wait
    std::chrono::milliseconds m_queued{0};                // total time queued for capacity
    QBasicTimer m_capacityTimer;
};

} // namespace sy::service
