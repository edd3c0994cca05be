#pragma once
// ChatExchange: one client's chat request (any client format), from the first upstream attempt
// to the last byte sent back — the attempt loop. It walks the attempt plan (model chain ×
// ordered channels × credentials); each attempt talks to the upstream through a Translator for
// the client's and the channel's formats; after a failed attempt failover::decideAfterFailure()
// says what comes next. The other jobs are its parts: StreamRelay (hold, commit, interrupt),
// CapacityWait (the channel capacity queue), ExchangeMoney (refusal and settlement),
// AttemptReporter (metrics, health, credentials, stickiness) and AttemptTransfer (the upstream
// transfer of the attempt in progress).
//
// Ownership: created by the service with `new`, it deletes itself (deleteLater) when the
// response is complete or the client is gone. Thread: the gateway thread only.
#include "api/SseParser.h"
#include "api/Translator.h"
#include "core/Clock.h"
#include "failover/AttemptDecision.h"
#include "http/ResponseSink.h"
#include "service/AdmissionGate.h"
#include "service/AttemptPlan.h"
#include "service/AttemptReporter.h"
#include "service/AttemptTrace.h"
#include "service/AttemptTransfer.h"
#include "service/CapacityWait.h"
#include "service/ChatRequest.h"
#include "service/ExchangeContext.h"
#include "service/ExchangeMoney.h"
#include "service/GatewayState.h"
#include "service/OutageInjector.h"
#include "service/RequestContent.h"
#include "service/RequestRecord.h"
#include "service/StreamRelay.h"
#include "service/Workspace.h"
#include "upstream/UpstreamClient.h"

#include <QBasicTimer>
#include <QObject>
#include <memory>

namespace sy::service {

class ChatExchange : public QObject, private AttemptTransfer {
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
    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;

    // The loop.
    void tryNext();
    bool startWithCapacity(size_t index);
    void queueForCapacity(const QString &modelId);
    void onCapacityGranted(limits::CapacityQueue::Slot slot);
    void onCapacityTimeout();
    void sendAttempt(const PlannedAttempt &attempt);
    void attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason);
    void keepClientError(bool returnNow);
    void replyAllFailed();
    void replyError(const ErrorReply &reply);

    // Answers.
    void handleStreamEvent(const api::SseEvent &event);
    void commitStream();
    void interruptStream(const QString &reason);
    void answerPlain();
    void succeeded();
    void settleAnswered();

    void onFirstChunkTimeout();
    void onRequestDeadline();
    void onClientGone();
    void done(int status, const QString &errorMessage = {});
    void addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error);
    http::HeaderList traceHeaders() const;
    QString redacted(const QString &text) const;

    ExchangeContext m_context;
    WorkspacePtr m_workspace;
    ChatRequest m_request;
    api::ClientRequest m_client;
    std::shared_ptr<http::ResponseSink> m_sink;
    AdmissionTicket m_ticket;
    GatewayState &m_state;
    AttemptReporter m_report;
    StreamRelay m_relay;
    ExchangeMoney m_money;
    std::unique_ptr<CapacityWait> m_capacity;   // made the first time the request queues

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
    std::unique_ptr<api::Translator> m_translator;
    bool m_paused = false;                  // the upstream transfer waits for the client to drain
    api::SseParser m_sse;
    api::TokenUsage m_usage;
    std::unique_ptr<ContentCapture> m_capture;   // only with settings.log_message_content
    // QBasicTimer, not QTimer: every request creates an exchange, and a QTimer is a QObject of
    // its own with a connection; these are ids delivered to timerEvent(), single-shot.
    QBasicTimer m_firstChunkTimer;   // precise: a coarse timer may fire 5 % early
    QBasicTimer m_deadlineTimer;     // settings.max_request_s
    std::optional<limits::CapacityQueue::Slot> m_slot;  // the current attempt's channel slot
};

} // namespace sy::service
