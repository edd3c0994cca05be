#include "service/PrometheusExporter.h"

#include "service/DashboardSnapshot.h"
#include "service/GatewayService.h"

#include <QStringList>
#include <algorithm>

namespace sy::service {

namespace {

// Label values escape backslash, quote and newline (exposition format 0.0.4).
QByteArray label(const QString &value)
{
    QByteArray out = value.toUtf8();
    out.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    return '"' + out + '"';
}

// Every sample carries the instance's label first: health, metrics and the capacity queue are
// per instance, and a scrape of several instances must keep them apart.
class Writer {
public:
    explicit Writer(const QString &instance)
        : m_instance("instance=" + label(instance))
    {
    }
    void family(const char *name, const char *type, const char *help)
    {
        m_out += "# HELP ";
        m_out += name;
        m_out += ' ';
        m_out += help;
        m_out += "\n# TYPE ";
        m_out += name;
        m_out += ' ';
        m_out += type;
        m_out += '\n';
    }
    void sample(const char *name, const QByteArray &labels, double value)
    {
        m_out += name;
        m_out += '{' + m_instance;
        if (!labels.isEmpty())
            m_out += ',' + labels;
        m_out += "} ";
        m_out += QByteArray::number(value, 'g', 12);
        m_out += '\n';
    }
    QByteArray take() { return std::move(m_out); }

private:
    QByteArray m_instance;
    QByteArray m_out;
};

QByteArray channelModel(const metrics::ChannelModel &key)
{
    return "channel=" + label(key.channelId) + ",model=" + label(key.modelId);
}

void quantiles(Writer &w, const char *name, const QByteArray &labels, const std::optional<metrics::Percentiles> &p, double scale)
{
    if (!p)
        return;
    const std::pair<const char *, double> rows[] = {{"0.5", p->p50}, {"0.75", p->p75}, {"0.9", p->p90}, {"0.99", p->p99}};
    for (const auto &[q, v] : rows)
        w.sample(name, labels + ",quantile=\"" + q + '"', v * scale);
}

} // namespace

QByteArray renderPrometheus(GatewayService &gateway)
{
    Writer w(gateway.instanceName());
    const GatewayCounters &c = gateway.counters();

    w.family("switchyard_requests_total", "counter", "Requests answered by the gateway, by HTTP status.");
    QList<int> statuses = c.byStatus.keys();
    std::sort(statuses.begin(), statuses.end());
    for (int status : statuses)
        w.sample("switchyard_requests_total", "status=\"" + QByteArray::number(status) + '"', double(c.byStatus.value(status)));
    w.family("switchyard_requests_failed_over_total", "counter", "Requests that needed more than one attempt.");
    w.sample("switchyard_requests_failed_over_total", {}, double(c.failedOver));
    w.family("switchyard_requests_in_flight", "gauge", "Chat requests being served now.");
    w.sample("switchyard_requests_in_flight", {}, c.inFlight);
    w.family("switchyard_tokens_total", "counter", "Tokens of answered requests, by kind.");
    w.sample("switchyard_tokens_total", "kind=\"prompt\"", double(c.promptTokens));
    w.sample("switchyard_tokens_total", "kind=\"completion\"", double(c.completionTokens));

    w.family("switchyard_refusals_total", "counter", "Requests refused by the HTTP front before routing, by reason.");
    for (const char *reason : {"header_too_large", "body_too_large", "bad_framing", "bad_host", "bad_origin", "not_found", "method_not_allowed"})
        w.sample("switchyard_refusals_total", QByteArray("reason=\"") + reason + '"', double(gateway.front().refusals(reason)));

    GatewayState &routing = gateway.state();
    w.family("switchyard_gateway_refusals_total", "counter", "Requests refused by the gateway's limits, money and request-log checks, by reason.");
    for (const char *reason : {"key_rate_limited", "insufficient_balance", "spend_limit_reached", "key_breaker_suspended",
                               "key_breaker_disabled", "capacity_busy", "limits_unavailable", "database_unavailable",
                               "request_log_full"})
        w.sample("switchyard_gateway_refusals_total", QByteArray("reason=\"") + reason + '"', double(routing.refusals.value(reason)));
    if (const limits::SharedKeyLimits *shared = gateway.sharedKeyLimits()) {
        w.family("switchyard_redis_up", "gauge", "1 while the shared key limits' Redis answers, 0 while it does not.");
        w.sample("switchyard_redis_up", {}, shared->isReachable() ? 1 : 0);
    }
    if (const storage::Store *store = gateway.store()) {
        const storage::StoreStats stats = store->stats();
        w.family("switchyard_storage_queued_writes", "gauge",
                 "Writes waiting for the database: request-log rows, ledger entries, configuration.");
        w.sample("switchyard_storage_queued_writes", {}, double(stats.pendingWrites));
        w.family("switchyard_request_log_queued", "gauge", "Request-log rows waiting for the database.");
        w.sample("switchyard_request_log_queued", {}, double(stats.pendingRequests));
        w.family("switchyard_request_log_dropped_total", "counter",
                 "Request-log rows not stored because the database fell behind and the write queue held its bound.");
        w.sample("switchyard_request_log_dropped_total", {}, double(stats.droppedRequests));
    }
    w.family("switchyard_capacity_queued", "gauge", "Requests waiting for a channel's capacity.");
    for (const config::Channel &channel : gateway.workspace()->config().channels)
        w.sample("switchyard_capacity_queued", "channel=" + label(channel.id), routing.capacity.queued(channel.id));
    if (routing.ledger.isMetered()) {
        w.family("switchyard_balance", "gauge", "The workspace balance.");
        w.sample("switchyard_balance", "currency=" + label(gateway.workspace()->config().currency), double(routing.ledger.balance()) / 1e9);
    }
    std::vector<metrics::ChannelModel> keys = routing.metrics.keys();
    w.family("switchyard_upstream_attempts_window", "gauge", "Upstream attempts finished in the last 5 minutes, per channel and model.");
    for (const auto &key : keys)
        w.sample("switchyard_upstream_attempts_window", channelModel(key), double(routing.metrics.snapshot(key).requests));
    w.family("switchyard_upstream_errors_window", "gauge", "Failed upstream attempts in the last 5 minutes, per channel and model.");
    for (const auto &key : keys)
        w.sample("switchyard_upstream_errors_window", channelModel(key), double(routing.metrics.snapshot(key).errors));
    w.family("switchyard_upstream_in_flight", "gauge", "Upstream attempts in flight, per channel and model.");
    for (const auto &key : keys)
        w.sample("switchyard_upstream_in_flight", channelModel(key), routing.metrics.snapshot(key).inFlight);
    w.family("switchyard_upstream_ttft_seconds", "summary", "Time to first token over the last 5 minutes.");
    for (const auto &key : keys)
        quantiles(w, "switchyard_upstream_ttft_seconds", channelModel(key), routing.metrics.snapshot(key).ttftMs, 0.001);
    w.family("switchyard_upstream_latency_seconds", "summary", "Upstream latency of successful attempts over the last 5 minutes.");
    for (const auto &key : keys)
        quantiles(w, "switchyard_upstream_latency_seconds", channelModel(key), routing.metrics.snapshot(key).latencyMs, 0.001);
    w.family("switchyard_upstream_tokens_per_second", "summary", "Generation speed over the last 5 minutes.");
    for (const auto &key : keys)
        quantiles(w, "switchyard_upstream_tokens_per_second", channelModel(key), routing.metrics.snapshot(key).tokensPerSecond, 1.0);

    w.family("switchyard_channel_health", "gauge", "1 for the channel's current health state.");
    for (const config::Channel &channel : gateway.workspace()->config().channels) {
        w.sample("switchyard_channel_health", "channel=" + label(channel.id) + ",state=" + label(channelState(channel, routing)), 1);
    }
    return w.take();
}

} // namespace sy::service
