#include "service/ChannelProbes.h"

#include "service/GatewayService.h"
#include "service/OnboardingRequests.h"
#include "service/UpstreamFetch.h"

#include <QSet>
#include <chrono>

namespace sy::service {

ChannelProbes::ChannelProbes(GatewayService &gateway, QObject *parent)
    : QObject(parent), m_gateway(gateway)
{
    connect(&gateway, &GatewayService::configApplied, this, &ChannelProbes::rearm);
    rearm();
}

ChannelProbes::~ChannelProbes() = default;

void ChannelProbes::rearm()
{
    QSet<QString> wanted;
    for (const config::Channel &channel : m_gateway.workspace()->config().channels) {
        if (channel.probeIntervalS <= 0 || !channel.enabled || channel.models.empty())
            continue;
        wanted.insert(channel.id);
        const int intervalMs = channel.probeIntervalS * 1000;
        std::shared_ptr<QTimer> &timer = m_timers[channel.id];
        if (timer && timer->interval() == intervalMs)
            continue;
        timer = std::make_shared<QTimer>();
        timer->setInterval(intervalMs);
        const QString id = channel.id;
        connect(timer.get(), &QTimer::timeout, this, [this, id] { probe(id); });
        timer->start();
    }
    for (auto it = m_timers.begin(); it != m_timers.end();)
        it = wanted.contains(it.key()) ? std::next(it) : m_timers.erase(it);
}

void ChannelProbes::probe(const QString &channelId)
{
    // The workspace of the moment: the channel may have changed since the timer was set.
    const WorkspacePtr workspace = m_gateway.workspace();
    const config::Channel *channel = nullptr;
    for (const config::Channel &c : workspace->config().channels)
        if (c.id == channelId)
            channel = &c;
    if (!channel || channel->models.empty())
        return;
    const config::ChannelModel &model = channel->models.front();
    ++m_sent;
    const QString modelId = model.id;
    UpstreamFetch::start(m_gateway.upstreamClient(),
                         tinyChatRequest(targetOf(*channel), model.upstream.isEmpty() ? model.id : model.upstream),
                         [this, channelId, modelId](const FetchResult &result) {
                             recordOutcome(m_gateway, channelId, modelId, result);
                         }, this);
}

void ChannelProbes::recordOutcome(GatewayService &gateway, const QString &channelId, const QString &modelId,
                                  const FetchResult &result)
{
    if (!result.error && result.status >= 200 && result.status <= 299)
        gateway.state().health.recordSuccess(channelId, modelId, std::chrono::milliseconds(result.latencyMs));
    else
        gateway.state().health.recordFailure(channelId, modelId);
}

} // namespace sy::service
