#include "routing/RouteTable.h"

#include <atomic>

namespace sy::routing {
namespace {

quint64 nextSerial()
{
    static std::atomic<quint64> last{0};
    return ++last;
}

} // namespace

ChannelTier tierOf(const config::Channel &channel)
{
    if (channel.tier == QLatin1String("priority"))
        return ChannelTier::Priority;
    if (channel.tier == QLatin1String("flex"))
        return ChannelTier::Flex;
    return ChannelTier::Standard;
}

RouteTable::RouteTable()
    : m_serial(nextSerial())
{
}

RouteTable::RouteTable(const std::vector<config::Channel> &channels)
    : m_serial(nextSerial())
{
    m_names.reserve(channels.size());
    for (int c = 0; c < int(channels.size()); ++c) {
        const config::Channel &channel = channels[size_t(c)];
        m_names.emplace_back(channel);
        const ChannelTier tier = tierOf(channel);
        for (int m = 0; m < int(channel.models.size()); ++m) {
            const config::ChannelModel &served = channel.models[size_t(m)];
            std::vector<Route> &routes = m_byModel[served.id];
            // A channel that lists a model twice serves it with its first entry, as the
            // selector always did.
            if (!routes.empty() && routes.back().channel == c)
                continue;
            routes.push_back({c, m, m_routeCount++, tier, QStringLiteral("%1").arg(served.price.prompt),
                              QStringLiteral("%1").arg(served.price.completion)});
        }
    }
}

const std::vector<Route> &RouteTable::routesOf(const QString &modelId) const
{
    static const std::vector<Route> none;
    const auto it = m_byModel.constFind(modelId);
    return it == m_byModel.cend() ? none : *it;
}

} // namespace sy::routing
