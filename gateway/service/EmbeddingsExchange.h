#pragma once
// EmbeddingsExchange: one `POST /v1/embeddings` request from the first upstream attempt to the
// answer — the attempt loop over the model's channels (never another model, SPEC §3). Each
// attempt goes through the channel format's EmbeddingsDialect; a channel whose format cannot serve
// the request (anthropic; gemini for token arrays) is skipped with its reason in the trace. The
// failover rules are the chat routes' (failover::decideAfterFailure), and so are its parts:
// CapacityWait (channel capacity), ExchangeMoney (one charge at the serving channel's prompt
// price), AttemptReporter (metrics, health, credentials) and AttemptTransfer (the upstream
// transfer). Embeddings never stream.
//
// Ownership: created by the service with `new`; deletes itself (deleteLater) when the response is
// complete or the client is gone. Thread: the gateway thread only.
#include "api/embeddings/EmbeddingsDialect.h"
#include "core/Clock.h"
#include "failover/AttemptDecision.h"
#include "http/ResponseSink.h"
#include "service/AdmissionGate.h"
#include "service/AttemptPlan.h"
#include "service/AttemptReporter.h"
#include "service/AttemptTrace.h"
#include "service/AttemptTransfer.h"
#include "service/CapacityWait.h"
#include "service/EmbeddingsCall.h"
#include "service/ExchangeContext.h"
#include "service/ExchangeMoney.h"
#include "service/GatewayState.h"
#include "service/OutageInjector.h"
#include "service/RequestRecord.h"
#include "service/Workspace.h"
#include "upstream/UpstreamClient.h"

#include <QBasicTimer>
#include <QObject>
#include <memory>

namespace sy::service {

class EmbeddingsExchange : public QObject, private AttemptTransfer {
    Q_OBJECT
public:
    // `ticket`: what admission granted; the exchange settles or releases its reservation once.
    EmbeddingsExchange(ExchangeContext context, WorkspacePtr workspace, EmbeddingsCall call, AdmissionTicket ticket,
                       std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream, GatewayState &state,
                       const Clock &clock, QObject *parent = nullptr);
    ~EmbeddingsExchange() override;

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

    void skipIncapableChannels();
    void tryNext();
    bool startWithCapacity(size_t index);
    void queueForCapacity(const QString &modelId);
    void onCapacityGranted(limits::CapacityQueue::Slot slot);
    void sendAttempt(const PlannedAttempt &attempt);
    void answer();
    void attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason);
    void returnUpstreamError();
    void replyError(const ErrorReply &reply);
    void onClientGone();
    void done(int status, const QString &errorMessage = {});
    void addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error);
    QString redacted(const QString &text) const;
    std::chrono::milliseconds queued() const;

    ExchangeContext m_context;
    WorkspacePtr m_workspace;
    EmbeddingsCall m_call;
    std::shared_ptr<http::ResponseSink> m_sink;
    AdmissionTicket m_ticket;
    GatewayState &m_state;
    AttemptReporter m_report;
    ExchangeMoney m_money;
    std::unique_ptr<CapacityWait> m_capacity;   // made the first time the request queues

    AttemptPlan m_plan;
    std::vector<bool> m_used;                   // per planned attempt: already tried or skipped
    AttemptTrace m_trace;
    bool m_retriedCurrent = false;
    bool m_finished = false;
    int m_upstreamAttempts = 0;

    // The attempt in progress.
    const PlannedAttempt *m_current = nullptr;
    const api::embeddings::EmbeddingsDialect *m_dialect = nullptr;
    qint64 m_promptTokens = 0;                  // of the answer, once answered
    QBasicTimer m_deadlineTimer;                // settings.max_request_s
    std::optional<limits::CapacityQueue::Slot> m_slot;   // the current attempt's channel slot
};

} // namespace sy::service
