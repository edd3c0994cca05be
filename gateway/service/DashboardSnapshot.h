#pragma once
// DashboardSnapshot: an immutable picture of the gateway for the dashboard, built on the gateway
// thread a few times a second and handed to the UI thread by value (queued signal). The UI never
// calls into gateway objects. Counters are cumulative: the UI derives rates from two snapshots.
#include "config/Config.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace sy::service {

class GatewayService;
struct GatewayState;

struct ChannelTile {
    QString id;
    QString provider;
    QString state;                 // healthy | degraded | cooling_down | simulated_down | disabled (channelState)
    QStringList models;
    int inFlight = 0;
    int capacity = 0;              // 0 = unlimited
    int queued = 0;
    quint64 attemptsTotal = 0;     // cumulative since start
    quint64 errorsTotal = 0;
    quint64 completionTokensTotal = 0;
    double errorRate = 0;          // over the last 5 minutes, 0..1
    std::optional<double> ttftP50Ms;
    std::optional<double> ttftP90Ms;
    std::optional<double> latencyP50Ms;
    std::optional<double> latencyP99Ms;
    std::optional<double> tokensPerSecondP50;
    bool tlsInsecure = false;      // the channel opted out of TLS verification (a warning)
    QString outage;                // failure-lab outage in force, e.g. "503 for 42 s" (on a model it
                                   // serves: "model-x: 503 for 42 s"); empty if none
};

struct FeedEvent {
    QByteArray requestId;
    QDateTime at;
    QString model;                 // requested model
    QString summary;               // e.g. "cloudru 503 → yandex ok, 812 ms"
    int status = 0;
    bool failedOver = false;
};

struct DashboardSnapshot {
    QDateTime at;
    quint64 requests = 0;
    quint64 succeeded = 0;
    quint64 failed = 0;
    quint64 failedOver = 0;
    int inFlight = 0;
    quint64 promptTokens = 0;
    quint64 completionTokens = 0;
    QString currency;
    std::optional<double> balance;     // absent until billing is wired
    std::optional<double> spendToday;
    std::vector<ChannelTile> channels;
    std::vector<FeedEvent> feed;       // newest first, at most 50
};

// A channel's state for the dashboard and /metrics (SPEC §5): disabled by the configuration;
// simulated_down while a failure-lab outage is set on it or on a model it serves (whatever the
// kind); else its health (healthy, degraded, cooling_down). Gateway thread.
QString channelState(const config::Channel &channel, GatewayState &state);

// Builds the snapshot from the gateway's current state. Gateway thread.
DashboardSnapshot buildDashboardSnapshot(GatewayService &gateway);

// One line for the failover feed: "cloudru 503 → yandex ok, 812 ms".
QString feedSummary(const class RequestRecord &record);

} // namespace sy::service

Q_DECLARE_METATYPE(sy::service::DashboardSnapshot)
