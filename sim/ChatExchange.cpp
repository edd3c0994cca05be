#include "ChatExchange.h"

#include <QPointer>
#include <cmath>

namespace sy::sim {

using http::HeaderList;

namespace {

const HeaderList &jsonHeaders()
{
    static const HeaderList headers{{"content-type", "application/json"}};
    return headers;
}

HeaderList streamHeaders(const WireFormat &format, const ChatReply &reply)
{
    return {{"content-type", format.streamContentType(reply)}, {"cache-control", "no-cache"}};
}

// Starts a stream: the headers and what the format says before any content.
void beginStream(const WireFormat &format, const ChatReply &reply, http::ResponseSink &sink)
{
    sink.begin(200, streamHeaders(format, reply));
    sink.write(format.streamStart(reply));
}

HeaderList statusHeaders(const ChatPlan &plan)
{
    HeaderList headers = jsonHeaders();
    if (plan.failure.status == 429)
        headers.append({"retry-after", QByteArray::number(plan.retryAfterSeconds)});
    return headers;
}

QString statusMessage(const ChatPlan &plan)
{
    const int status = plan.failure.status;
    if (status == 404)
        return QStringLiteral("The model `%1` does not exist or you do not have access to it.").arg(plan.reply.model);
    if (status == 429)
        return QStringLiteral("Rate limit reached for %1 (simulated).").arg(plan.reply.model);
    if (status == 529)
        return QStringLiteral("Overloaded (simulated) for model %1.").arg(plan.reply.model);
    return QStringLiteral("Simulated upstream error %1 for model %2.").arg(status).arg(plan.reply.model);
}

} // namespace

bool ChatExchange::tryAnswerAtOnce(const ChatPlan &plan, const WireFormat &format, http::ResponseSink &sink)
{
    switch (plan.failure.kind) {
    case FailureKind::None:
        if (plan.stream)
            return false;
        sink.respond(200, jsonHeaders(), format.completionBody(plan.reply));
        return true;
    case FailureKind::Status:
        sink.respond(plan.failure.status, statusHeaders(plan), format.errorBody(plan.failure.status, statusMessage(plan)));
        return true;
    case FailureKind::ErrorMidStream:
        // A plain request has no stream to interrupt: it gets the status as an error answer.
        if (plan.stream)
            return false;
        sink.respond(plan.failure.status, statusHeaders(plan), format.errorBody(plan.failure.status, statusMessage(plan)));
        return true;
    case FailureKind::Reset:
        sink.abort();
        return true;
    case FailureKind::Empty200:
        if (plan.stream) {
            beginStream(format, plan.reply, sink);
            sink.write(format.streamEmpty(plan.reply));
            sink.finish();
        } else {
            sink.respond(200, jsonHeaders(), format.emptyCompletionBody(plan.reply));
        }
        return true;
    case FailureKind::MalformedSse:
        // A stream ends cleanly after the bad event (no [DONE]); a plain answer is a 200 whose
        // body is not JSON. Cut connections are drop_mid_stream's job.
        if (plan.stream) {
            beginStream(format, plan.reply, sink);
            sink.write(format.malformedEvent(plan.reply));
            sink.finish();
        } else {
            sink.respond(200, jsonHeaders(), QByteArrayLiteral("{not json"));
        }
        return true;
    case FailureKind::DropMidStream:
        if (plan.stream)
            return false;
        {
            const QByteArray body = format.completionBody(plan.reply);
            sink.begin(200, jsonHeaders());
            sink.write(body.left(body.size() / 2));
            sink.abort();
        }
        return true;
    case FailureKind::Hang:
        return false;
    }
    return false;
}

void ChatExchange::start(ChatPlan plan, const WireFormat &format, std::shared_ptr<http::ResponseSink> sink,
                         SimStats &stats, QObject *parent)
{
    if (plan.latency.count() <= 0 && tryAnswerAtOnce(plan, format, *sink))
        return;
    auto *exchange = new ChatExchange(std::move(plan), format, std::move(sink), stats, parent);
    exchange->after(exchange->m_plan.latency, &ChatExchange::sendHeaders);
}

ChatExchange::ChatExchange(ChatPlan plan, const WireFormat &format, std::shared_ptr<http::ResponseSink> sink,
                           SimStats &stats, QObject *parent)
    : QObject(parent), m_plan(std::move(plan)), m_format(format), m_sink(std::move(sink)), m_stats(stats)
{
    m_stats.recordInFlightStart();
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] { (this->*m_next)(); });
    m_sink->onClientGone([self = QPointer<ChatExchange>(this)] {
        if (self)
            self->end();
    });
}

