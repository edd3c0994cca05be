#pragma once
// ChatExchange: one client's chat request (any client format), from the first upstream attempt
// to the last byte sent back. The attempt loop is its base (AttemptLoop: plan, capacity, failover,
// reporting, money, the record); this is the chat format's part of each attempt: the wire written
// by a Translator for the client's and the channel's formats, a plain answer translated back, and
// a streamed one relayed event by event (StreamRelay: hold, commit, interrupt) with the wait for
// its first chunk and backpressure from the client.
//
// Ownership: created by the service with `new`, it deletes itself (deleteLater) when the
// response is complete or the client is gone. Thread: the gateway thread only.
#include "api/SseParser.h"
#include "api/Translator.h"
#include "service/AttemptLoop.h"
#include "service/ChatRequest.h"
#include "service/RequestContent.h"
#include "service/StreamRelay.h"

#include <QBasicTimer>
#include <memory>

namespace sy::service {

class ChatExchange : public AttemptLoop {
    Q_OBJECT
public:
    ChatExchange(ExchangeContext context, WorkspacePtr workspace, ChatRequest request, AdmissionTicket ticket,
                 std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                 GatewayState &state, const Clock &clock, QObject *parent = nullptr);

    // Plans the attempts and starts the first. Call once.
    void start();

protected:
    void timerEvent(QTimerEvent *event) override;

private:
    void sendAttempt(const PlannedAttempt &attempt) override;
    void answerBody() override;
    void attemptOver() override;
    void onRequestDeadline(const QString &reason) override;
    void addToRecord(RequestRecord &record) const override;

    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;

    void handleStreamEvent(const api::SseEvent &event);
    void commitStream();
    void interruptStream(const QString &reason);
    void onFirstChunkTimeout();

    ChatRequest m_chat;
    api::ClientRequest m_client;
    StreamRelay m_relay;

    // The attempt in progress.
    std::unique_ptr<api::Translator> m_translator;
    bool m_paused = false;                  // the upstream transfer waits for the client to drain
    api::SseParser m_sse;
    std::unique_ptr<ContentCapture> m_capture;   // only with settings.log_message_content
    // QBasicTimer, not QTimer: see AttemptLoop's deadline timer.
    QBasicTimer m_firstChunkTimer;   // precise: a coarse timer may fire 5 % early
};

} // namespace sy::service
