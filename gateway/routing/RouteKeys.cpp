#include "routing/RouteKeys.h"

namespace sy::routing {

RouteKeys::RouteKeys(const metrics::MetricsWindow &metrics, const HealthView &health)
    : m_metrics(metrics), m_health(health)
{
}

const StateKeys &RouteKeys::of(const RouteTable &table, const Route &route, const QString &channelId,
                               const QString &modelId)
{
    if (table.serial() != m_serial) {
        m_serial = table.serial();
        m_entries.assign(size_t(table.routeCount()), Entry{});
    }
    Entry &entry = m_entries[size_t(route.slot)];
    if (!entry.resolved) {
        entry.keys = {m_health.keyOf(channelId, modelId), m_metrics.idOf({channelId, modelId})};
        entry.resolved = true;
        ++m_resolvedCount;
    }
    return entry.keys;
}

} // namespace sy::routing
