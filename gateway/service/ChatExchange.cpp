#include "service/ChatExchange.h"

#include "api/openai/OpenAiErrors.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::service {

namespace {

constexpr qsizetype kMaxUpstreamBody = 64 * 1024 * 1024;

QString channelLabel(const Workspace &ws, const config::Channel &channel)
{
    int sameProvider = 0;
    for (const config::Channel &c : ws.config().channels)
        sameProvider += c.provider == channel.provider ? 1 : 0;
    return sameProvider > 1 ? channel.id : channel.provider;
}

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

ChatExchange::ChatExchange(QByteArray requestId, WorkspacePtr workspace, ChatRequest request,
                           std::shared_ptr<http::ResponseSink> sink, upstream::UpstreamClient &upstream,
                           const Clock &clock, QObject *parent)
    : QObject(parent)
    , m_requestId(std::move(requestId))
    , m_workspace(std::move(workspace))
    , m_request(std::move(request))
    , m_sink(std::move(sink))
    , m_upstream(upstream)
    , m_clock(clock)
{
    m_firstChunkTimer.setSingleShot(true);
    connect(&m_firstChunkTimer, &QTimer::timeout, this, &ChatExchange::onFirstChunkTimeout);
}

ChatExchange::~ChatExchange()
{
    if (m_transferActive)
        m_upstream.cancel(m_transfer);
}

std::vector<ChatCandidate> ChatExchange::buildCandidates(const Workspace &ws, const QStringList &chain)
{
    std::vector<ChatCandidate> out;
    for (const QString &model : chain) {
        for (const ChannelRoute &route : ws.routesFor(model)) {
            const int credentials = int(route.channel->credentials.size());
            if (credentials == 0)
                out.push_back({route, model, -1});
            for (int i = 0; i < credentials; ++i)
                out.push_back({route, model, i});
        }
    }
    return out;
}

void ChatExchange::start()
{
    m_candidates = buildCandidates(*m_workspace, m_request.chain);
    m_sink->onClientGone([this] { onClientGone(); });
    tryNext();
}

void ChatExchange::tryNext()
{
    if (m_finished)
        return;
    if (!m_sink->isOpen())
        return onClientGone();
    const int maxAttempts = m_workspace->config().settings.maxAttempts;
    if (m_next >= m_candidates.size() || (maxAttempts > 0 && m_trace.count() >= maxAttempts))
        return replyAllFailed();
    m_retriedCurrent = false;
    sendAttempt(m_candidates[m_next++]);
}

QByteArray ChatExchange::upstreamBody(const ChatCandidate &candidate) const
{
    QJsonObject body = m_request.body;
    body.insert("model", candidate.route.model->upstream.isEmpty() ? candidate.modelId
                                                                   : candidate.route.model->upstream);
    // Routing fields are the gateway's own; an upstream must not see them.
    body.remove("models");
    body.remove("provider");
    if (m_request.stream) {
        QJsonObject options = body.value("stream_options").toObject();
        options.insert("include_usage", true);  // the gateway bills from the final usage chunk
        body.insert("stream_options", options);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

void ChatExchange::sendAttempt(const ChatCandidate &candidate)
{
    const config::Channel &channel = *candidate.route.channel;
    m_current = &candidate;
    m_status = 0;
    m_contentType.clear();
    m_body.clear();
    m_sse = {};
    m_heldEvents.clear();
    m_sawDone = false;
    m_usage = {};

    upstream::UpstreamRequest request;
    request.url = (channel.baseUrl + QStringLiteral("/chat/completions")).toUtf8();
    request.headers = {{"content-type", "application/json"},
                       {"accept", m_request.stream ? "text/event-stream" : "application/json"}};
    if (candidate.credentialIndex >= 0)
        request.headers.emplaceBack("authorization", "Bearer " + channel.credentials[candidate.credentialIndex].toUtf8());
    request.body = upstreamBody(candidate);
    request.connectTimeout = channel.timeouts.connect;
    request.firstByteTimeout = channel.timeouts.firstByte;
    request.idleTimeout = channel.timeouts.idle;

    m_attemptStart = m_clock.now();
    m_transfer = m_upstream.send(std::move(request), this);
    m_transferActive = true;
    if (m_request.stream)
        m_firstChunkTimer.start(std::chrono::seconds(m_workspace->config().settings.firstChunkTimeoutS));
}

qint64 ChatExchange::attemptLatencyMs() const
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - m_attemptStart).count();
}

void ChatExchange::onHeaders(int status, const http::HeaderList &headers)
{
    m_status = status;
    m_contentType = http::headerValue(headers, "content-type");
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
    if (event.data == "[DONE]") {
        m_sawDone = true;
        return;
    }
    QJsonParseError parseError;
    QJsonObject chunk = QJsonDocument::fromJson(event.data, &parseError).object();
    const bool malformed = parseError.error != QJsonParseError::NoError || chunk.isEmpty();
    if (malformed || chunk.contains("error")) {
        const QString reason = malformed ? QStringLiteral("upstream sent a malformed stream event")
                                         : QStringLiteral("upstream stream error: %1").arg(upstreamMessage(event.data));
        if (m_committed)
            return interruptStream(reason);
        failover::AttemptOutcome outcome;
        outcome.httpStatus = m_status;
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, reason);
    }
    const QJsonObject usage = chunk.value("usage").toObject();
    if (!usage.isEmpty()) {
        m_usage = {qint64(usage.value("prompt_tokens").toDouble()),
                   qint64(usage.value("completion_tokens").toDouble()), true};
    }
    const bool hasChoices = !chunk.value("choices").toArray().isEmpty();
    if (!hasChoices && !usage.isEmpty() && !m_request.clientWantsUsage)
        return;  // usage was requested for billing, not by the client
    if (!usage.isEmpty() && !m_request.clientWantsUsage)
        chunk.remove("usage");
    chunk.insert("model", m_current->modelId);
    QByteArray out = "data: " + QJsonDocument(chunk).toJson(QJsonDocument::Compact) + "\n\n";
    if (m_committed) {
        m_sink->write(out);
        return;
    }
    m_heldEvents.push_back(std::move(out));
    if (hasChoices)
        commitStream();
}

