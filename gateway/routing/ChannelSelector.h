#pragma once
// ChannelSelector: from a request's view to the ordered list of channels to try (SPEC §3.4–3.5).
// Filters (provider only/ignore, max_price, quantizations, require_parameters, data policy, tier)
// and orders (default weighted random by 1/price² × health factor with recently failing channels
// last; stickiness; `order`; `sort`; preferred_* thresholds). Never does I/O; every decision is
// recorded so the route trace can say why a channel was dropped or where it went.
//
// Thread: one thread; views and Random are used only during select(). The selector keeps the
// views' numbers of the last route table's routes (RouteKeys) from one select() to the next.
#include "core/Random.h"
#include "metrics/MetricsWindow.h"
#include "routing/ProviderPreferences.h"

#include <QSet>
#include <QString>
#include <memory>
#include <span>
#include <vector>

namespace sy::routing {

class RouteKeys;
class RouteTable;

// What the selector knows about one candidate's health, asked once per candidate.
struct HealthFacts {
    bool failedRecently = false;
    bool coolingDown = false;
    double factor = 1.0;
};

// A HealthView's own number for one (channel, model) (HealthView::keyOf); -1: not numbered, the
// view is asked by the ids.
struct HealthKey {
    int channel = -1;
    int model = -1;
};

// The health view's and the metrics window's numbers for one (channel, model), resolved once per
// route table (RouteKeys), so a selection asks about a candidate by number instead of hashing its
// channel and model ids in each view.
struct StateKeys {
    HealthKey health;
    metrics::SeriesId metrics = -1;     // -1: not numbered, the ordering asks the window for it
};

struct Candidate {
    const config::Channel *channel = nullptr;
    const config::ChannelModel *served = nullptr;   // upstream name and price on this channel
    QString modelId;                                // public model id
    HealthFacts health;                             // as the HealthView said when it was selected
    StateKeys keys;                                 // the views' numbers for (channel, modelId)
};

// What the selector needs to know about channel health (implemented by the health tracker).
class HealthView {
public:
    virtual ~HealthView() = default;
    // The channel failed significantly in the last 30 s: it goes to the end in default order.
    virtual bool failedRecently(const QString &channelId) const = 0;
    // Taken out of rotation (cooling down, simulated down): goes to the very end in every mode.
    virtual bool isCoolingDown(const QString &channelId) const = 0;
    // (0, 1]: shrinks with the recent error rate and with latency far above the channel's normal.
    virtual double healthFactor(const QString &channelId, const QString &modelId) const = 0;
    // The three answers above for one candidate at one instant. A view that can answer all
    // three with one lookup should override it.
    virtual HealthFacts facts(const QString &channelId, const QString &modelId) const
    {
        return {failedRecently(channelId), isCoolingDown(channelId), healthFactor(channelId, modelId)};
    }
    // The view's number for (channelId, modelId), valid for the view's whole lifetime, for
    // fillFacts(). The default numbers nothing.
    virtual HealthKey keyOf(const QString &channelId, const QString &modelId) const
    {
        Q_UNUSED(channelId);
        Q_UNUSED(modelId);
        return {};
    }
    // Sets every candidate's `health` as facts() would, all at one instant. The selector asks this
    // once per group of candidates that passed the filters. The default asks facts() per
    // candidate; a view that numbers keys should read its clock once and use `keys.health`.
    virtual void fillFacts(std::span<Candidate> candidates) const;
};

struct FilteredChannel {
    QString channelId;
    QString modelId;
    QString reason;       // e.g. "ignored by provider.ignore", "price above max_price"
};

struct SelectionRequest {
    QStringList chain;                    // model ids, primary first (suffixes already stripped)
    ProviderPreferences preferences;
    QSet<QString> requestParameters;      // top-level body fields, for require_parameters
    bool admitPriority = false;           // :nitro
    bool admitFlex = false;               // :floor
    QString stickyChannelId;              // channel that served this conversation before, if any
};

struct Selection {
    std::vector<Candidate> ordered;
    std::vector<FilteredChannel> filtered;
    QStringList notes;                    // how the order was made, for the route trace
};

class ChannelSelector {
public:
    ChannelSelector(const metrics::MetricsWindow &metrics, const HealthView &health, Random &random);
    ~ChannelSelector();

    // `channels`: the workspace's channels (disabled ones are filtered with a reason).
    Selection select(const std::vector<config::Channel> &channels, const SelectionRequest &request);
    // The same with the channels' RouteTable built beforehand (the Workspace keeps one per
    // configuration): `routes` must have been built from `channels` (or an identical copy).
    Selection select(const std::vector<config::Channel> &channels, const RouteTable &routes,
                     const SelectionRequest &request);

private:
    const metrics::MetricsWindow &m_metrics;
    const HealthView &m_health;
    Random &m_random;
    std::unique_ptr<RouteKeys> m_keys;   // the views' numbers of the last route table's routes
};

} // namespace sy::routing
