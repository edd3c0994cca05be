#pragma once
// HealthTracker: the outlier detector of SPEC §4 "Health". The request path only *reports*
// outcomes (recordSuccess / recordFailure); this class *decides* what they mean:
//  - failedRecently: the channel failed significantly in the last 30 s (default order puts it last);
//  - cooldown: `failuresToCool` failures in a row take the channel out of rotation for a cooldown
//    that doubles on each repeated cooldown (base .. max); when it ends, the next attempt is a probe:
//    success makes the channel healthy again, failure starts the next, longer cooldown at once;
//  - healthFactor: (0, 1] from the recent error rate and from latency far above the channel's own
//    normal (a slow exponential average of its successful latencies, kept in microseconds so a
//    channel that answers in well under a millisecond still has a normal to be slow against);
//  - simulated down (the failure lab) until a given time.
// States for the dashboard and /metrics: healthy, degraded, cooling_down, simulated_down
// (disabled is the configuration's business).
//
// Thread: one thread (the gateway thread). Time from the injected Clock.
#include "core/Clock.h"
#include "routing/ChannelSelector.h"

#include <QHash>
#include <array>
#include <deque>
#include <optional>

namespace sy::failover {

enum class HealthState { Healthy, Degraded, CoolingDown, SimulatedDown };
const char *healthStateName(HealthState state);

struct HealthPolicy {
    std::chrono::seconds recentWindow{30};      // "failed significantly in the last 30 s"
    int recentFailures = 2;                     // ... at least this many failures
    double recentFailureShare = 0.3;            // ... and at least this share of the outcomes
    int failuresToCool = 3;                     // consecutive failures that start a cooldown
    std::chrono::milliseconds cooldownBase{5'000};
    std::chrono::milliseconds cooldownMax{300'000};
    std::chrono::seconds factorWindow{60};      // outcomes the health factor looks at
    double slowRatio = 2.0;                     // latency this many times the normal counts as slow
};

class HealthTracker final : public routing::HealthView {
public:
    explicit HealthTracker(const Clock &clock, HealthPolicy policy = {});

    // `latency`: the attempt's upstream time (streams: time to first token), microseconds. A
    // caller holding milliseconds converts implicitly, but then loses what is below 1 ms.
    void recordSuccess(const QString &channelId, const QString &modelId, std::chrono::microseconds latency);
    void recordFailure(const QString &channelId, const QString &modelId);
    void setSimulatedDown(const QString &channelId, Clock::TimePoint until);
    void clearSimulatedDown(const QString &channelId);

    bool failedRecently(const QString &channelId) const override;
    bool isCoolingDown(const QString &channelId) const override;
    double healthFactor(const QString &channelId, const QString &modelId) const override;
    // The three above with one lookup of the channel and one reading of the clock.
    routing::HealthFacts facts(const QString &channelId, const QString &modelId) const override;
    // Numbers (channelId, modelId) for fillFacts(): gives them the empty state a channel without
    // outcomes has (so their answers do not change), which later outcomes then fill. Numbers are
    // never reused; entries are never dropped, as before.
    routing::HealthKey keyOf(const QString &channelId, const QString &modelId) const override;
    // facts() for every candidate at one reading of the clock, by number where it has one.
    void fillFacts(std::span<routing::Candidate> candidates) const override;

    HealthState state(const QString &channelId) const;
    // When the current cooldown ends (only meaningful while cooling down).
    Clock::TimePoint cooldownUntil(const QString &channelId) const;

private:
    // Outcomes are kept in time order with running counts for both windows, so every question
    // costs O(1) amortised however busy the channel is (this sits on the routing hot path).
    struct Outcome {
        Clock::TimePoint at;
        bool success;
    };
    struct RecentLatency {
        static constexpr int kSize = 10;      // the last successes the factor compares with the normal
        std::array<std::pair<Clock::TimePoint, double>, kSize> ring{};  // (when, microseconds)
        int count = 0;
        int next = 0;
        // Slow average of successes in microseconds: the channel's own normal. Absent until the
        // first success; 0 is a real normal (an answer faster than the clock can tell).
        std::optional<double> normalUs;
    };
    struct Channel {
        std::deque<Outcome> outcomes;           // the last max(recentWindow, factorWindow)
        size_t recentStart = 0;                 // index of the first outcome inside recentWindow
        size_t factorStart = 0;                 // index of the first outcome inside factorWindow
        int recentTotal = 0, recentFailures = 0;
        int factorTotal = 0, factorFailures = 0;
        int consecutiveFailures = 0;
        int cooldownLevel = 0;                  // cooldowns in a row without a success between
        Clock::TimePoint cooldownUntil{};
        bool probing = false;                   // the cooldown ended; the next outcome decides
        Clock::TimePoint simulatedUntil{};
        QHash<QString, int> latencyIndex;       // model id -> index into `latency`
        std::vector<RecentLatency> latency;     // per model, by number (HealthKey::model)
        const RecentLatency *latencyOf(const QString &modelId) const;
    };
    Channel &channel(const QString &channelId);
    int channelIndex(const QString &channelId) const;   // numbers it on first use
    Channel *find(const QString &channelId) const;
    void record(Channel &c, bool success) const;
    void advance(Channel &c, Clock::TimePoint now) const;   // moves both windows to `now`
    // The answers for one channel whose windows were advanced to `now`.
    bool failedRecentlyIn(const Channel &c) const;
    static bool coolingDownAt(const Channel &c, Clock::TimePoint now);
    double factorOf(const Channel &c, const RecentLatency *latency, Clock::TimePoint now) const;
    routing::HealthFacts factsOf(Channel &c, const RecentLatency *latency, Clock::TimePoint now) const;
    void startCooldown(Channel &c);

    const Clock &m_clock;
    HealthPolicy m_policy;
    // Channels by number (HealthKey::channel); numbering is keyOf()'s and the recorders' only.
    mutable QHash<QString, int> m_channelIndex;
    mutable std::vector<Channel> m_channels;
};

} // namespace sy::failover
