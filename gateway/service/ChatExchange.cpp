#include "service/ChatExchange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimerEvent>

namespace sy::service {

namespace {

constexpr qsizetype kMaxUpstreamBody = 64 * 1024 * 1024;
constexpr std::chrono::milliseconds kDefaultRetryAfter{5'000};

// The upstream's own error message, if its body is an error object of any of the three formats.
QString upstreamMessage(const QByteArray &body)
{
    const QJsonObject obj = QJsonDocument::fromJson(body).object();
    const QJsonValue error = obj.value("error");
    QString message = error.isObject() ? error.toObject().value("message").toString() : error.toString();
    if (message.isEmpty())
        message = QString::fromUtf8(body.left(200)).simplified();
    return message.left(200);
}

} // namespace

ChatExchange::ChatExchange(ExchangeContext context, WorkspacePtr workspace, ChatRequest request, AdmissionTicket ticket,
                           std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                           GatewayState &routing, const Clock &clock, QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_workspace(std::move(workspace))
    , m_request(std::move(request))
    , m_sink(std::move(sink))
    , m_ticket(std::move(ticket))
    , m_upstream(upstream)
    , m_state(routing)
    , m_clock(clock)
{
}

void ChatExchange::timerEvent(QTimerEvent *event)
{
    // Both timers are single-shot: stopped before their handler runs.
    if (event->timerId() == m_firstChunkTimer.timerId()) {
        m_firstChunkTimer.stop();
        onFirstChunkTimeout();
    } else if (event->timerId() == m_capacityTimer.timerId()) {
        m_capacityTimer.stop();
        onCapacityTimeout();
    } else {
        QObject::timerEvent(event);
    }
}

ChatExchange::~ChatExchange()
{
    stopTransfer();
    leaveCapacityQueue();
    // Destroyed without done() (the gateway shutting down): nothing was charged.
    if (m_ticket.reservation)
        m_state.ledger.release(std::exchange(m_ticket.reservation, 0));
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
    tryNext();
}

metrics::ChannelModel ChatExchange::metricsKey() const
{
    return {m_current->channel->id, m_current->modelId};
}

void ChatExchange::addTrace(const QString &status, std::optional<qint64> latencyMs, const QString &error)
{
    m_trace.add({m_workspace->channelLabel(*m_current->channel), m_current->modelId, status, latencyMs, error});
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
        if (maxAttempts > 0 && m_upstreamAttempts >= maxAttempts)
            break;
        const PlannedAttempt &attempt = m_plan.attempts[i];
        m_current = &attempt;
        m_retriedCurrent = false;
        switch (attempt.kind) {
        case PlannedAttempt::Kind::SimulatedFail:
            // SPEC §7: marked failed without contacting the upstream, without charge or health effect.
            m_used[i] = true;
            addTrace(QStringLiteral("simulated_fail"), std::nullopt, QStringLiteral("X-Simulate-Fail"));
            continue;
        case PlannedAttempt::Kind::RateLimitedSkip: {
            m_used[i] = true;
            const auto wait = std::chrono::duration_cast<std::chrono::seconds>(attempt.rateLimitedUntil - m_clock.now());
            addTrace(QStringLiteral("skipped"), std::nullopt,
                     QStringLiteral("credential %1 rate limited by the upstream for %2 s more")
                         .arg(attempt.credential + 1).arg(std::max<qint64>(1, wait.count())));
            continue;
        }
        case PlannedAttempt::Kind::CredentialUnavailable:
            m_used[i] = true;
            addTrace(QStringLiteral("skipped"), std::nullopt,
                     QStringLiteral("credential %1 is not available: the OS keychain did not return it "
                                    "(locked, or the entry was removed); enter it again in the channel")
                         .arg(attempt.credential + 1));
            continue;
        case PlannedAttempt::Kind::Upstream:
            if (refusedForMoney(attempt)) {
                m_used[i] = true;
                addTrace(QStringLiteral("insufficient_balance"), std::nullopt,
                         QStringLiteral("the balance is used up: a free model's paid fallback cannot run"));
                continue;
            }
            if (!startWithCapacity(i))
                queueForCapacity(attempt.modelId);
            return;
        }
    }
    replyAllFailed();
}

bool ChatExchange::refusedForMoney(const PlannedAttempt &attempt) const
{
    // A free primary reserves nothing at admission; if its chain reaches a paid model after the
    // balance has run out meanwhile, that attempt is refused for money (SPEC §6 status).
    const billing::Ledger &ledger = m_state.ledger;
    if (!ledger.isMetered() || m_ticket.reservation == 0)
        return false;
    const config::Model *primary = m_workspace->findModel(m_request.chain.value(0));
    const config::Model *model = m_workspace->findModel(attempt.modelId);
    if (!primary || !primary->free || (model && model->free))
        return false;
    return ledger.balance() - ledger.reservedInFlight() <= 0;
}

QByteArray ChatExchange::upstreamBody(const PlannedAttempt &attempt) const
{
    return upstreamRequestBody(m_request, attempt.served->upstream.isEmpty() ? attempt.modelId : attempt.served->upstream);
}

void ChatExchange::sendAttempt(const PlannedAttempt &attempt)
{
    const config::Channel &channel = *attempt.channel;
    m_current = &attempt;
    m_status = 0;
    m_contentType.clear();
    m_retryAfter.clear();
    m_body.clear();
    m_sse = {};
    m_heldEvents.clear();
    m_usage = {};
    m_firstByteAt.reset();
    if (m_capture)
        m_capture->resetAnswer();  // what a failed attempt held back never reached the client

    upstream::UpstreamRequest request;
    request.url = (channel.baseUrl + QStringLiteral("/chat/completions")).toUtf8();
    request.headers = {{"content-type", "application/json"},
                       {"accept", m_request.stream ? "text/event-stream" : "application/json"}};
    if (attempt.credential >= 0)
        request.headers.emplaceBack("authorization", "Bearer " + channel.credentials[attempt.credential].toUtf8());
    request.body = upstreamBody(attempt);
    request.connectTimeout = channel.timeouts.connect;
    request.firstByteTimeout = channel.timeouts.firstByte;
    request.idleTimeout = channel.timeouts.idle;

    const std::optional<failover::Outage> outage = m_state.outages.match(channel.id, attempt.modelId);
    m_attemptStart = m_clock.now();
    if (!m_firstAttemptAt)
        m_firstAttemptAt = m_attemptStart;
    m_state.metrics.recordStart(metricsKey());
    m_transfer = m_upstream.send(std::move(request), this, outage);
    m_transferActive = true;
    if (m_request.stream)
        m_firstChunkTimer.start(m_workspace->config().settings.firstChunkTimeoutS * 1000, Qt::PreciseTimer, this);
}

qint64 ChatExchange::attemptLatencyMs() const
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - m_attemptStart).count();
}

