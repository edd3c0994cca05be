#pragma once
// AttemptLoop: the attempt loop of one request, shared by the chat and embeddings exchanges. It
// walks the attempt plan (model chain × ordered channels × credentials): passes over what never
// reaches an upstream (simulated failures, rate-limited credentials, a free model's paid fallback
// once the balance is used up), takes a channel slot or waits for one (CapacityWait), runs one
// upstream attempt at a time (AttemptTransfer), asks failover::decideAfterFailure() what follows a
// failed one (retry the same channel after the pause, the next candidate, or the upstream's answer
// to the client), reports every outcome (AttemptReporter), settles the money once (ExchangeMoney),
// and ends with one RequestRecord. The request deadline (settings.max_request_s) is its timer.
//
// An exchange derives from it and supplies what depends on the format: the attempt's wire
// (sendAttempt), the 2xx body read into an answer (answerBody) and, for streams, the body as it
// arrives (onChunk / onComplete / onError, the defaults here buffer a plain answer).
//
// Ownership: the exchange is created by the service with `new` and deletes itself (deleteLater)
// when the response is complete or the client is gone. Thread: the gateway thread only.
#include "api/Codec.h"
#include "core/Clock.h"
#include "failover/AttemptDecision.h"
#include "http/ResponseSink.h"
#include "service/AdmissionGate.h"
#include "service/AttemptPlan.h"
#include "service/AttemptReporter.h"
#include "service/AttemptTrace.h"
#include "service/AttemptTransfer.h"
#include "service/CapacityWait.h"
#include "service/ErrorReply.h"
#include "service/ExchangeContext.h"
#include "service/ExchangeMoney.h"
#include "service/GatewayState.h"
#include "service/OutageInjector.h"
#include "service/RequestRecord.h"
#include "service/Workspace.h"

#include <QBasicTimer>
#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace sy::service {

// What the loop needs to know of the request itself.
struct LoopRequest {
    // The model chain, the primary first (embeddings: one model). Shared with the exchange's own
    // copy of the request: read it through const access only, or it detaches (an allocation).
    QStringList chain;
    bool stream = false;
    api::Format clientFormat = api::Format::OpenAiChat;   // of the gateway's own replies
};

class AttemptLoop : public QObject, protected AttemptTransfer {
    Q_OBJECT
public:
    // Destroyed without done() (the gateway shutting down): the transfer is cancelled and
    // m_money releases the reservation.
    ~AttemptLoop() override;

signals:
    // Emitted once when the exchange is over, before it deletes itself, with the complete record.
    void finished(const sy::service::RequestRecord &record);

protected:
    // `ticket`: what admission granted (key permit, money reservation); the loop settles or
    // releases the reservation exactly once when it ends. Rvalues: the exchange passes on what it
    // was given, and a by-value hop would move the record once more per request.
    AttemptLoop(ExchangeContext &&context, WorkspacePtr &&workspace, LoopRequest &&request, AdmissionTicket &&ticket,
                std::shared_ptr<http::ResponseSink> &&sink, OutageInjector &upstream, GatewayState &state,
                const Clock &clock, QObject *parent);

    // The attempts to walk; an exchange may mark some of them used (skipped) before run().
    void setPlan(AttemptPlan plan);
    // Watches the client, arms the request deadline and starts the first attempt. Once.
    void run();

    // The format's part of an attempt: write `attempt`'s wire and send it with sendWire() (or fail
    // the attempt with attemptFailed()). m_current, m_usage and the transfer are already reset.
    virtual void sendAttempt(const PlannedAttempt &attempt) = 0;
    // The upstream's 2xx body (m_body) of a plain answer: answer() it, or answerUnusable().
    virtual void answerBody() = 0;
    // The attempt in progress is over (it failed, or the exchange ends): the format's own
    // per-attempt timers stop.
    virtual void attemptOver() {}
    // The request deadline passed with the exchange still running; `reason` is the record's.
    virtual void onRequestDeadline(const QString &reason);
    // The format's own fields of the record, at done().
    virtual void addToRecord(RequestRecord & /*record*/) const {}

    // A plain answer: the body buffered up to the cap, then answerBody() or the failure.
    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;
    void timerEvent(QTimerEvent *event) override;

    // The key the attempt is sent with (empty: the channel has none) and the model name upstream.
    static QString credentialOf(const PlannedAttempt &attempt);
    static QString upstreamModelOf(const PlannedAttempt &attempt);
    // Sends the attempt's wire to its channel (through the failure lab) and reports it started.
    void sendWire(const PlannedAttempt &attempt, const QString &credential, api::WireRequest wire);
    // The attempt gave no usable answer: traced, reported, and the loop goes on as decided.
    void attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason);
    // A 2xx answer the gateway cannot use (empty, malformed): fails over like a bad status.
    void answerUnusable(const QString &reason);
    // The attempt answered with m_usage: reported (health, metrics, stickiness) and settled.
    void succeeded();
    // Settles the answered attempt's charge from m_usage (also for a stream that broke midway).
    void settleAnswered();
    // The whole plain answer: succeeded(), traced ok, sent with the trace headers, done(200).
    void answer(const QByteArray &contentType, const QByteArray &body);
    // Runs `deliver` (the answer's end and done()) once the charge settleAnswered() booked is
    // durable — or was refused by the disk, which leaves it unpublished but counted — at once
    // when there is none. Not at all when the loop ended meanwhile.
    void afterCharge(std::function<void()> deliver);
    // The trace headers of the answering attempt (SPEC §6).
    http::HeaderList traceHeaders() const;
    void addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error);
    QString redacted(const QString &text) const;
    // Ends the exchange: lets go of the sink, the slot, the money and the permit, and emits the
    // record. Once; later calls do nothing.
    void done(int status, const QString &errorMessage = {});

    ExchangeContext m_context;
    WorkspacePtr m_workspace;
    LoopRequest m_request;
    std::shared_ptr<http::ResponseSink> m_sink;
    GatewayState &m_state;
    AttemptReporter m_report;
    AttemptPlan m_plan;
    std::vector<bool> m_used;                    // per planned attempt: already tried or skipped
    AttemptTrace m_trace;
    bool m_finished = false;
    const PlannedAttempt *m_current = nullptr;   // the attempt in progress, or the last one
    api::TokenUsage m_usage;                     // of the attempt in progress

private:
    void tryNext();
    bool startWithCapacity(size_t index);
    void queueForCapacity(const QString &modelId);
    void onCapacityGranted(limits::CapacityQueue::Slot slot);
    void onCapacityTimeout();
    void startAttempt(const PlannedAttempt &attempt);
    void keepClientError(bool returnNow);
    void replyAllFailed();
    void replyError(const ErrorReply &reply);
    void onClientGone();

    AdmissionTicket m_ticket;
    ExchangeMoney m_money;
    std::unique_ptr<CapacityWait> m_capacity;    // made the first time the request queues
    std::optional<limits::CapacityQueue::Slot> m_slot;   // the current attempt's channel slot
    bool m_retriedCurrent = false;
    int m_upstreamAttempts = 0;
    // Last upstream answer that must not fail over (400/404/413/422), returned if it is the last word.
    int m_clientErrorStatus = 0;
    QByteArray m_clientErrorBody;
    QByteArray m_clientErrorType;
    // QBasicTimer, not QTimer: every request creates an exchange, and a QTimer is a QObject of
    // its own with a connection; this is an id delivered to timerEvent(), single-shot.
    QBasicTimer m_deadlineTimer;                 // settings.max_request_s
};

} // namespace sy::service
