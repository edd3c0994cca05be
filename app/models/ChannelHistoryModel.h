#pragma once
// ChannelHistoryModel: five minutes of per-second samples per channel for the overview charts —
// requests/s, errors/s, tokens/s (derived from the cumulative counters of consecutive snapshots,
// averaged over the last five seconds so a line stays readable) and TTFT p50/p90. One row per channel; the charts ask for a channel's points of one metric
// with fillSeries() whenever sampled() fires (data flows model → history → chart).
//
// Metric names: "requests", "errors", "tokens" (per second), "ttftP50", "ttftP90" (ms).
//
// Thread: the UI thread.
#include "CounterRate.h"
#include "service/DashboardSnapshot.h"

#include <QAbstractListModel>
#include <QPointF>
#include <QtQml/qqmlregistration.h>
#include <deque>

namespace sy::app {

class ChannelHistoryModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(int windowSeconds READ windowSeconds CONSTANT)
public:
    enum Role {
        ChannelIdRole = Qt::UserRole + 1,
        SampleCountRole,
        RequestsPerSecondRole,   // latest sample
        ErrorsPerSecondRole,
        TokensPerSecondRole,
    };
    Q_ENUM(Role)

    struct Sample {
        qint64 atMs = 0;
        double requests = 0;
        double errors = 0;
        double tokens = 0;
        double ttftP50 = -1;     // -1: no data in the window
        double ttftP90 = -1;
    };

    explicit ChannelHistoryModel(QObject *parent = nullptr);

    // Feeds one snapshot; a sample is taken once at least a second has passed since the last.
    void addSnapshot(const service::DashboardSnapshot &snapshot);

    // The points of `metric` for channel `row`: x = seconds relative to the newest sample
    // (-300..0), y = the value; samples without data are left out.
    QList<QPointF> points(int row, const QString &metric) const;
    // Replaces the points of `series` (a Qt Charts QXYSeries) with points(row, metric).
    Q_INVOKABLE void fillSeries(QObject *series, int row, const QString &metric) const;
    // The largest value of `metric` over every channel and sample (0 when empty).
    Q_INVOKABLE double maxValue(const QString &metric) const;
    Q_INVOKABLE QString channelId(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return rowCount(); }
    int windowSeconds() const { return kWindowSeconds; }
    const std::deque<Sample> &samples(int row) const { return m_channels[size_t(row)].samples; }

signals:
    void countChanged();
    // New samples were taken that change what a chart shows (at most once a second; not while
    // every line stays flat at zero).
    void sampled();

private:
    struct Channel {
        QString id;
        std::deque<Sample> samples;
        CounterRate attempts;    // fed by every snapshot
        CounterRate errors;
        CounterRate tokens;
    };
    static constexpr int kWindowSeconds = 300;
    static double valueOf(const Sample &sample, const QString &metric);
    void syncChannels(const service::DashboardSnapshot &snapshot);
    void recordCounters(const service::DashboardSnapshot &snapshot, qint64 atMs);

    std::vector<Channel> m_channels;
    qint64 m_lastSampleMs = -1;
    bool m_flatDrawn = false;   // the last sampled() showed only flat lines
};

} // namespace sy::app
