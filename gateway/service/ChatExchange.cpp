#include "service/ChatExchange.h"

#include "core/SecretRedaction.h"
#include "service/AttemptReplies.h"
#include "service/ErrorReply.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QTimerEvent>

namespace sy::service {

ChatExchange::ChatExchange(ExchangeContext context, WorkspacePtr workspace, ChatRequest request, AdmissionTicket ticket,
                           std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                           GatewayState &state, const Clock &clock, QObject *parent)
    : QObject(parent)
    , AttemptTransfer(upstream, clock)
    , m_context(std::move(context))
    , m_workspace(std::move(workspace))
    , m_request(std::move(request))
    , m_client(m_request.clientRequest())
    , m_sink(std::move(sink))
    , m_ticket(std::move(ticket))
    , m_state(state)
    , m_report(state, clock)
    , m_relay(m_sink)
    , m_money(state.ledger, std::exchange(m_ticket.reservation, 0))
{
}

void ChatExchange::timerEvent(QTimerEvent *event)
{
    // Both timers are single-shot: stopped before their handler runs.
    if (event->timerId() == m_firstChunkTimer.timerId()) {
        m_firstChunkTimer.stop();
        onFirstChunkTimeout();
    } else if (event->timerId() == m_deadlineTimer.timerId()) {
        m_deadlineTimer.stop();
        onRequestDeadline();
    } else {
        QObject::timerEvent(event);
    }
}

ChatExchange::~ChatExchange()
{
    // Destroyed without done() (the gateway shutting down): m_money releases the reservation.
    stopTransfer();
}

void ChatExchange::start()
{
    const QString sticky = m_state.sticky.channelFor(m_context.conversation);
    m_plan = planAttempts(*m_workspace, m_request, m_state, m_context.simulateFail, sticky);
    m_used.assign(m_plan.attempts.size(), false);
    if (m_workspace->config().settings.logMessageContent) {
        m_capture = std::make_unique<ContentCapture>();
        m_capture->setRequest(m_request.body.value(QLatin1String("messages")));
    }
    for (const auto &[model, reason] : std::as_const(m_request.incapableFallbacks))
        m_trace.add({QString(), model, QStringLiteral("skipped"), std::nullopt, reason});
    m_sink->onClientGone([this] { onClientGone(); });
    m_deadlineTimer.start(m_workspace->config().settings.maxRequestS * 1000, Qt::CoarseTimer, this);
    tryNext();
}

void ChatExchange::addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error)
{
    m_trace.add({m_workspace->channelLabel(*m_current->channel), m_current->modelId, status, latencyMs, error});
}

QString ChatExchange::redacted(const QString &text) const
{
    return redactSecrets(text, m_current ? m_current->channel->credentials : QStringList());
}

void ChatExchange::tryNext()
{
    if (m_finished)
        return;
    if (!m_sink->isOpen())
        return onClientGone();
    m_slot.reset();  // the previous attempt's channel slot
    const int maxAttempts = m_workspace->config().settings.maxAttempts;
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        if (m_used[i])
            continue;
        if (!failover::mayStartAnotherAttempt(m_upstreamAttempts, maxAttempts))
            break;
        const PlannedAttempt &attempt = m_plan.attempts[i];
        m_current = &attempt;
        m_retriedCurrent = false;
        if (const auto skip = plannedSkip(attempt, m_clock.now())) {
            m_used[i] = true;
            addTrace(skip->first, std::nullopt, skip->second);
            continue;
        }
        // An upstream attempt.
        if (m_money.refusesPaidFallback(*m_workspace, m_request.chain.value(0), attempt.modelId)) {
            m_used[i] = true;
            addTrace(QStringLiteral("insufficient_balance"), std::nullopt,
                     QStringLiteral("the balance is used up: a free model's paid fallback cannot run"));
            continue;
        }
        if (!startWithCapacity(i))
            queueForCapacity(attempt.modelId);
        return;
    }
    replyAllFailed();
}

