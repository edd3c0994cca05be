#include "service/DashboardSnapshot.h"

#include "service/GatewayService.h"

#include <algorithm>

namespace sy::service {

namespace {

// The failure-lab outage that hits `channel`: its own, else the first on a model it serves.
std::optional<failover::Outage> labOutage(const config::Channel &channel, const failover::OutagePlan &outages)
{
    std::optional<failover::Outage> onModel;
    for (const failover::Outage &o : outages.active()) {
        if (o.channelId == channel.id)
            return o;
        if (!onModel && !o.modelId.isEmpty()
            && std::any_of(channel.models.begin(), channel.models.end(), [&](const config::ChannelModel &m) { return m.id == o.modelId; }))
            onModel = o;
    }
    return onModel;
}

} // namespace

QString channelState(const config::Channel &channel, GatewayState &state)
{
    if (!channel.enabled)
        return QStringLiteral("disabled");
    if (labOutage(channel, state.outages))
        return QString::fromLatin1(failover::healthStateName(failover::HealthState::SimulatedDown));
    return QString::fromLatin1(failover::healthStateName(state.health.state(channel.id)));
}

namespace {

ChannelTile tileFor(const config::Channel &channel, GatewayState &routing, const QDateTime &)
{
    ChannelTile tile;
    tile.id = channel.id;
    tile.provider = channel.provider;
    tile.capacity = channel.maxConcurrent;
    tile.tlsInsecure = channel.tls.insecure;
    tile.queued = routing.capacity.queued(channel.id);
    const std::optional<failover::Outage> outage = labOutage(channel, routing.outages);
    if (outage) {
        const QString text = failover::describeOutage(*outage, routing.outages.now());
        tile.outage = outage->channelId.isEmpty() ? QStringLiteral("%1: %2").arg(outage->modelId.section('/', -1), text) : text;
    }
    tile.state = channelState(channel, routing);
    const ChannelTotals totals = routing.totals.value(channel.id);
    tile.attemptsTotal = totals.attempts;
    tile.errorsTotal = totals.errors;
    tile.completionTokensTotal = totals.completionTokens;

    // The channel's figures are those of its busiest model: one tile, one headline number.
    quint64 requests = 0;
    quint64 errors = 0;
    quint64 busiest = 0;
    for (const config::ChannelModel &served : channel.models) {
        tile.models.append(served.id);
        const metrics::MetricsSnapshot m = routing.metrics.snapshot({channel.id, served.id});
        tile.inFlight += m.inFlight;
        requests += m.requests;
        errors += m.errors;
        if (m.requests >= busiest) {
            busiest = m.requests;
            if (m.ttftMs) {
                tile.ttftP50Ms = m.ttftMs->p50;
                tile.ttftP90Ms = m.ttftMs->p90;
            }
            if (m.latencyMs) {
                tile.latencyP50Ms = m.latencyMs->p50;
                tile.latencyP99Ms = m.latencyMs->p99;
            }
            if (m.tokensPerSecond)
                tile.tokensPerSecondP50 = m.tokensPerSecond->p50;
        }
    }
    tile.errorRate = requests ? double(errors) / double(requests) : 0;
    return tile;
}

} // namespace

QString feedSummary(const RequestRecord &record)
{
    QStringList steps;
    for (const AttemptRecord &a : record.attempts.records()) {
        QString outcome = a.status;
        if (a.status == QLatin1String("error")) {
            // "HTTP 503: ..." -> "503"; transport errors keep their kind ("connect", "first_byte_timeout").
            const QString head = a.error.section(QLatin1Char(':'), 0, 0);
            outcome = head.startsWith(QLatin1String("HTTP ")) ? head.mid(5) : head;
        }
        steps.append(QStringLiteral("%1 %2").arg(a.provider.isEmpty() ? a.model : a.provider, outcome));
    }
    if (steps.isEmpty())
        steps.append(QString::number(record.status));
    return QStringLiteral("%1, %2 ms").arg(steps.join(QStringLiteral(" → "))).arg(record.totalMs);
}

DashboardSnapshot buildDashboardSnapshot(GatewayService &gateway)
{
    DashboardSnapshot snapshot;
    snapshot.at = QDateTime::currentDateTimeUtc();
    const GatewayCounters &c = gateway.counters();
    snapshot.requests = c.requests;
    snapshot.succeeded = c.succeeded;
    snapshot.failed = c.failed;
    snapshot.failedOver = c.failedOver;
    snapshot.inFlight = c.inFlight;
    snapshot.promptTokens = c.promptTokens;
    snapshot.completionTokens = c.completionTokens;
    WorkspacePtr workspace = gateway.workspace();
    snapshot.currency = workspace->config().currency;
    const billing::Ledger &ledger = gateway.state().ledger;
    if (ledger.isMetered())
        snapshot.balance = double(ledger.balance()) / 1e9;
    const QDateTime dayStart(gateway.clock().wallNow().date(), QTime(0, 0), Qt::UTC);
    snapshot.spendToday = double(ledger.spentSince(dayStart)) / 1e9;
    for (const config::Channel &channel : workspace->config().channels)
        snapshot.channels.push_back(tileFor(channel, gateway.state(), snapshot.at));

    RequestFilter filter;
    filter.limit = 50;
    for (const RequestRecord &record : gateway.requestLog().query(filter)) {
        if (record.endpoint != QLatin1String("chat.completions"))
            continue;
        snapshot.feed.push_back({record.id, record.at, record.requestedModel, feedSummary(record), record.status,
                                 record.failedOver()});
    }
    return snapshot;
}

} // namespace sy::service