http::HeaderList ChatExchange::traceHeaders(const ChatCandidate &candidate) const
{
    http::HeaderList headers{
        {"x-request-id", m_requestId},
        {"X-TsarRouter-Provider", channelLabel(*m_workspace, *candidate.route.channel).toUtf8()},
        {"X-TsarRouter-Model", candidate.modelId.toUtf8()},
        {"X-TsarRouter-Attempts", m_trace.toHeaderValue()},
    };
    if (const config::Model *model = m_workspace->findModel(candidate.modelId); model && model->deprecated) {
        headers.emplaceBack("X-Model-Deprecated", "true");
        headers.emplaceBack("Sunset", model->deprecated->toString(Qt::ISODate).toLatin1());
    }
    return headers;
}

void ChatExchange::commitStream()
{
    m_firstChunkTimer.stop();
    m_committed = true;
    m_trace.add({channelLabel(*m_workspace, *m_current->route.channel), m_current->modelId,
                 QStringLiteral("ok"), attemptLatencyMs(), {}});
    http::HeaderList headers = traceHeaders(*m_current);
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
    if (m_transferActive) {
        m_transferActive = false;
        m_upstream.cancel(m_transfer);
    }
    const QJsonObject error{{"error", QJsonObject{{"code", "stream_interrupted"}, {"message", reason}}}};
    m_sink->write("data: " + QJsonDocument(error).toJson(QJsonDocument::Compact) + "\n\n");
    m_sink->finish();
    done(200);
}