void ChatExchange::sendAttempt(const PlannedAttempt &attempt)
{
    const config::Channel &channel = *attempt.channel;
    m_current = &attempt;
    m_sse = api::SseParser(m_workspace->config().settings.maxStreamEventBytes);
    m_paused = false;
    m_relay.resetHeld();
    m_usage = {};
    if (m_capture)
        m_capture->resetAnswer();  // what a failed attempt held back never reached the client

    const api::Format format = api::channelFormatFromName(channel.format).value_or(api::Format::OpenAiChat);
    api::WriterOptions options;
    options.publicModel = attempt.modelId;
    options.requestId = m_context.requestId;
    options.includeUsage = m_request.clientWantsUsage;
    options.captureText = m_capture != nullptr;
    options.jsonArrayStream = m_request.jsonArrayStream;
    options.onAnswer = m_request.onAnswer;
    m_translator = api::makeTranslator(m_client, format, options);
    beginAttempt();
    if (!m_translator) {
        // The configuration loader refuses formats the gateway cannot serve; this is the guard.
        failover::AttemptOutcome outcome;
        outcome.transportError = upstream::UpstreamErrorKind::Other;
        m_report.started(attempt);
        return attemptFailed(outcome, QStringLiteral("the gateway cannot translate this request to the channel's '%1' format")
                                          .arg(channel.format));
    }

    const QString credential = attempt.credential >= 0 ? channel.credentials[attempt.credential] : QString();
    api::WireRequest wire = m_translator->request(attempt.served->upstream.isEmpty() ? attempt.modelId : attempt.served->upstream,
                                                  credential);
    const std::optional<failover::Outage> outage = m_state.outages.match(channel.id, attempt.modelId);
    m_report.started(attempt);
    sendToChannel(channel, credential, std::move(wire), outage);
    if (m_request.stream)
        m_firstChunkTimer.start(m_workspace->config().settings.firstChunkTimeoutS * 1000, Qt::PreciseTimer, this);
}

void ChatExchange::onChunk(const QByteArray &bytes)
{
    const bool success = m_status >= 200 && m_status < 300;
    if (!m_request.stream || !success) {
        if (const std::optional<QString> tooLarge = appendBody(bytes)) {
            failover::AttemptOutcome outcome;
            outcome.transportError = upstream::UpstreamErrorKind::Protocol;
            attemptFailed(outcome, *tooLarge);
        }
        return;
    }
    const upstream::TransferId transfer = m_transfer;
    for (const api::SseEvent &event : m_sse.feed(bytes)) {
        handleStreamEvent(event);
        // The event may have ended this attempt (failed over or interrupted): drop the rest.
        if (m_finished || !m_transferActive || m_transfer != transfer)
            return;
    }
    // Backpressure: a client that reads slower than the upstream sends pauses the upstream
    // transfer; the sink's drain callback (set at commit) resumes it.
    if (m_relay.committed() && !m_paused && m_sink->isCongested()) {
        m_paused = true;
        m_upstream.pause(m_transfer);
    }
    if (m_sse.overflowed()) {
        const qint64 maxEvent = m_workspace->config().settings.maxStreamEventBytes;
        const QString reason = QStringLiteral("upstream stream event larger than %1 bytes").arg(maxEvent);
        if (m_relay.committed())
            return interruptStream(reason);
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        attemptFailed(outcome, reason);
    }
}

void ChatExchange::handleStreamEvent(const api::SseEvent &event)
{
    api::TranslatedEvent out = m_translator->event(event);
    if (out.malformed || out.upstreamError) {
        const QString reason = out.malformed ? QStringLiteral("upstream sent a malformed stream event")
                                             : QStringLiteral("upstream stream error: %1").arg(redacted(out.errorMessage.left(200)));
        if (m_relay.committed())
            return interruptStream(reason);
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, reason);
    }
    if (out.usage)
        m_usage = *out.usage;
    if (m_capture && !out.text.isEmpty())
        m_capture->appendAnswerText(out.text);
    if (out.content && !m_timing.firstContent)
        m_timing.firstContent = m_clock.now();
    m_relay.relay(std::move(out.out));
    if (out.content && !m_relay.committed())
        commitStream();
}