ChatExchange::~ChatExchange()
{
    if (!m_ended)
        m_stats.recordInFlightEnd();
}

void ChatExchange::after(std::chrono::milliseconds delay, void (ChatExchange::*step)())
{
    if (delay.count() <= 0) {
        (this->*step)();
        return;
    }
    m_next = step;
    m_timer.start(delay);
}

void ChatExchange::sendHeaders()
{
    if (!m_sink->isOpen()) {
        end();
        return;
    }
    if (tryAnswerAtOnce(m_plan, m_format, *m_sink)) {
        end();
        return;
    }
    if (m_plan.failure.kind == FailureKind::Hang)
        return;  // until the client gives up
    const qsizetype words = qsizetype(m_plan.reply.words.size());
    const bool cut = m_plan.failure.kind == FailureKind::DropMidStream
                  || m_plan.failure.kind == FailureKind::ErrorMidStream;
    m_chunkLimit = cut ? qMin<qsizetype>(m_plan.dropAfterChunks, words) : words;
    beginStream(m_format, m_plan.reply, *m_sink);
    after(m_plan.timeToFirstToken, &ChatExchange::startContent);
}

void ChatExchange::startContent()
{
    m_contentClock.start();
    sendDueContent();
}

void ChatExchange::sendDueContent()
{
    if (!m_sink->isOpen()) {
        end();
        return;
    }
    qsizetype due = m_chunkLimit;
    const double perSecond = m_plan.tokensPerSecond;
    if (perSecond > 0) {
        // Chunk i is due i / perSecond seconds after the first; a late timer catches up.
        const double elapsedMs = double(m_contentClock.nsecsElapsed()) / 1e6;
        due = qMin(m_chunkLimit, qsizetype(std::floor(elapsedMs * perSecond / 1000.0)) + 1);
    }
    QByteArray out;
    for (; m_chunksSent < due; ++m_chunksSent)
        out.append(m_format.streamContent(m_plan.reply, m_chunksSent));
    if (m_chunksSent == m_chunkLimit) {
        if (m_plan.failure.kind == FailureKind::None)
            out.append(m_format.streamEnd(m_plan.reply));
        else if (m_plan.failure.kind == FailureKind::ErrorMidStream)
            out.append(m_format.streamError(m_plan.reply, m_chunksSent, m_plan.failure.status, statusMessage(m_plan)));
        m_sink->write(out);
        completeStream();
        return;
    }
    m_sink->write(out);
    const double nextDueMs = double(m_chunksSent) * 1000.0 / perSecond;
    const double waitMs = nextDueMs - double(m_contentClock.nsecsElapsed()) / 1e6;
    m_next = &ChatExchange::sendDueContent;
    m_timer.start(std::chrono::milliseconds(qMax<qint64>(0, qint64(std::ceil(waitMs)))));
}

void ChatExchange::completeStream()
{
    if (m_plan.failure.kind == FailureKind::DropMidStream)
        m_sink->abort();
    else
        m_sink->finish();
    end();
}

void ChatExchange::end()
{
    if (m_ended)
        return;
    m_ended = true;
    m_timer.stop();
    m_stats.recordInFlightEnd();
    deleteLater();
}

} // namespace sy::sim
