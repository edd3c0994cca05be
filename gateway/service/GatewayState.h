#pragma once
// GatewayState: everything the gateway learns and enforces across requests — live metrics,
// channel health, credential states, sticky conversations, the selector that reads them, the
// failure lab's outages, key limits and breaker, channel capacity, and the money ledger.
// Owned by GatewayService, shared by reference with each ChatExchange.
//
// Thread: the gateway thread only.
#include "billing/Ledger.h"
#include "core/Clock.h"
#include "core/Random.h"
#include "failover/HealthTracker.h"
#include "failover/OutagePlan.h"
#include "limits/CapacityQueue.h"
#include "limits/CredentialStates.h"
#include "limits/KeyBreaker.h"
#include "limits/KeyLimiter.h"
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

struct GatewayState {
    GatewayState(const Clock &clock, quint32 seed, std::optional<billing::Nanos> openingBalance)
        : metrics(clock)
        , health(clock)
        , credentials(clock)
        , sticky(clock)
        , random(seed)
        , selector(metrics, health, random)
        , outages(clock)
        , capacity(clock)
        , keyLimiter(clock)
        , breaker(clock)
        , ledger(clock, openingBalance)
    {
    }

    metrics::MetricsWindow metrics;
    failover::HealthTracker health;
    limits::CredentialStates credentials;
    routing::StickyConversations sticky;
    SeededRandom random;
    routing::ChannelSelector selector;
    failover::OutagePlan outages;
    limits::CapacityQueue capacity;
    limits::KeyLimiter keyLimiter;
    limits::KeyBreaker breaker;
    billing::Ledger ledger;
    QHash<QString, ChannelTotals> totals;   // by channel id
    QHash<QString, quint64> refusals;       // gateway refusals by stable reason name (SPEC §8)
};

} // namespace sy::service
