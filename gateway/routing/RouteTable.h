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
// Every route has a number (`slot`, 0 .. routeCount() - 1) and the table a serial number that no
// other table built in this process has (a copy keeps it: it holds the same routes), so state kept
// per route elsewhere (RouteKeys) knows when it was made for another configuration.
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
    int slot = -1;                 // this route's number in the table
    ChannelTier tier = ChannelTier::Standard;
    // `QString::arg(double)` of the served prompt and completion prices, as the max_price
    // reasons write them.
    QString promptPriceText;
    QString completionPriceText;
};

class RouteTable {
public:
    RouteTable();
    explicit RouteTable(const std::vector<config::Channel> &channels);

    // The routes of `modelId` in configuration order, or an empty list.
    const std::vector<Route> &routesOf(const QString &modelId) const;
    // The folded names of the channel at `channel` (a Route's index) in the list.
    const ChannelNames &namesOf(int channel) const { return m_names[size_t(channel)]; }
    // How many routes (slots) the table has, and its serial number (never 0).
    int routeCount() const { return m_routeCount; }
    quint64 serial() const { return m_serial; }

private:
    quint64 m_serial;
    int m_routeCount = 0;
    QHash<QString, std::vector<Route>> m_byModel;
    std::vector<ChannelNames> m_names;   // by channel index
};

// The tier a channel's `tier` text names; anything but priority/flex is standard (the
// configuration validates it).
ChannelTier tierOf(const config::Channel &channel);

} // namespace sy::routing
