#include "service/EmbeddingsExchange.h"

#include "core/SecretRedaction.h"
#include "service/AttemptReplies.h"
#include "service/ErrorReply.h"

#include <QTimer>
#include <QTimerEvent>

namespace sy::service {

EmbeddingsExchange::EmbeddingsExchange(ExchangeContext context, WorkspacePtr workspace, EmbeddingsCall call,
                                       AdmissionTicket ticket, std::shared_ptr<http::ResponseSink> sink,
                                       OutageInjector &upstream, GatewayState &state, const Clock &clock, QObject *parent)
    : QObject(parent)
    , AttemptTransfer(upstream, clock)
    , m_context(std::move(context))
    , m_workspace(std::move(workspace))
    , m_call(std::move(call))
    , m_sink(std::move(sink))
    , m_ticket(std::move(ticket))
    , m_state(state)
    , m_report(state, clock)
    , m_money(state.ledger, std::exchange(m_ticket.reservation, 0))
{
}

EmbeddingsExchange::~EmbeddingsExchange()
{
    // Destroyed without done() (the gateway shutting down): m_money releases the reservation.
    stopTransfer();
}

void EmbeddingsExchange::timerEvent(QTimerEvent *event)
{
    if (event->timerId() != m_deadlineTimer.timerId())
        return QObject::timerEvent(event);
    m_deadlineTimer.stop();
    if (m_finished)
        return;
    const QString reason = QStringLiteral("the request ran longer than the gateway's limit of %1 s (settings.max_request_s)")
                               .arg(m_workspace->config().settings.maxRequestS);
    if (m_current && m_transferActive) {
        addTrace(QStringLiteral("error"), attemptLatencyMs(), reason);
        m_report.abandoned(*m_current);
    }
    stopTransfer();
    replyError({504, reason, "request_timeout", {}, 0});
}

void EmbeddingsExchange::start()
{
    m_plan = planAttempts(*m_workspace, selectionFor(m_call), m_state, m_context.simulateFail);
    m_used.assign(m_plan.attempts.size(), false);
    skipIncapableChannels();
    m_sink->onClientGone([this] { onClientGone(); });
    m_deadlineTimer.start(m_workspace->config().settings.maxRequestS * 1000, Qt::CoarseTimer, this);
    tryNext();
}

void EmbeddingsExchange::skipIncapableChannels()
{
    // Passed over before anything is tried, so a capacity wait never queues at them either; one
    // trace entry per channel (not per credential).
    QSet<QString> traced;
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &attempt = m_plan.attempts[i];
        const QString &format = attempt.channel->format;
        const std::optional<api::Format> channelFormat = api::channelFormatFromName(format);
        const api::embeddings::EmbeddingsDialect *dialect = channelFormat ? api::embeddings::embeddingsDialect(*channelFormat) : nullptr;
        const QString reason = dialect ? dialect->cannotServe(m_call.request)
                                       : QStringLiteral("%1 channels serve no embeddings").arg(format);
        if (reason.isEmpty())
            continue;
        m_used[i] = true;
        if (!traced.contains(attempt.channel->id)) {
            traced.insert(attempt.channel->id);
            m_trace.add({m_workspace->channelLabel(*attempt.channel), attempt.modelId, QStringLiteral("skipped"), std::nullopt, reason});
        }
    }
}

void EmbeddingsExchange::addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error)
{
    m_trace.add({m_workspace->channelLabel(*m_current->channel), m_current->modelId, status, latencyMs, error});
}

QString EmbeddingsExchange::redacted(const QString &text) const
{
    return redactSecrets(text, m_current ? m_current->channel->credentials : QStringList());
}

std::chrono::milliseconds EmbeddingsExchange::queued() const
{
    return m_capacity ? m_capacity->queued() : std::chrono::milliseconds(0);
}

void EmbeddingsExchange::tryNext()
{
    if (m_finished)
        return;
    if (!m_sink->isOpen())
        return onClientGone();
    m_slot.reset();   // the previous attempt's channel slot
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
        if (!startWithCapacity(i))
            queueForCapacity(attempt.modelId);
        return;
    }
    replyError(allFailedReply({m_call.model}, m_plan, m_trace, m_upstreamAttempts, m_clock.now()));
}

