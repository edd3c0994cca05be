#pragma once
// RouteTable: for each public model id, every channel that lists it (enabled or not), in
// configuration order, with the facts the filters read prepared once per configuration — the
// channel's tier, the served prices as the route trace writes them, and each channel's provider
// slug and id folded for provider.order / only / ignore. A routing decision then looks a model
// up once instead of scanning every channel's model list with string compares, formats no price
// when a max_price filter drops a channel, and folds no channel name.
//
// Entries refer to channels by position, so a table stays valid for any copy of the channel
// list it was built from (the Workspace that holds both may be copied or moved).
//
// Thread: immutable after construction; any thread may read it.
#include "config/Config.h"
#include "routing/ProviderNames.h"

#include <QHash>
#include <QString>
#include <vector>

namespace sy::routing {

enum class ChannelTier { Standard, Priority, Flex };

struct Route {
    int channel = -1;              // index into the channel list the table was built from
    int served = -1;               // index into that channel's `models`
    ChannelTier tier = ChannelTier::Standard;
    // `QString::arg(double)` of the served prompt and completion prices, as the max_price
    // reasons write them.
    QString promptPriceText;
    QString completionPriceText;
};

class RouteTable {
public:
    RouteTable() = default;
    explicit RouteTable(const std::vector<config::Channel> &channels);

    // The routes of `modelId` in configuration order, or an empty list.
    const std::vector<Route> &routesOf(const QString &modelId) const;
    // The folded names of the channel at `channel` (a Route's index) in the list.
    const ChannelNames &namesOf(int channel) const { return m_names[size_t(channel)]; }

private:
    QHash<QString, std::vector<Route>> m_byModel;
    std::vector<ChannelNames> m_names;   // by channel index
};

// The tier a channel's `tier` text names; anything but priority/flex is standard (the
// configuration validates it).
ChannelTier tierOf(const config::Channel &channel);

} // namespace sy::routing
