#pragma once
// OutagePlan: failures the user sets on purpose in the failure lab (SPEC §7 "Dashboard"; the
// admin API's simulated outages). A channel or a whole model is "taken down" for a while with one
// failure kind; the gateway then produces that failure itself for every attempt that matches,
// exactly as if the upstream had done it, so failover, health and metrics react for real.
//
// Thread: one thread (the gateway thread). Time from the injected Clock.
#include "core/Clock.h"

#include <QString>
#include <optional>
#include <vector>

namespace sy::failover {

enum class OutageKind {
    HttpError,      // the upstream answers `status` (e.g. 500, 503; 429 = rate limited)
    Timeout,        // nothing within the channel's first-byte timeout
    Hang,           // connection open, no answer at all (ends by the gateway's own timeouts)
    DropMidStream,  // the real answer starts, then the connection drops after the first chunk
    Slow,           // the real answer, `extraLatency` later
};

struct Outage {
    quint64 id = 0;
    QString channelId;             // one of channelId / modelId is set
    QString modelId;
    OutageKind kind = OutageKind::HttpError;
    int status = 503;              // HttpError only
    std::chrono::milliseconds extraLatency{3000};   // Slow only
    Clock::TimePoint until{};
};

// "error:503", "rate_limit" (= error:429), "timeout", "hang", "drop_mid_stream", "slow" -> kind
// (+ status). Empty when the name is unknown.
std::optional<Outage> parseOutageKind(const QString &name);
QString describeOutage(const Outage &outage, Clock::TimePoint now);   // "503 for 42 s"

class OutagePlan {
public:
    explicit OutagePlan(const Clock &clock) : m_clock(clock) {}

    // Adds (or replaces the one on the same target) and returns its id.
    quint64 set(Outage outage);
    bool remove(quint64 id);
    void clear();
    // The outage in force for an attempt at `channelId` serving `modelId`, if any (a channel
    // outage wins over a model outage).
    std::optional<Outage> match(const QString &channelId, const QString &modelId) const;
    std::vector<Outage> active() const;
    Clock::TimePoint now() const { return m_clock.now(); }

private:
    const Clock &m_clock;
    quint64 m_nextId = 1;
    std::vector<Outage> m_outages;
};

} // namespace sy::failover