bool EmbeddingsExchange::startWithCapacity(size_t index)
{
    std::optional<TakenSlot> taken = takeChannelWithRoom(m_plan, m_used, index, m_state.capacity);
    if (!taken)
        return false;
    m_used[taken->index] = true;
    m_slot = std::move(taken->slot);
    ++m_upstreamAttempts;
    sendAttempt(m_plan.attempts[taken->index]);
    return true;
}

void EmbeddingsExchange::queueForCapacity(const QString &modelId)
{
    if (!m_capacity)
        m_capacity = std::make_unique<CapacityWait>(m_state.capacity, m_clock);
    m_capacity->wait(channelsToWaitAt(m_plan, m_used, modelId), std::chrono::seconds(m_workspace->config().settings.capacityWaitS),
                     [this](limits::CapacityQueue::Slot slot) { onCapacityGranted(std::move(slot)); },
                     [this] {
                         if (m_finished)
                             return;
                         ++m_state.refusals["capacity_busy"];
                         replyError({429, QStringLiteral("All upstream capacity for this model is busy. Retry shortly."),
                                     "capacity_busy", {}, 2});
                     });
}

void EmbeddingsExchange::onCapacityGranted(limits::CapacityQueue::Slot slot)
{
    if (m_finished) {
        slot.release();
        return;
    }
    if (const std::optional<size_t> i = attemptOnChannel(m_plan, m_used, slot.channelId())) {
        m_used[*i] = true;
        m_retriedCurrent = false;
        m_slot.emplace(std::move(slot));
        ++m_upstreamAttempts;
        sendAttempt(m_plan.attempts[*i]);
        return;
    }
    slot.release();
    tryNext();
}

void EmbeddingsExchange::sendAttempt(const PlannedAttempt &attempt)
{
    const config::Channel &channel = *attempt.channel;
    m_current = &attempt;
    beginAttempt();
    // skipIncapableChannels() left only channels whose format has a dialect.
    m_dialect = api::embeddings::embeddingsDialect(*api::channelFormatFromName(channel.format));

    const QString credential = attempt.credential >= 0 ? channel.credentials[attempt.credential] : QString();
    const QString upstreamModel = attempt.served->upstream.isEmpty() ? attempt.modelId : attempt.served->upstream;
    api::WireRequest wire = m_dialect->request(m_call.request, upstreamModel, credential);
    const std::optional<failover::Outage> outage = m_state.outages.match(channel.id, attempt.modelId);
    m_report.started(attempt);
    sendToChannel(channel, credential, std::move(wire), outage);
}

void EmbeddingsExchange::onChunk(const QByteArray &bytes)
{
    if (const std::optional<QString> tooLarge = appendBody(bytes)) {
        failover::AttemptOutcome outcome;
        outcome.transportError = upstream::UpstreamErrorKind::Protocol;
        attemptFailed(outcome, *tooLarge);
    }
}

void EmbeddingsExchange::onComplete()
{
    m_transferActive = false;
    if (m_status >= 200 && m_status < 300)
        return answer();
    failover::AttemptOutcome outcome;
    outcome.httpStatus = m_status;
    attemptFailed(outcome, QStringLiteral("HTTP %1: %2").arg(m_status).arg(upstreamErrorMessage(m_body)));
}

void EmbeddingsExchange::onError(const upstream::UpstreamError &error)
{
    m_transferActive = false;
    failover::AttemptOutcome outcome;
    outcome.transportError = error.kind;
    attemptFailed(outcome, transportFailure(error));
}

void EmbeddingsExchange::answer()
{
    api::embeddings::EmbeddingsAnswer answer = m_dialect->answer(m_body, m_call.request, m_current->modelId);
    if (!answer.problem.isEmpty()) {
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, answer.problem);
    }
    m_promptTokens = answer.promptTokens;
    api::TokenUsage usage;
    usage.known = true;
    usage.inputTokens = answer.promptTokens;
    m_report.succeeded(*m_current, timingNow(), usage, false, {}, true);
    // Booked before the answer leaves, as on the chat routes: prompt tokens at the serving
    // channel's prompt price (there is no completion side).
    const config::Model *model = m_workspace->findModel(m_call.model);
    if (const auto charged = m_money.settle(m_context.requestId, *m_current, usage, model && model->free))
        m_context.record.costNanos = *charged;
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = answerHeaders(*m_workspace, m_context.requestId, *m_current, m_trace, queued());
    headers.emplaceBack("Content-Type", "application/json");
    m_sink->respond(200, headers, answer.body);
    done(200);
}

