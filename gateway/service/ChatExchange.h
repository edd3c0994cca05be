#pragma once
// ChatExchange: one client's Chat Completions request, from the first upstream attempt to the
// last byte sent back. It walks the candidate list (model chain × channels × credentials), asks
// FailureClassifier after each attempt, and for streams holds the client's 200 back until the
// first valid upstream chunk, so every switch before it is invisible (SPEC §4, §5).
//
// Ownership: created by the service with `new`, it deletes itself (deleteLater) when the
// response is complete or the client is gone. Thread: the gateway thread only.
#include "api/SseParser.h"
#include "core/Clock.h"
#include "failover/FailureClassifier.h"
#include "http/ResponseSink.h"
#include "service/AttemptTrace.h"
#include "service/ChatRequest.h"
#include "service/Workspace.h"
#include "upstream/UpstreamClient.h"

#include <QObject>
#include <QTimer>
#include <memory>

namespace sy::service {

struct ChatCandidate {
    ChannelRoute route;
    QString modelId;        // public model id
    int credentialIndex = -1;  // -1: the channel has no credentials
};

struct Usage {
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    bool known = false;
};

class ChatExchange : public QObject, private upstream::StreamHandler {
    Q_OBJECT
public:
    ChatExchange(QByteArray requestId, WorkspacePtr workspace, ChatRequest request,
                 std::shared_ptr<http::ResponseSink> sink, upstream::UpstreamClient &upstream,
                 const Clock &clock, QObject *parent = nullptr);
    ~ChatExchange() override;

    // Starts the first attempt. Call once.
    void start();

    // The full candidate list for a request, in the order it will be tried.
    static std::vector<ChatCandidate> buildCandidates(const Workspace &workspace, const QStringList &chain);

signals:
    // Emitted once when the exchange is over, before it deletes itself.
    void finished(int status, const sy::service::AttemptTrace &trace);

private:
    void onHeaders(int status, const http::HeaderList &headers) override;
    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;

    void tryNext();
    void sendAttempt(const ChatCandidate &candidate);
    void attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason);
    void handleStreamEvent(const api::SseEvent &event);
    void commitStream();
    void interruptStream(const QString &reason);
    void answerPlain();
    void replyAllFailed();
    void onFirstChunkTimeout();
    void onClientGone();
    void done(int status);
    qint64 attemptLatencyMs() const;
    http::HeaderList traceHeaders(const ChatCandidate &candidate) const;
    QByteArray upstreamBody(const ChatCandidate &candidate) const;

    QByteArray m_requestId;
    WorkspacePtr m_workspace;
    ChatRequest m_request;
    std::shared_ptr<http::ResponseSink> m_sink;
    upstream::UpstreamClient &m_upstream;
    const Clock &m_clock;

    std::vector<ChatCandidate> m_candidates;
    size_t m_next = 0;
    AttemptTrace m_trace;
    bool m_retriedCurrent = false;
    bool m_finished = false;

    // Last upstream answer that must not fail over (400/404/413/422), returned if nobody answers.
    int m_clientErrorStatus = 0;
    QByteArray m_clientErrorBody;
    QByteArray m_clientErrorType;

    // The attempt in progress.
    const ChatCandidate *m_current = nullptr;
    upstream::TransferId m_transfer = 0;
    bool m_transferActive = false;
    Clock::TimePoint m_attemptStart{};
    int m_status = 0;
    QByteArray m_contentType;
    QByteArray m_body;
    api::SseParser m_sse;
    std::vector<QByteArray> m_heldEvents;   // stream events before commit
    bool m_committed = false;
    bool m_sawDone = false;
    Usage m_usage;
    QTimer m_firstChunkTimer;
};

} // namespace sy::service