void ChatExchange::stopTransfer()
{
    if (!m_transferActive)
        return;
    m_transferActive = false;
    m_upstream.cancel(m_transfer);
}

void ChatExchange::onHeaders(int status, const http::HeaderList &headers)
{
    m_status = status;
    m_firstByteAt = m_clock.now();
    m_contentType = http::headerValue(headers, "content-type");
    m_retryAfter = http::headerValue(headers, "retry-after");
}

void ChatExchange::onChunk(const QByteArray &bytes)
{
    const bool success = m_status >= 200 && m_status < 300;
    if (!m_request.stream || !success) {
        m_body += bytes;
        if (m_body.size() > kMaxUpstreamBody) {
            failover::AttemptOutcome outcome;
            outcome.transportError = upstream::UpstreamErrorKind::Protocol;
            attemptFailed(outcome, QStringLiteral("upstream response larger than %1 bytes").arg(kMaxUpstreamBody));
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
}

void ChatExchange::handleStreamEvent(const api::SseEvent &event)
{
    if (event.data == "[DONE]")
        return;  // the gateway writes its own [DONE] when the upstream body ends cleanly
    StreamChunk chunk = rewriteStreamChunk(event.data, m_current->modelId, m_request.clientWantsUsage);
    if (chunk.malformed || chunk.isError) {
        const QString reason = chunk.malformed ? QStringLiteral("upstream sent a malformed stream event")
                                               : QStringLiteral("upstream stream error: %1").arg(upstreamMessage(event.data));
        if (m_committed)
            return interruptStream(reason);
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, reason);
    }
    if (chunk.usage)
        m_usage = *chunk.usage;
    if (chunk.data.isEmpty())
        return;
    if (m_capture)
        m_capture->addStreamChunk(chunk.data);
    QByteArray out;
    out.reserve(chunk.data.size() + 8);
    out += "data: ";
    out += chunk.data;
    out += "\n\n";
    if (m_committed) {
        m_sink->write(out);
        return;
    }
    m_heldEvents.push_back(std::move(out));
    if (chunk.hasChoices)
        commitStream();
}

http::HeaderList ChatExchange::traceHeaders() const
{
    http::HeaderList headers{
        {"x-request-id", m_context.requestId},
        {"X-TsarRouter-Provider", m_workspace->channelLabel(*m_current->channel).toUtf8()},
        {"X-TsarRouter-Model", m_current->modelId.toUtf8()},
        {"X-TsarRouter-Attempts", m_trace.toHeaderValue()},
    };
    if (m_queued.count() > 0)
        headers.emplaceBack("x-lovely-queued-ms", QByteArray::number(qint64(m_queued.count())));
    if (const config::Model *model = m_workspace->findModel(m_current->modelId); model && model->deprecated) {
        headers.emplaceBack("X-Model-Deprecated", "true");
        headers.emplaceBack("Sunset", model->deprecated->toString(Qt::ISODate).toLatin1());
    }
    return headers;
}

void ChatExchange::commitStream()
{
    m_firstChunkTimer.stop();
    m_committed = true;
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", "text/event-stream");
    headers.emplaceBack("Cache-Control", "no-cache");
    m_sink->begin(200, headers);
    QByteArray held;
    for (const QByteArray &event : m_heldEvents)
        held += event;
    m_heldEvents.clear();
    m_sink->write(held);
}

void ChatExchange::interruptStream(const QString &reason)
{
    stopTransfer();
    // Pinned after the first chunk: no failover, but the channel's health hears about it.
    m_state.metrics.recordFinish(metricsKey(), {false, std::nullopt, std::chrono::milliseconds(attemptLatencyMs()), std::nullopt});
    m_state.health.recordFailure(m_current->channel->id, m_current->modelId);
    ChannelTotals &totals = m_state.totals[m_current->channel->id];
    ++totals.attempts;
    ++totals.errors;
    const QJsonObject error{{"error", QJsonObject{{"code", "stream_interrupted"}, {"message", reason}}}};
    m_sink->write("data: " + QJsonDocument(error).toJson(QJsonDocument::Compact) + "\n\n");
    m_sink->finish();
    done(200);
}

void ChatExchange::recordSuccess()
{
    const auto total = std::chrono::milliseconds(attemptLatencyMs());
    std::optional<std::chrono::milliseconds> ttft;
    if (m_firstByteAt)
        ttft = std::chrono::duration_cast<std::chrono::milliseconds>(*m_firstByteAt - m_attemptStart);
    std::optional<double> tokensPerSecond;
    const auto generation = total - ttft.value_or(std::chrono::milliseconds(0));
    if (m_usage.known && m_usage.completionTokens > 0 && generation.count() > 0)
        tokensPerSecond = double(m_usage.completionTokens) * 1000.0 / double(generation.count());
    m_state.metrics.recordFinish(metricsKey(), {true, ttft, total, tokensPerSecond});
    ChannelTotals &totals = m_state.totals[m_current->channel->id];
    ++totals.attempts;
    totals.completionTokens += quint64(std::max<qint64>(0, m_usage.completionTokens));
    // Streams are judged by their time to first token; their length depends on the answer.
    m_state.health.recordSuccess(m_current->channel->id, m_current->modelId,
                                   m_request.stream && ttft ? *ttft : total);
    if (m_current->credential >= 0)
        m_state.credentials.markSucceeded(m_current->channel->id, m_current->credential);
    if (!m_context.conversation.isEmpty() && m_current->modelId == m_request.chain.first())
        m_state.sticky.remember(m_context.conversation, m_current->channel->id);
}

void ChatExchange::onComplete()
{
    m_transferActive = false;
    if (m_request.stream && m_committed) {
        // A clean end of the upstream body is a complete answer even without its [DONE].
        recordSuccess();
        m_sink->write(QByteArrayLiteral("data: [DONE]\n\n"));
        m_sink->finish();
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

    const QString reason = QStringLiteral("HTTP %1: %2").arg(m_status).arg(upstreamMessage(m_body));
    if (failover::decide(outcome) != failover::Decision::ReturnToClient)
        return attemptFailed(outcome, reason);

    // The request itself is wrong: not the channel's fault, so no health or metrics penalty.
    m_firstChunkTimer.stop();
    m_state.metrics.recordAbandoned(metricsKey());
    addTrace(QStringLiteral("error"), attemptLatencyMs(), reason);
    if (m_request.chain.size() == 1) {
        http::HeaderList headers = traceHeaders();
        headers.emplaceBack("Content-Type", m_contentType.isEmpty() ? QByteArray("application/json") : m_contentType);
        m_sink->respond(m_status, headers, m_body);
        return done(m_status);
    }
    // A chain goes on (seed 000: a client 4xx does not stop the enumeration); the answer is
    // kept in case it turns out to be the last word.
    m_clientErrorStatus = m_status;
    m_clientErrorBody = m_body;
    m_clientErrorType = m_contentType;
    QMetaObject::invokeMethod(this, &ChatExchange::tryNext, Qt::QueuedConnection);
}

void ChatExchange::answerPlain()
{
    PlainAnswer answer = rewritePlainAnswer(m_body, m_current->modelId);
    if (!answer.problem.isEmpty()) {
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, answer.problem);
    }
    m_usage = answer.usage;
    if (m_capture)
        m_capture->setPlainAnswer(answer.body);
    recordSuccess();
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack("Content-Type", "application/json");
    m_sink->respond(200, headers, answer.body);
    done(200);
}

void ChatExchange::onError(const upstream::UpstreamError &error)
{
    m_transferActive = false;
    const QString reason = QStringLiteral("%1: %2").arg(QString::fromLatin1(upstream::errorKindName(error.kind)), error.message);
    if (m_committed)
        return interruptStream(QStringLiteral("upstream connection failed mid-stream (%1)").arg(reason));
    failover::AttemptOutcome outcome;
    outcome.transportError = error.kind;
    attemptFailed(outcome, reason);
}

void ChatExchange::onFirstChunkTimeout()
{
    if (m_committed || !m_transferActive)
        return;
    failover::AttemptOutcome outcome;
    outcome.transportError = upstream::UpstreamErrorKind::FirstByteTimeout;
    attemptFailed(outcome, QStringLiteral("no first chunk within %1 s").arg(m_workspace->config().settings.firstChunkTimeoutS));
}

void ChatExchange::attemptFailed(const failover::AttemptOutcome &outcome, const QString &reason)
{
    m_firstChunkTimer.stop();
    stopTransfer();
    const qint64 latency = attemptLatencyMs();
    addTrace(QStringLiteral("error"), latency, reason);
    m_clientErrorStatus = 0;  // SPEC §4: a client 4xx is returned only if it was the last error

    const QString &channelId = m_current->channel->id;
    m_state.metrics.recordFinish(metricsKey(), {false, std::nullopt, std::chrono::milliseconds(latency), std::nullopt});
    ChannelTotals &totals = m_state.totals[channelId];
    ++totals.attempts;
    ++totals.errors;
    m_state.health.recordFailure(channelId, m_current->modelId);
    if (m_current->credential >= 0 && outcome.httpStatus == 429 && !outcome.transportError) {
        m_state.credentials.markRateLimited(channelId, m_current->credential,
            limits::CredentialStates::parseRetryAfter(m_retryAfter, kDefaultRetryAfter, m_clock.wallNow()));
    } else if (m_current->credential >= 0 && failover::blamesCredential(outcome)) {
        m_state.credentials.markDemoted(channelId, m_current->credential);
    }

    // Plain single-model requests give a transiently failing channel one more chance (SPEC §4);
    // a rate-limited credential is not retried: its retry-after says when.
    const int maxAttempts = m_workspace->config().settings.maxAttempts;
    const bool retrySame = !m_request.stream && m_request.chain.size() == 1 && !m_retriedCurrent
        && failover::isTransient(outcome) && outcome.httpStatus != 429
        && (maxAttempts <= 0 || m_upstreamAttempts < maxAttempts);
    if (retrySame) {
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
    // Never start the next transfer from inside the failed one's callback.
    QMetaObject::invokeMethod(this, &ChatExchange::tryNext, Qt::QueuedConnection);
}

void ChatExchange::replyAllFailed()
{
    if (m_clientErrorStatus) {
        m_sink->respond(m_clientErrorStatus,
                        {{"Content-Type", m_clientErrorType.isEmpty() ? QByteArray("application/json") : m_clientErrorType},
                         {"x-request-id", m_context.requestId}},
                        m_clientErrorBody);
        return done(m_clientErrorStatus);
    }
    // SPEC §3.6: nothing was tried because every credential is rate limited upstream.
    if (m_upstreamAttempts == 0) {
        std::optional<Clock::TimePoint> earliest;
        bool onlyRateLimited = !m_plan.attempts.empty();
        for (const PlannedAttempt &attempt : m_plan.attempts) {
            if (attempt.kind != PlannedAttempt::Kind::RateLimitedSkip) {
                onlyRateLimited = false;
                break;
            }
            earliest = earliest ? std::min(*earliest, attempt.rateLimitedUntil) : attempt.rateLimitedUntil;
        }
        if (onlyRateLimited) {
            const auto wait = std::chrono::duration_cast<std::chrono::seconds>(*earliest - m_clock.now()).count() + 1;
            ErrorReply reply{429, QStringLiteral("all upstream credentials for this model are rate limited"),
                             "upstream_rate_limited", {}, int(std::max<qint64>(1, wait))};
            reply.metadata.insert("attempts", m_trace.toJson());
            sendErrorReply(*m_sink, m_context.requestId, reply);
            return done(429, reply.message);
        }
    }
    const QString message = m_request.chain.size() == 1
        ? QStringLiteral("All providers failed for model %1").arg(m_request.chain.first())
        : QStringLiteral("All providers failed for model chain [%1]").arg(m_request.chain.join(", "));
    ErrorReply reply{502, message, "all_providers_failed"};
    reply.metadata.insert("attempts", m_trace.toJson());
    if (!m_plan.selection.filtered.empty()) {
        // Why channels were never tried: a `provider` filter that excludes everything is a common cause.
        QJsonArray filtered;
        for (const routing::FilteredChannel &f : m_plan.selection.filtered)
            filtered.append(QJsonObject{{"channel", f.channelId}, {"model", f.modelId}, {"reason", f.reason}});
        reply.metadata.insert("filtered", filtered);
    }
    sendErrorReply(*m_sink, m_context.requestId, reply);
    done(502, message);
}

void ChatExchange::onClientGone()
{
    if (m_finished)
        return;
    if (m_transferActive)
        m_state.metrics.recordAbandoned(metricsKey());
    done(499, QStringLiteral("client closed the connection"));  // nginx's "client closed request"
}

void ChatExchange::done(int status, const QString &errorMessage)
{
    if (m_finished)
        return;
    m_finished = true;
    m_firstChunkTimer.stop();
    m_sink->onClientGone(nullptr);
    stopTransfer();
    leaveCapacityQueue();
    m_slot.reset();
    settleMoney(status);
    m_ticket.permit.release();

    RequestRecord &record = m_context.record;
    record.queueMs += m_queued.count();
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
        record.promptTokens = m_usage.promptTokens;
        record.completionTokens = m_usage.completionTokens;
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