void EmbeddingsExchange::attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason)
{
    stopTransfer();
    addTrace(QStringLiteral("error"), attemptLatencyMs(), redacted(reason));

    failover::AttemptFacts facts;
    facts.outcome = outcome;
    facts.stream = false;
    facts.chainLength = 1;
    facts.retriedAlready = m_retriedCurrent;
    facts.attemptsMade = m_upstreamAttempts;
    facts.maxAttempts = m_workspace->config().settings.maxAttempts;
    facts.hasCredential = m_current->credential >= 0;
    const failover::AfterFailure after = failover::decideAfterFailure(facts);
    m_report.failed(*m_current, timingNow(), after, m_retryAfter);

    switch (after.next) {
    case failover::NextStep::ReturnToClient:
    case failover::NextStep::KeepAndContinue:   // only with a chain; embeddings have one model
        return returnUpstreamError();
    case failover::NextStep::RetrySame: {
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
        break;
    }
    // Never start the next transfer from inside the failed one's callback.
    QMetaObject::invokeMethod(this, &EmbeddingsExchange::tryNext, Qt::QueuedConnection);
}

void EmbeddingsExchange::returnUpstreamError()
{
    // The upstream's answer to a wrong request (SPEC §4): as it came from an OpenAI-format
    // channel, else its message in OpenAI's error shape. Secrets redacted either way.
    const bool sameFormat = api::channelFormatFromName(m_current->channel->format) == api::Format::OpenAiChat;
    QByteArray body;
    QByteArray contentType = "application/json";
    if (sameFormat) {
        body = redactSecrets(m_body, m_current->channel->credentials);
        if (!m_contentType.isEmpty())
            contentType = m_contentType;
    } else {
        body = errorBodyIn(api::Format::OpenAiChat, {m_status, redacted(upstreamErrorMessage(m_body)), "upstream_error"});
    }
    http::HeaderList headers = answerHeaders(*m_workspace, m_context.requestId, *m_current, m_trace, queued());
    headers.emplaceBack("Content-Type", contentType);
    m_sink->respond(m_status, headers, body);
    done(m_status);
}

void EmbeddingsExchange::replyError(const ErrorReply &reply)
{
    sendErrorReply(*m_sink, m_context.requestId, reply, api::Format::OpenAiChat);
    done(reply.status, reply.message);
}

void EmbeddingsExchange::onClientGone()
{
    if (m_finished)
        return;
    if (m_transferActive)
        m_report.abandoned(*m_current);
    done(499, QStringLiteral("client closed the connection"));
}

void EmbeddingsExchange::done(int status, const QString &errorMessage)
{
    if (m_finished)
        return;
    m_finished = true;
    m_deadlineTimer.stop();
    m_sink->onClientGone(nullptr);
    stopTransfer();
    if (m_capacity)
        m_capacity->cancel();
    m_slot.reset();
    m_money.release();   // nothing was answered, or answer() settled already
    m_ticket.permit.release();

    RequestRecord &record = m_context.record;
    record.queueMs += queued().count();
    const auto now = m_clock.now();
    record.status = status;
    record.errorMessage = errorMessage;
    record.chain = QStringList{m_call.model};
    if (status < 400 && m_current) {
        record.answeringModel = m_current->modelId;
        record.answeringChannel = m_current->channel->id;
        record.promptTokens = m_promptTokens;
    }
    if (m_firstAttemptAt)
        record.upstreamMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - *m_firstAttemptAt).count();
    record.totalMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_context.arrivedAt).count();
    record.attempts = m_trace;
    record.orderNotes = m_plan.selection.notes;
    for (const routing::FilteredChannel &f : m_plan.selection.filtered)
        record.filtered.push_back({f.channelId, f.modelId, f.reason});
    for (const routing::Candidate &c : m_plan.selection.ordered)
        record.orderedChannels.append(c.modelId + QLatin1Char('@') + c.channel->id);
    emit finished(record);
    deleteLater();
}

} // namespace sy::service
