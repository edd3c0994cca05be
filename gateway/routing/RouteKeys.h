#pragma once
// RouteKeys: the health view's and the metrics window's numbers (StateKeys) of every route of one
// RouteTable, each resolved by its ids the first time a selection uses the route and read by the
// route's slot after that. The numbers stay valid as long as the views live (they never reuse
// one), so they are kept while the selector sees the same table (one configuration); a table with
// another serial (a configuration change) starts them over.
//
// Thread: one thread (the selector's); the views are asked only during of().
#include "routing/ChannelSelector.h"
#include "routing/RouteTable.h"

#include <vector>

namespace sy::routing {

class RouteKeys {
public:
    RouteKeys(const metrics::MetricsWindow &metrics, const HealthView &health);

    // The numbers of `route` of `table` (`channelId` and `modelId` name it, for the first use).
    const StateKeys &of(const RouteTable &table, const Route &route, const QString &channelId, const QString &modelId);
    // How many routes were resolved by their ids since construction (each once per table).
    int resolvedCount() const { return m_resolvedCount; }

private:
    struct Entry {
        bool resolved = false;
        StateKeys keys;
    };
    const metrics::MetricsWindow &m_metrics;
    const HealthView &m_health;
    quint64 m_serial = 0;          // the table the entries are for; 0: none yet
    std::vector<Entry> m_entries;  // by route slot
    int m_resolvedCount = 0;
};

} // namespace sy::routing