http::HeaderList ChatExchange::traceHeaders() const
{
    return answerHeaders(*m_workspace, m_context.requestId, *m_current, m_trace,
                         m_capacity ? m_capacity->queued() : std::chrono::milliseconds(0));
}

void ChatExchange::commitStream()
{
    m_firstChunkTimer.stop();
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", m_request.jsonArrayStream ? "application/json" : "text/event-stream");
    headers.emplaceBack("Cache-Control", "no-cache");
    m_relay.commit(headers);
    m_sink->onDrained([this] {
        if (m_paused && m_transferActive) {
            m_paused = false;
            m_upstream.resume(m_transfer);
        }
    });
}

void ChatExchange::interruptStream(const QString &reason)
{
    stopTransfer();
    m_report.interrupted(*m_current, timingNow());
    settleAnswered();   // what streamed before the break was delivered (and is charged when its usage is known)
    m_relay.interrupt(m_translator->interrupted(reason));
    done(200);
}

void ChatExchange::succeeded()
{
    m_report.succeeded(*m_current, timingNow(), m_usage, m_request.stream, m_context.conversation,
                       m_current->modelId == m_request.chain.first());
    settleAnswered();
}

void ChatExchange::settleAnswered()
{
    // Booked (durably, see billing/LedgerJournal) before the answer's last byte leaves: a client
    // that saw a complete answer was charged for it.
    const config::Model *primary = m_workspace->findModel(m_request.chain.value(0));
    if (const auto charged = m_money.settle(m_context.requestId, *m_current, m_usage, primary && primary->free))
        m_context.record.costNanos = *charged;
}

void ChatExchange::onComplete()
{
    m_transferActive = false;
    if (m_request.stream && m_relay.committed()) {
        // A clean end of the upstream body is a complete answer even without its end marker.
        succeeded();
        m_relay.end(m_translator->endOfStream());
        return done(200);
    }
    failover::AttemptOutcome outcome;
    outcome.httpStatus = m_status;
    const bool success = m_status >= 200 && m_status < 300;
    if (success && m_request.stream) {
        outcome.emptyOrMalformed = true;  // ended without a single usable chunk
        return attemptFailed(outcome, QStringLiteral("upstream stream ended without content"));
    }
    if (success)
        return answerPlain();
    attemptFailed(outcome, QStringLiteral("HTTP %1: %2").arg(m_status).arg(upstreamErrorMessage(m_body)));
}

void ChatExchange::answerPlain()
{
    api::TranslatedAnswer answer = m_translator->answer(m_body);
    if (!answer.problem.isEmpty()) {
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, answer.problem);
    }
    m_usage = answer.usage;
    if (m_capture)
        m_capture->setAnswerText(answer.text);
    succeeded();
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", answer.contentType);
    m_sink->respond(200, headers, answer.body);
    done(200);
}

void ChatExchange::onError(const upstream::UpstreamError &error)
{
    m_transferActive = false;
    const QString reason = transportFailure(error);
    if (m_relay.committed())
        return interruptStream(QStringLiteral("upstream connection failed mid-stream (%1)").arg(reason));
    failover::AttemptOutcome outcome;
    outcome.transportError = error.kind;
    attemptFailed(outcome, reason);
}

void ChatExchange::onFirstChunkTimeout()
{
    if (m_relay.committed() || !m_transferActive)
        return;
    failover::AttemptOutcome outcome;
    outcome.transportError = upstream::UpstreamErrorKind::FirstByteTimeout;
    attemptFailed(outcome, QStringLiteral("no first chunk within %1 s").arg(m_workspace->config().settings.firstChunkTimeoutS));
}

void ChatExchange::onRequestDeadline()
{
    if (m_finished)
        return;
    const QString reason = QStringLiteral("the request ran longer than the gateway's limit of %1 s (settings.max_request_s)")
                               .arg(m_workspace->config().settings.maxRequestS);
    if (m_relay.committed())
        return interruptStream(reason);
    if (m_current && m_transferActive) {
        addTrace(QStringLiteral("error"), attemptLatencyMs(), reason);
        m_report.abandoned(*m_current);
    }
    stopTransfer();
    replyError({504, reason, "request_timeout", {}, 0});
}

