#pragma once
// RoutingState: everything the gateway learns across requests and routes by — live metrics,
// channel health, credential states, sticky conversations — plus the selector that reads them.
// Owned by GatewayService, shared by reference with each ChatExchange.
//
// Thread: the gateway thread only.
#include "core/Clock.h"
#include "core/Random.h"
#include "failover/HealthTracker.h"
#include "limits/CredentialStates.h"
#include "metrics/MetricsWindow.h"
#include "routing/ChannelSelector.h"
#include "routing/StickyConversations.h"

#include <QHash>

namespace sy::service {

// Cumulative per-channel counts since start (the dashboard derives rates from them).
struct ChannelTotals {
    quint64 attempts = 0;
    quint64 errors = 0;
    quint64 completionTokens = 0;
};

struct RoutingState {
    RoutingState(const Clock &clock, quint32 seed)
        : metrics(clock)
        , health(clock)
        , credentials(clock)
        , sticky(clock)
        , random(seed)
        , selector(metrics, health, random)
    {
    }

    metrics::MetricsWindow metrics;
    failover::HealthTracker health;
    limits::CredentialStates credentials;
    routing::StickyConversations sticky;
    SeededRandom random;
    routing::ChannelSelector selector;
    QHash<QString, ChannelTotals> totals;   // by channel id
};

} // namespace sy::service
