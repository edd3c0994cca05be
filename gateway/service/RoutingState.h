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

namespace sy::service {

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
};

} // namespace sy::service
