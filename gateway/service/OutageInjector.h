#pragma once
// OutageInjector: sends upstream requests through the failure lab. Without an outage a request
// goes straight to the real UpstreamClient; with one, the injector plays the upstream's part —
// an error status without contacting it, silence until the channel's timeout, the real answer
// cut after its first chunk, or the real answer late — and calls the handler exactly as a real
// transfer would (same callbacks, same order, never synchronously from send()). So failover,
// health, metrics and the dashboard react to a lab outage as they would to a real one.
//
// Thread: the gateway thread; same contract as UpstreamClient for send/cancel.
#include "failover/OutagePlan.h"
#include "upstream/UpstreamClient.h"

#include <QHash>
#include <QObject>
#include <memory>
#include <optional>

namespace sy::service {

class OutageInjector : public QObject {
    Q_OBJECT
public:
    explicit OutageInjector(upstream::UpstreamClient &real, QObject *parent = nullptr);
    ~OutageInjector() override;

    upstream::TransferId send(upstream::UpstreamRequest request, upstream::StreamHandler *handler,
                              const std::optional<failover::Outage> &outage);
    void cancel(upstream::TransferId id);
    // Backpressure (UpstreamClient::pause/resume). Lab transfers are not paused: they are short
    // or scripted, and their bytes are bounded by the real answer they replay.
    void pause(upstream::TransferId id);
    void resume(upstream::TransferId id);

private:
    class Injected;
    void forget(upstream::TransferId id);

    upstream::UpstreamClient &m_real;
    // Ids handed out for injected transfers never collide with the real client's.
    upstream::TransferId m_nextId = upstream::TransferId(1) << 62;
    QHash<upstream::TransferId, std::shared_ptr<Injected>> m_injected;
};

} // namespace sy::service
