#include "service/ChatExchange.h"

#include <QTimerEvent>

namespace sy::service {

ChatExchange::ChatExchange(ExchangeContext context, WorkspacePtr workspace, ChatRequest request, AdmissionTicket ticket,
                           std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                           GatewayState &state, const Clock &clock, QObject *parent)
    : AttemptLoop(std::move(context), std::move(workspace), {request.chain, request.stream, request.format},
                  std::move(ticket), std::move(sink), upstream, state, clock, parent)
    , m_chat(std::move(request))
    , m_client(m_chat.clientRequest())
    , m_relay(m_sink)
{
}

void ChatExchange::timerEvent(QTimerEvent *event)
{
    if (event->timerId() != m_firstChunkTimer.timerId())
        return AttemptLoop::timerEvent(event);
    m_firstChunkTimer.stop();   // single-shot
    onFirstChunkTimeout();
}

void ChatExchange::start()
{
    const QString sticky = m_state.sticky.channelFor(m_context.conversation);
    setPlan(planAttempts(*m_workspace, m_chat, m_state, m_context.simulateFail, sticky));
    if (m_workspace->config().settings.logMessageContent) {
        m_capture = std::make_unique<ContentCapture>();
        m_capture->setRequest(m_chat.body.value(QLatin1String("messages")));
    }
    for (const auto &[model, reason] : std::as_const(m_chat.incapableFallbacks))
        m_trace.add({QString(), model, QStringLiteral("skipped"), std::nullopt, reason});
    run();
}

void ChatExchange::sendAttempt(const PlannedAttempt &attempt)
{
    const config::Channel &channel = *attempt.channel;
    m_sse = api::SseParser(m_workspace->config().settings.maxStreamEventBytes);
    m_paused = false;
    m_relay.resetHeld();
    if (m_capture)
        m_capture->resetAnswer();  // what a failed attempt held back never reached the client

    const api::Format format = api::channelFormatFromName(channel.format).value_or(api::Format::OpenAiChat);
    api::WriterOptions options;
    options.publicModel = attempt.modelId;
    options.requestId = m_context.requestId;
    options.includeUsage = m_chat.clientWantsUsage;
    options.captureText = m_capture != nullptr;
    options.jsonArrayStream = m_chat.jsonArrayStream;
    options.onAnswer = m_chat.onAnswer;
    m_translator = api::makeTranslator(m_client, format, options);
    if (!m_translator) {
        // The configuration loader refuses formats the gateway cannot serve; this is the guard.
        failover::AttemptOutcome outcome;
        outcome.transportError = upstream::UpstreamErrorKind::Other;
        m_report.started(attempt);
        return attemptFailed(outcome, QStringLiteral("the gateway cannot translate this request to the channel's '%1' format")
                                          .arg(channel.format));
    }

    const QString credential = credentialOf(attempt);
    sendWire(attempt, credential, m_translator->request(upstreamModelOf(attempt), credential));
    if (m_chat.stream)
        m_firstChunkTimer.start(m_workspace->config().settings.firstChunkTimeoutS * 1000, Qt::PreciseTimer, this);
}

void ChatExchange::onChunk(const QByteArray &bytes)
{
    const bool success = m_status >= 200 && m_status < 300;
    if (!m_chat.stream || !success)
        return AttemptLoop::onChunk(bytes);
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
        answerUnusable(reason);
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
        return answerUnusable(reason);
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

void ChatExchange::commitStream()
{
    m_firstChunkTimer.stop();
    addTrace(QStringLiteral("ok"), attemptLatencyMs(), {});
    http::HeaderList headers = traceHeaders();
    headers.emplaceBack(QByteArrayLiteral("Content-Type"), m_chat.jsonArrayStream ? QByteArrayLiteral("application/json")
                                                                                   : QByteArrayLiteral("text/event-stream"));
    headers.emplaceBack(QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache"));
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

void ChatExchange::onComplete()
{
    if (!m_chat.stream)
        return AttemptLoop::onComplete();
    m_transferActive = false;
    if (m_relay.committed()) {
        // A clean end of the upstream body is a complete answer even without its end marker.
        succeeded();
        return afterCharge([this] {
            m_relay.end(m_translator->endOfStream());
            done(200);
        });
    }
    if (m_status >= 200 && m_status < 300)
        return answerUnusable(QStringLiteral("upstream stream ended without content"));
    AttemptLoop::onComplete();   // an error status
}

void ChatExchange::answerBody()
{
    api::TranslatedAnswer translated = m_translator->answer(m_body);
    if (!translated.problem.isEmpty())
        return answerUnusable(translated.problem);
    m_usage = translated.usage;
    if (m_capture)
        m_capture->setAnswerText(translated.text);
    answer(translated.contentType, translated.body);
}

void ChatExchange::onError(const upstream::UpstreamError &error)
{
    if (!m_relay.committed())
        return AttemptLoop::onError(error);
    m_transferActive = false;
    interruptStream(QStringLiteral("upstream connection failed mid-stream (%1)").arg(transportFailure(error)));
}

void ChatExchange::onFirstChunkTimeout()
{
    if (m_relay.committed() || !m_transferActive)
        return;
    failover::AttemptOutcome outcome;
    outcome.transportError = upstream::UpstreamErrorKind::FirstByteTimeout;
    attemptFailed(outcome, QStringLiteral("no first chunk within %1 s").arg(m_workspace->config().settings.firstChunkTimeoutS));
}

void ChatExchange::onRequestDeadline(const QString &reason)
{
    if (m_relay.committed())
        return interruptStream(reason);
    AttemptLoop::onRequestDeadline(reason);
}

void ChatExchange::attemptOver()
{
    m_firstChunkTimer.stop();
}

void ChatExchange::addToRecord(RequestRecord &record) const
{
    if (m_capture)
        record.content = std::make_shared<const RequestContent>(m_capture->content());
}

} // namespace sy::service
