#include "service/AttemptLoop.h"

#include "core/SecretRedaction.h"
#include "service/AttemptReplies.h"

#include <QPointer>
#include <QTimer>
#include <QTimerEvent>

namespace sy::service {

AttemptLoop::AttemptLoop(ExchangeContext &&context, WorkspacePtr &&workspace, LoopRequest &&request, AdmissionTicket &&ticket,
                         std::shared_ptr<http::ResponseSink> &&sink, OutageInjector &upstream, GatewayState &state,
                         const Clock &clock, QObject *parent)
    : QObject(parent)
    , AttemptTransfer(upstream, clock)
    , m_context(std::move(context))
    , m_workspace(std::move(workspace))
    , m_request(std::move(request))
    , m_sink(std::move(sink))
    , m_state(state)
    , m_report(state, clock)
    , m_ticket(std::move(ticket))
    , m_money(state.ledger, std::exchange(m_ticket.reservation, 0))
{
}

AttemptLoop::~AttemptLoop()
{
    // A cancelled transfer calls no handler, so the exchange's own parts (gone by now) are not reached.
    stopTransfer();
}

void AttemptLoop::setPlan(AttemptPlan plan)
{
    m_plan = std::move(plan);
    m_used.assign(m_plan.attempts.size(), false);
}

void AttemptLoop::run()
{
    m_sink->onClientGone([this] { onClientGone(); });
    m_deadlineTimer.start(m_workspace->config().settings.maxRequestS * 1000, Qt::CoarseTimer, this);
    tryNext();
}

void AttemptLoop::timerEvent(QTimerEvent *event)
{
    if (event->timerId() != m_deadlineTimer.timerId())
        return QObject::timerEvent(event);
    m_deadlineTimer.stop();   // single-shot
    if (m_finished)
        return;
    onRequestDeadline(QStringLiteral("the request ran longer than the gateway's limit of %1 s (settings.max_request_s)")
                          .arg(m_workspace->config().settings.maxRequestS));
}

void AttemptLoop::onRequestDeadline(const QString &reason)
{
    if (m_current && m_transferActive) {
        addTrace(QStringLiteral("error"), attemptLatencyMs(), reason);
        m_report.abandoned(*m_current);
    }
    stopTransfer();
    replyError({504, reason, "request_timeout", {}, 0});
}

void AttemptLoop::addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error)
{
    m_trace.add({m_workspace->channelLabel(*m_current->channel), m_current->modelId, status, latencyMs, error});
}

QString AttemptLoop::redacted(const QString &text) const
{
    return redactSecrets(text, m_current ? m_current->channel->credentials : QStringList());
}

http::HeaderList AttemptLoop::traceHeaders() const
{
    return answerHeaders(*m_workspace, m_context.requestId, *m_current, m_trace,
                         m_capacity ? m_capacity->queued() : std::chrono::milliseconds(0));
}

void AttemptLoop::tryNext()
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

bool AttemptLoop::startWithCapacity(size_t index)
{
    // The chosen channel first; when it is full, any other channel of the same model with room.
    std::optional<TakenSlot> taken = takeChannelWithRoom(m_plan, m_used, index, m_state.capacity);
    if (!taken)
        return false;
    m_used[taken->index] = true;
    m_slot = std::move(taken->slot);
    startAttempt(m_plan.attempts[taken->index]);
    return true;
}

void AttemptLoop::queueForCapacity(const QString &modelId)
{
    if (!m_capacity)
        m_capacity = std::make_unique<CapacityWait>(m_state.capacity, m_clock);
    m_capacity->wait(channelsToWaitAt(m_plan, m_used, modelId), std::chrono::seconds(m_workspace->config().settings.capacityWaitS),
                     [this](limits::CapacityQueue::Slot slot) { onCapacityGranted(std::move(slot)); },
                     [this] { onCapacityTimeout(); });
}

void AttemptLoop::onCapacityGranted(limits::CapacityQueue::Slot slot)
{
    if (m_finished) {
        slot.release();
        return;
    }
    if (const std::optional<size_t> i = attemptOnChannel(m_plan, m_used, slot.channelId())) {
        m_used[*i] = true;
        m_retriedCurrent = false;
        m_slot.emplace(std::move(slot));
        startAttempt(m_plan.attempts[*i]);
        return;
    }
    slot.release();
    tryNext();
}

void AttemptLoop::onCapacityTimeout()
{
    if (m_finished)
        return;
    ++m_state.refusals["capacity_busy"];
    replyError({429, QStringLiteral("All upstream capacity for this model is busy. Retry shortly."), "capacity_busy", {}, 2});
}

void AttemptLoop::startAttempt(const PlannedAttempt &attempt)
{
    ++m_upstreamAttempts;
    m_current = &attempt;
    m_usage = {};
    beginAttempt();
    sendAttempt(attempt);
}

QString AttemptLoop::credentialOf(const PlannedAttempt &attempt)
{
    return attempt.credential >= 0 ? attempt.channel->credentials[attempt.credential] : QString();
}

QString AttemptLoop::upstreamModelOf(const PlannedAttempt &attempt)
{
    return attempt.served->upstream.isEmpty() ? attempt.modelId : attempt.served->upstream;
}

