#include "ChannelTilesModel.h"

namespace sy::app {

namespace {

QVariant orMinusOne(const std::optional<double> &v)
{
    return v ? *v : -1.0;
}

} // namespace

ChannelTilesModel::ChannelTilesModel(QObject *parent)
    : KeyedRowsModel(parent)
{
}

QHash<int, QByteArray> ChannelTilesModel::roleNames() const
{
    return {
        {ChannelIdRole, "channelId"},
        {ProviderRole, "provider"},
        {StateRole, "healthState"},
        {ModelsRole, "models"},
        {InFlightRole, "inFlight"},
        {CapacityRole, "capacity"},
        {QueuedRole, "queued"},
        {RequestsPerSecondRole, "requestsPerSecond"},
        {ErrorsPerSecondRole, "errorsPerSecond"},
        {ErrorRateRole, "errorRate"},
        {TtftP50Role, "ttftP50"},
        {TtftP90Role, "ttftP90"},
        {LatencyP50Role, "latencyP50"},
        {LatencyP99Role, "latencyP99"},
        {TokensPerSecondRole, "tokensPerSecond"},
        {OutageRole, "outage"},
        {TlsInsecureRole, "tlsInsecure"},
    };
}

QVariant ChannelTilesModel::value(const ChannelTileRow &row, int role) const
{
    const service::ChannelTile &t = row.tile;
    switch (role) {
    case ChannelIdRole: return t.id;
    case ProviderRole: return t.provider;
    case StateRole: return t.state;
    case ModelsRole: return t.models;
    case InFlightRole: return t.inFlight;
    case CapacityRole: return t.capacity;
    case QueuedRole: return t.queued;
    case RequestsPerSecondRole: return row.requestsPerSecond;
    case ErrorsPerSecondRole: return row.errorsPerSecond;
    case ErrorRateRole: return t.errorRate;
    case TtftP50Role: return orMinusOne(t.ttftP50Ms);
    case TtftP90Role: return orMinusOne(t.ttftP90Ms);
    case LatencyP50Role: return orMinusOne(t.latencyP50Ms);
    case LatencyP99Role: return orMinusOne(t.latencyP99Ms);
    case TokensPerSecondRole: return orMinusOne(t.tokensPerSecondP50);
    case OutageRole: return t.outage;
    case TlsInsecureRole: return t.tlsInsecure;
    default: return {};
    }
}

void ChannelTilesModel::apply(const service::DashboardSnapshot &snapshot)
{
    const qint64 atMs = snapshot.at.toMSecsSinceEpoch();
    QHash<QString, const ChannelTileRow *> previous;
    for (const ChannelTileRow &row : rows())
        previous.insert(row.tile.id, &row);

    std::vector<ChannelTileRow> next;
    next.reserve(snapshot.channels.size());
    for (const service::ChannelTile &tile : snapshot.channels) {
        ChannelTileRow row;
        if (const ChannelTileRow *old = previous.value(tile.id)) {
            row.attempts = old->attempts;
            row.errors = old->errors;
        }
        row.tile = tile;
        row.attempts.add(atMs, tile.attemptsTotal);
        row.errors.add(atMs, tile.errorsTotal);
        row.requestsPerSecond = row.attempts.perSecond();
        row.errorsPerSecond = row.errors.perSecond();
        next.push_back(std::move(row));
    }
    sync(std::move(next));
}

} // namespace sy::app