void ChatExchange::attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason)
{
    m_firstChunkTimer.stop();
    stopTransfer();
    addTrace(QStringLiteral("error"), attemptLatencyMs(), redacted(reason));

    failover::AttemptFacts facts;
    facts.outcome = outcome;
    facts.stream = m_request.stream;
    facts.chainLength = int(m_request.chain.size());
    facts.retriedAlready = m_retriedCurrent;
    facts.attemptsMade = m_upstreamAttempts;
    facts.maxAttempts = m_workspace->config().settings.maxAttempts;
    facts.hasCredential = m_current->credential >= 0;
    const failover::AfterFailure after = failover::decideAfterFailure(facts);
    m_report.failed(*m_current, timingNow(), after, m_retryAfter);

    switch (after.next) {
    case failover::NextStep::ReturnToClient:
        return keepClientError(true);
    case failover::NextStep::KeepAndContinue:
        keepClientError(false);
        break;
    case failover::NextStep::RetrySame: {
        m_clientErrorStatus = 0;  // SPEC §4: a client 4xx is returned only if it was the last error
        m_retriedCurrent = true;
        const PlannedAttempt *same = m_current;
        QTimer::singleShot(m_workspace->config().settings.retryPauseMs, this, [this, same] {
            if (m_finished)
                return;
            if (!m_sink->isOpen())
                return onClientGone();
            ++m_upstreamAttempts;
            sendAttempt(*same);
        });
        return;
    }
    case failover::NextStep::NextCandidate:
        m_clientErrorStatus = 0;
        break;
    }
    // Never start the next transfer from inside the failed one's callback.
    QMetaObject::invokeMethod(this, &ChatExchange::tryNext, Qt::QueuedConnection);
}

void ChatExchange::onClientGone()
{
    if (m_finished)
        return;
    if (m_transferActive)
        m_report.abandoned(*m_current);
    done(499, QStringLiteral("client closed the connection"));  // nginx's "client closed request"
}

void ChatExchange::done(int status, const QString &errorMessage)
{
    if (m_finished)
        return;
    m_finished = true;
    m_firstChunkTimer.stop();
    m_deadlineTimer.stop();
    m_sink->onClientGone(nullptr);
    m_sink->onDrained(nullptr);
    stopTransfer();
    if (m_capacity)
        m_capacity->cancel();
    m_slot.reset();
    m_money.release();   // nothing was answered, or settleAnswered() booked it already
    m_ticket.permit.release();

    RequestRecord &record = m_context.record;
    if (m_capacity)
        record.queueMs += m_capacity->queued().count();
    const auto now = m_clock.now();
    record.status = status;
    record.errorMessage = errorMessage;
    record.chain = m_request.chain;
    record.stream = m_request.stream;
    if (status < 400 && m_current) {
        record.answeringModel = m_current->modelId;
        record.answeringChannel = m_current->channel->id;
    }
    if (m_firstAttemptAt)
        record.upstreamMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - *m_firstAttemptAt).count();
    record.totalMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_context.arrivedAt).count();
    if (m_usage.known && status < 400) {
        record.promptTokens = m_usage.promptTokensTotal();
        record.completionTokens = m_usage.outputTokens;
    }
    record.attempts = m_trace;
    record.orderNotes = m_plan.selection.notes;
    for (const routing::FilteredChannel &f : m_plan.selection.filtered)
        record.filtered.push_back({f.channelId, f.modelId, f.reason});
    for (const routing::Candidate &c : m_plan.selection.ordered)
        record.orderedChannels.append(c.modelId + QLatin1Char('@') + c.channel->id);
    if (m_capture)
        record.content = std::make_shared<const RequestContent>(m_capture->content());
    emit finished(record);
    deleteLater();
}

} // namespace sy::service