void ChatExchange::onComplete()
{
    m_transferActive = false;
    if (m_request.stream && m_committed) {
        // A clean end of the upstream body is a complete answer even without its [DONE].
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
    if (failover::decide(outcome) == failover::Decision::ReturnToClient) {
        m_firstChunkTimer.stop();
        m_trace.add({channelLabel(*m_workspace, *m_current->route.channel), m_current->modelId,
                     QStringLiteral("error"), attemptLatencyMs(), reason});
        if (m_request.chain.size() == 1) {
            http::HeaderList headers = traceHeaders(*m_current);
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
        return;
    }
    attemptFailed(outcome, reason);
}

void ChatExchange::answerPlain()
{
    QJsonParseError parseError;
    QJsonObject answer = QJsonDocument::fromJson(m_body, &parseError).object();
    failover::AttemptOutcome outcome;
    outcome.httpStatus = m_status;
    if (parseError.error != QJsonParseError::NoError || answer.isEmpty()) {
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, QStringLiteral("upstream returned a body that is not a JSON object"));
    }
    if (answer.value("choices").toArray().isEmpty()) {
        outcome.emptyOrMalformed = true;
        return attemptFailed(outcome, QStringLiteral("upstream returned no choices"));
    }
    const QJsonObject usage = answer.value("usage").toObject();
    if (!usage.isEmpty())
        m_usage = {qint64(usage.value("prompt_tokens").toDouble()), qint64(usage.value("completion_tokens").toDouble()), true};
    answer.insert("model", m_current->modelId);
    m_trace.add({channelLabel(*m_workspace, *m_current->route.channel), m_current->modelId,
                 QStringLiteral("ok"), attemptLatencyMs(), {}});
    http::HeaderList headers = traceHeaders(*m_current);
    headers.emplaceBack("Content-Type", "application/json");
    m_sink->respond(200, headers, QJsonDocument(answer).toJson(QJsonDocument::Compact));
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
    if (m_transferActive) {
        m_transferActive = false;
        m_upstream.cancel(m_transfer);
    }
    m_trace.add({channelLabel(*m_workspace, *m_current->route.channel), m_current->modelId,
                 QStringLiteral("error"), attemptLatencyMs(), reason});
    m_clientErrorStatus = 0;  // SPEC §4: a client 4xx is returned only if it was the last error
    // Plain single-model requests give a transiently failing channel one more chance (SPEC §4).
    const bool retrySame = !m_request.stream && m_request.chain.size() == 1 && !m_retriedCurrent
        && failover::isTransient(outcome);
    if (retrySame) {
        m_retriedCurrent = true;
        const ChatCandidate *same = m_current;
        QTimer::singleShot(m_workspace->config().settings.retryPauseMs, this, [this, same] {
            if (m_finished)
                return;
            if (!m_sink->isOpen())
                return onClientGone();
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
                        {{"Content-Type", m_clientErrorType.isEmpty() ? "application/json" : m_clientErrorType},
                         {"x-request-id", m_requestId}},
                        m_clientErrorBody);
        return done(m_clientErrorStatus);
    }
    const QString message = m_request.chain.size() == 1
        ? QStringLiteral("All providers failed for model %1").arg(m_request.chain.first())
        : QStringLiteral("All providers failed for model chain [%1]").arg(m_request.chain.join(", "));
    ErrorReply reply{502, message, "all_providers_failed"};
    reply.metadata.insert("attempts", m_trace.toJson());
    sendErrorReply(*m_sink, m_requestId, reply);
    done(502);
}

void ChatExchange::onClientGone()
{
    if (m_finished)
        return;
    done(499);  // nginx's "client closed request"; only for the log and metrics
}

void ChatExchange::done(int status)
{
    if (m_finished)
        return;
    m_finished = true;
    m_firstChunkTimer.stop();
    m_sink->onClientGone(nullptr);
    if (m_transferActive) {
        m_transferActive = false;
        m_upstream.cancel(m_transfer);
    }
    emit finished(status, m_trace);
    deleteLater();
}

} // namespace sy::service
