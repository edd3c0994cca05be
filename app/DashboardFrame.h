#pragma once
// The values the gateway thread hands the UI thread (by queued signal, by value): a dashboard
// frame at a steady 4 Hz, a page of the request log, one request's route trace. Immutable once
// sent; the UI never reaches back into gateway objects.
#include "models/OutagesModel.h"
#include "service/DashboardSnapshot.h"
#include "service/RequestRecord.h"

#include <QMetaType>
#include <QStringList>
#include <vector>

namespace sy::app {

struct TrafficStatus {
    bool available = false;        // the demo workspace has a traffic generator
    bool running = false;
    double requestsPerSecond = 2;
    double streamShare = 0.5;      // 0..1
    QStringList models;            // the mix
    quint64 sent = 0;
    quint64 succeeded = 0;
    quint64 failed = 0;
};

struct DashboardFrame {
    service::DashboardSnapshot snapshot;
    std::vector<OutageRow> outages;
    TrafficStatus traffic;
    QStringList keyNames;          // gateway keys, for the request log filter
    QStringList modelIds;          // public models, for filters and the failure lab
    QStringList channelIds;
};

struct LogPage {
    quint64 generation = 0;        // which query this answers (older answers are dropped)
    std::vector<service::RequestRecord> records;
};

struct TraceResult {
    QByteArray requestId;
    std::optional<service::RequestRecord> record;   // absent: no longer in the log
};

} // namespace sy::app

Q_DECLARE_METATYPE(sy::app::DashboardFrame)
Q_DECLARE_METATYPE(sy::app::LogPage)
Q_DECLARE_METATYPE(sy::app::TraceResult)
