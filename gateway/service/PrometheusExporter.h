#pragma once
// GET /metrics: the gateway's state in the Prometheus text format (0.0.4). Metric names are
// documented in docs/metrics.md and stable: dashboards and alerts depend on them.
#include <QByteArray>

namespace sy::service {

class GatewayService;

// Renders every metric. Gateway thread.
QByteArray renderPrometheus(GatewayService &gateway);

} // namespace sy::service
