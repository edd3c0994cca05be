#pragma once
// ChannelTilesModel: one row per channel for the overview tiles — health state, in-flight and
// capacity, queue, requests/s (derived from consecutive snapshots), error rate, TTFT and latency
// percentiles, tokens/s and the failure-lab outage in force. Absent figures are -1.
//
// Thread: the UI thread; apply() takes the snapshot the gateway thread sent.
#include "CounterRate.h"
#include "KeyedRowsModel.h"
#include "service/DashboardSnapshot.h"

#include <QtQml/qqmlregistration.h>

namespace sy::app {

struct ChannelTileRow {
    service::ChannelTile tile;
    CounterRate attempts;
    CounterRate errors;
    double requestsPerSecond = 0;
    double errorsPerSecond = 0;
};

class ChannelTilesModel : public KeyedRowsModel<ChannelTileRow, QString> {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    enum Role {
        ChannelIdRole = Qt::UserRole + 1,
        ProviderRole,
        StateRole,
        ModelsRole,
        InFlightRole,
        CapacityRole,
        QueuedRole,
        RequestsPerSecondRole,
        ErrorsPerSecondRole,
        ErrorRateRole,
        TtftP50Role,
        TtftP90Role,
        LatencyP50Role,
        LatencyP99Role,
        TokensPerSecondRole,
        OutageRole,
        TlsInsecureRole,
    };
    Q_ENUM(Role)

    explicit ChannelTilesModel(QObject *parent = nullptr);

    // Brings the tiles up to `snapshot` (taken at `snapshot.at`).
    void apply(const service::DashboardSnapshot &snapshot);
    int count() const { return rowCount(); }
    QHash<int, QByteArray> roleNames() const override;

signals:
    void countChanged();

protected:
    QString keyOf(const ChannelTileRow &row) const override { return row.tile.id; }
    QVariant value(const ChannelTileRow &row, int role) const override;
    void onCountChanged() override { emit countChanged(); }
};

} // namespace sy::app
