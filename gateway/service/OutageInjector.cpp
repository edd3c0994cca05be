#include "service/OutageInjector.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace sy::service {

using failover::OutageKind;

// One transfer under an outage. Either wholly simulated (error, timeout, hang) or a real transfer
// it fronts (slow: started late; drop mid-stream: cut after the first chunk).
class OutageInjector::Injected : public upstream::StreamHandler {
public:
    Injected(OutageInjector &owner, upstream::TransferId id, upstream::StreamHandler *handler)
        : m_owner(owner), m_id(id), m_handler(handler)
    {
        m_timer.setSingleShot(true);
    }
    ~Injected() override { stop(); }

    void startError(int status)
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this, status] {
            const QByteArray body = QJsonDocument(QJsonObject{{"error", QJsonObject{
                {"message", QStringLiteral("Simulated outage (failure lab): HTTP %1").arg(status)},
                {"type", status == 429 ? "rate_limit_exceeded" : "api_error"}}}}).toJson(QJsonDocument::Compact);
            http::HeaderList headers{{"content-type", "application/json"}};
            if (status == 429)
                headers.emplaceBack("retry-after", "1");
            auto *handler = m_handler;
            const auto id = m_id;
            handler->onHeaders(status, headers);
            if (!m_owner.m_injected.contains(id))
                return;  // cancelled from inside onHeaders
            handler->onChunk(body);
            if (!m_owner.m_injected.contains(id))
                return;
            m_owner.forget(id);
            handler->onComplete();
        });
        m_timer.start(5);  // an upstream's own error comes back quickly
    }

    void startSilence(std::chrono::milliseconds after, QString message)
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this, message] {
            auto *handler = m_handler;
            m_owner.forget(m_id);
            handler->onError({upstream::UpstreamErrorKind::FirstByteTimeout, message});
        });
        m_timer.start(after);
    }

    void startLate(upstream::UpstreamRequest request, std::chrono::milliseconds delay)
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this, request = std::move(request)]() mutable {
            startReal(std::move(request));
        });
        m_timer.start(delay);
    }

    void startReal(upstream::UpstreamRequest request, bool dropAfterFirstChunk = false)
    {
        m_drop = dropAfterFirstChunk;
        m_real = m_owner.m_real.send(std::move(request), this);
        m_realActive = true;
    }

    void stop()
    {
        m_timer.stop();
        if (m_realActive) {
            m_realActive = false;
            m_owner.m_real.cancel(m_real);
        }
    }

    // The real transfer's callbacks, passed on (and cut, for drop mid-stream).
    void onHeaders(int status, const http::HeaderList &headers) override { m_handler->onHeaders(status, headers); }
    void onChunk(const QByteArray &bytes) override
    {
        auto *handler = m_handler;
        const auto id = m_id;
        handler->onChunk(bytes);
        if (!m_drop || !m_owner.m_injected.contains(id))
            return;
        stop();
        m_owner.forget(id);
        handler->onError({upstream::UpstreamErrorKind::Reset, QStringLiteral("connection dropped mid-stream (failure lab)")});
    }
    void onComplete() override
    {
        m_realActive = false;
        auto *handler = m_handler;
        m_owner.forget(m_id);
        handler->onComplete();
    }
    void onError(const upstream::UpstreamError &error) override
    {
        m_realActive = false;
        auto *handler = m_handler;
        m_owner.forget(m_id);
        handler->onError(error);
    }

private:
    OutageInjector &m_owner;
    upstream::TransferId m_id;
    upstream::StreamHandler *m_handler;
    QTimer m_timer;
    upstream::TransferId m_real = 0;
    bool m_realActive = false;
    bool m_drop = false;
};

OutageInjector::OutageInjector(upstream::UpstreamClient &real, QObject *parent)
    : QObject(parent)
    , m_real(real)
{
}

OutageInjector::~OutageInjector() = default;

upstream::TransferId OutageInjector::send(upstream::UpstreamRequest request, upstream::StreamHandler *handler,
                                          const std::optional<failover::Outage> &outage)
{
    if (!outage)
        return m_real.send(std::move(request), handler);
    const upstream::TransferId id = m_nextId++;
    auto injected = std::make_shared<Injected>(*this, id, handler);
    m_injected.insert(id, injected);
    switch (outage->kind) {
    case OutageKind::HttpError:
        injected->startError(outage->status);
        break;
    case OutageKind::Timeout:
        injected->startSilence(request.firstByteTimeout, QStringLiteral("no response within %1 ms (failure lab: timeout)")
                                                             .arg(request.firstByteTimeout.count()));
        break;
    case OutageKind::Hang:
        injected->startSilence(request.firstByteTimeout, QStringLiteral("connection hung (failure lab)"));
        break;
    case OutageKind::DropMidStream:
        injected->startReal(std::move(request), true);
        break;
    case OutageKind::Slow:
        injected->startLate(std::move(request), outage->extraLatency);
        break;
    }
    return id;
}

void OutageInjector::cancel(upstream::TransferId id)
{
    if (const auto it = m_injected.find(id); it != m_injected.end()) {
        (*it)->stop();
        forget(id);
        return;
    }
    m_real.cancel(id);
}

void OutageInjector::pause(upstream::TransferId id)
{
    if (!m_injected.contains(id))
        m_real.pause(id);
}

void OutageInjector::resume(upstream::TransferId id)
{
    if (!m_injected.contains(id))
        m_real.resume(id);
}

void OutageInjector::forget(upstream::TransferId id)
{
    // Destroyed later: forget() runs inside the injected transfer's own callbacks.
    if (auto injected = m_injected.take(id))
        QMetaObject::invokeMethod(this, [injected] {}, Qt::QueuedConnection);
}

} // namespace sy::service