void AttemptLoop::sendWire(const PlannedAttempt &attempt, const QString &credential, api::WireRequest wire)
{
    const std::optional<failover::Outage> outage = m_state.outages.match(attempt.channel->id, attempt.modelId);
    m_report.started(attempt);
    sendToChannel(*attempt.channel, credential, std::move(wire), outage, m_request.stream);
}

void AttemptLoop::onChunk(const QByteArray &bytes)
{
    if (const std::optional<QString> tooLarge = appendBody(bytes)) {
        failover::AttemptOutcome outcome;
        outcome.transportError = upstream::UpstreamErrorKind::Protocol;
        attemptFailed(outcome, *tooLarge);
    }
}

void AttemptLoop::onComplete()
{
    m_transferActive = false;
    if (m_status >= 200 && m_status < 300)
        return answerBody();
    failover::AttemptOutcome outcome;
    outcome.httpStatus = m_status;
    attemptFailed(outcome, QStringLiteral("HTTP %1: %2").arg(m_status).arg(upstreamErrorMessage(m_body)));
}

void AttemptLoop::onError(const upstream::UpstreamError &error)
{
    m_transferActive = false;
    failover::AttemptOutcome outcome;
    outcome.transportError = error.kind;
    attemptFailed(outcome, transportFailure(error));
}

void AttemptLoop::answerUnusable(const QString &reason)
{
    failover::AttemptOutcome outcome;
    outcome.httpStatus = m_status;
    outcome.emptyOrMalformed = true;
    attemptFailed(outcome, reason);
}

void AttemptLoop::attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason)
{
    attemptOver();
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
            startAttempt(*same);
        });
        return;
    }
    case failover::NextStep::NextCandidate:
        m_clientErrorStatus = 0;
        break;
    }
    // Never start the next transfer from inside the failed one's callback.
    QMetaObject::invokeMethod(this, &AttemptLoop::tryNext, Qt::QueuedConnection);
}

void AttemptLoop::succeeded()
{
    m_report.succeeded(*m_current, timingNow(), m_usage, m_request.stream, m_context.conversation,
                       m_current->modelId == m_request.chain.constFirst());
    settleAnswered();
}

void AttemptLoop::settleAnswered()
{
    // Booked here; the answer's last byte leaves only once the booking is durable (afterCharge):
    // a client that saw a complete answer was charged for it.
    const config::Model *primary = m_workspace->findModel(m_request.chain.value(0));
    if (const auto charged = m_money.settle(m_context.requestId, *m_current, m_usage, primary && primary->free))
        m_context.record.costNanos = *charged;
}

void AttemptLoop::answer(const QByteArray &contentType, const QByteArray &body)
{
    succeeded();
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack(QByteArrayLiteral("Content-Type"), contentType);
    afterCharge([this, headers = std::move(headers), body] {
        m_sink->respond(200, headers, body);
        done(200);
    });
}

void AttemptLoop::afterCharge(std::function<void()> deliver)
{
    // The journal answers on this thread, later: the loop may have ended meanwhile (the client
    // went away, the deadline passed), and then there is nothing left to deliver.
    m_money.afterCharge([self = QPointer<AttemptLoop>(this), deliver = std::move(deliver)] {
        if (self && !self->m_finished)
            deliver();
    });
}

void AttemptLoop::replyError(const ErrorReply &reply)
{
    sendErrorReply(*m_sink, m_context.requestId, reply, m_request.clientFormat);
    done(reply.status, reply.message);
}

void AttemptLoop::keepClientError(bool returnNow)
{
    // The upstream's own answer to a wrong request, in the client's format: as it came when both
    // speak the same format, else its message in the client's error shape. Secrets redacted.
    const QStringList secrets = m_current->channel->credentials;
    const bool sameFormat = api::channelFormatFromName(m_current->channel->format) == m_request.clientFormat;
    m_clientErrorStatus = m_status;
    if (sameFormat) {
        m_clientErrorBody = redactSecrets(m_body, secrets);
        m_clientErrorType = m_contentType.isEmpty() ? QByteArray("application/json") : m_contentType;
    } else {
        m_clientErrorBody = errorBodyIn(m_request.clientFormat, {m_status, redacted(upstreamErrorMessage(m_body)), "upstream_error"});
        m_clientErrorType = "application/json";
    }
    if (!returnNow)
        return;
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", m_clientErrorType);
    m_sink->respond(m_clientErrorStatus, headers, m_clientErrorBody);
    done(m_clientErrorStatus);
}

void AttemptLoop::replyAllFailed()
{
    if (m_clientErrorStatus) {
        m_sink->respond(m_clientErrorStatus, {{"Content-Type", m_clientErrorType}, {"x-request-id", m_context.requestId}},
                        m_clientErrorBody);
        return done(m_clientErrorStatus);
    }
    replyError(allFailedReply(m_request.chain, m_plan, m_trace, m_upstreamAttempts, m_clock.now()));
}

void AttemptLoop::onClientGone()
{
    if (m_finished)
        return;
    if (m_transferActive)
        m_report.abandoned(*m_current);
    done(499, QStringLiteral("client closed the connection"));  // nginx's "client closed request"
}

void AttemptLoop::done(int status, const QString &errorMessage)
{
    if (m_finished)
        return;
    m_finished = true;
    attemptOver();
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
    addToRecord(record);
    emit finished(record);
    deleteLater();
}

} // namespace sy::service
