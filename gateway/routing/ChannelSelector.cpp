// ChannelSelector: filters (ChannelFilters) then orders (ChannelOrdering) per SPEC §3.4–3.5.
//
// Decisions beyond the SPEC text:
// - Tie order. Every group is first put in default order (weighted draw, recently failed last);
//   `order` and `sort` then re-order it stably, so channels that tie (same provider in `order`,
//   same price, or no metrics) keep the default order among themselves.
// - Stickiness applies in default order only: an explicit `sort` or `order` is the client saying
//   how to choose, so the sticky channel is not promoted (the trace says so).
// - `sort` overrides `order` for ordering, but `order` + `allow_fallbacks: false` still limits
//   the pool to the listed providers: that combination is a compliance fence (seed 002) and a
//   sort must not widen it.
// - `allow_fallbacks: false` without `order` keeps the first channel of each model of the chain
//   (model fallbacks are orthogonal to provider fallbacks, seed 002); the rest are recorded as
//   filtered. It is applied last, so a cooling-down channel is kept only when it is the only one.
// - Step sequence per group: base order → preferred_* thresholds → cooling down to the very end
//   → allow_fallbacks truncation.
// - Health is asked once per candidate, for each model's candidates together once they passed
//   the filters (HealthView::fillFacts, one instant); every step of one selection, stickiness
//   included, reads that answer, so a selection sees one consistent health state.
// - The views are asked by number (RouteKeys: resolved once per route table), not by ids.
#include "routing/ChannelSelector.h"

#include "routing/ChannelFilters.h"
#include "routing/ChannelOrdering.h"
#include "routing/RouteKeys.h"

#include <QHash>
#include <algorithm>
#include <climits>

namespace sy::routing {
namespace {

struct Group {
    QString label;                  // model id, or a label for the cross-model group
    std::vector<Candidate> members;
    QStringList trace;
};

// The RouteTable's folded names of a candidate's channel (candidates point into `channels`).
struct NamesOf {
    const std::vector<config::Channel> &channels;
    const RouteTable &routes;
    const ChannelNames &operator()(const Candidate &candidate) const
    {
        return routes.namesOf(int(candidate.channel - channels.data()));
    }
};

// Drops the channels `order` does not list (order + allow_fallbacks: false).
void keepOnlyOrdered(Group &group, const std::vector<FoldedName> &order, const NamesOf &namesOf,
                     std::vector<FilteredChannel> &filtered)
{
    std::vector<Candidate> kept;
    for (const Candidate &candidate : group.members) {
        if (orderRank(namesOf(candidate), order) == INT_MAX)
            filtered.push_back({candidate.channel->id, candidate.modelId,
                                QStringLiteral("not in provider.order and allow_fallbacks is false")});
        else
            kept.push_back(candidate);
    }
    group.members = std::move(kept);
}

void applyOrder(Group &group, const QStringList &order, const std::vector<FoldedName> &foldedOrder,
                const NamesOf &namesOf, bool allowFallbacks)
{
    // Each rank computed once, not once per comparison.
    std::vector<std::pair<int, Candidate>> ranked;
    ranked.reserve(group.members.size());
    for (const Candidate &candidate : group.members)
        ranked.emplace_back(orderRank(namesOf(candidate), foldedOrder), candidate);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (std::size_t i = 0; i < ranked.size(); ++i)
        group.members[i] = ranked[i].second;
    group.trace.append(QStringLiteral("provider.order [%1] first; %2")
                           .arg(order.join(QStringLiteral(", ")),
                                allowFallbacks ? QStringLiteral("the rest in default order")
                                               : QStringLiteral("nothing else (allow_fallbacks: false)")));
}

// Promotes the sticky channel to the front of the primary model's group when it is healthy.
void applyStickiness(Group &group, const QString &stickyChannelId)
{
    const auto it = std::find_if(group.members.begin(), group.members.end(), [&](const Candidate &candidate) {
        return candidate.channel->id == stickyChannelId;
    });
    if (it == group.members.end()) {
        group.trace.append(QStringLiteral("sticky channel %1 not a candidate").arg(stickyChannelId));
        return;
    }
    if (it->health.failedRecently || it->health.coolingDown) {
        group.trace.append(QStringLiteral("sticky channel %1 unhealthy → not preferred").arg(stickyChannelId));
        return;
    }
    std::rotate(group.members.begin(), it, it + 1);
    group.trace.append(QStringLiteral("sticky channel %1 first").arg(stickyChannelId));
}

// allow_fallbacks: false without order: the first channel of each model survives.
void keepFirstPerModel(Group &group, std::vector<FilteredChannel> &filtered)
{
    QSet<QString> seenModels;
    std::vector<Candidate> kept;
    for (const Candidate &candidate : group.members) {
        if (seenModels.contains(candidate.modelId)) {
            filtered.push_back({candidate.channel->id, candidate.modelId,
                                QStringLiteral("allow_fallbacks is false: only the first channel is tried")});
            continue;
        }
        seenModels.insert(candidate.modelId);
        kept.push_back(candidate);
    }
    if (kept.size() != group.members.size())
        group.trace.append(QStringLiteral("allow_fallbacks: false → first channel only"));
    group.members = std::move(kept);
}

} // namespace

void HealthView::fillFacts(std::span<Candidate> candidates) const
{
    for (Candidate &candidate : candidates)
        candidate.health = facts(candidate.channel->id, candidate.modelId);
}

ChannelSelector::ChannelSelector(const metrics::MetricsWindow &metrics, const HealthView &health, Random &random)
    : m_metrics(metrics), m_health(health), m_random(random), m_keys(std::make_unique<RouteKeys>(metrics, health))
{
}

ChannelSelector::~ChannelSelector() = default;

Selection ChannelSelector::select(const std::vector<config::Channel> &channels, const SelectionRequest &request)
{
    return select(channels, RouteTable(channels), request);
}

Selection ChannelSelector::select(const std::vector<config::Channel> &channels, const RouteTable &routes,
                                  const SelectionRequest &request)
{
    Selection selection;
    const ProviderPreferences &prefs = request.preferences;
    ChannelOrdering ordering(m_metrics, m_random);
    const RequestFilters filters(request);
    const NamesOf namesOf{channels, routes};

    // 1. Candidates per model of the chain, filtered; each group in default order (the base for
    //    ties in every mode).
    std::vector<Group> groups;
    groups.reserve(size_t(request.chain.size()));
    for (const QString &modelId : request.chain) {
        // A model named twice in the chain is tried once (each group is labelled by its model).
        if (std::any_of(groups.begin(), groups.end(), [&](const Group &seen) { return seen.label == modelId; }))
            continue;
        Group group{modelId, {}, {}};
        const std::vector<Route> &modelRoutes = routes.routesOf(modelId);
        group.members.reserve(modelRoutes.size());
        for (const Route &route : modelRoutes) {
            const config::Channel &channel = channels[size_t(route.channel)];
            const config::ChannelModel &served = channel.models[size_t(route.served)];
            if (auto reason = rejectionReason(channel, served, route, routes.namesOf(route.channel), filters)) {
                selection.filtered.push_back({channel.id, modelId, std::move(*reason)});
                continue;
            }
            group.members.push_back(
                Candidate{&channel, &served, modelId, {}, m_keys->of(routes, route, channel.id, modelId)});
        }
        m_health.fillFacts(group.members);
        if (group.members.empty()) {
            group.trace.append(QStringLiteral("no channel left after filters"));
        } else {
            QStringList defaultTrace;
            group.members = ordering.defaultOrder(std::move(group.members), defaultTrace);
            // In sort/order modes the draw only breaks ties; its trace would mislead.
            if (!prefs.sort && prefs.order.isEmpty())
                group.trace.append(defaultTrace);
        }
        groups.push_back(std::move(group));
    }

    // 2. The mode's order.
    const bool fencedByOrder = !prefs.order.isEmpty() && !prefs.allowFallbacks;
    if (fencedByOrder) {
        for (Group &group : groups)
            keepOnlyOrdered(group, filters.order(), namesOf, selection.filtered);
    }
    if (prefs.sort) {
        if (prefs.sort->partition == SortPartition::None) {
            Group all{QStringLiteral("all models (sort partition none)"), {}, {}};
            for (Group &group : groups) {
                all.members.insert(all.members.end(), group.members.begin(), group.members.end());
                if (group.members.empty())
                    selection.notes.append(group.label + QStringLiteral(": ") + group.trace.join(QStringLiteral("; ")));
            }
            groups.clear();
            groups.push_back(std::move(all));
        }
        for (Group &group : groups) {
            if (!group.members.empty())
                ordering.sortBy(group.members, prefs.sort->by, group.trace);
        }
        if (!prefs.order.isEmpty())
            selection.notes.append(QStringLiteral("provider.sort overrides provider.order"));
    } else if (!prefs.order.isEmpty()) {
        for (Group &group : groups) {
            if (!group.members.empty())
                applyOrder(group, prefs.order, filters.order(), namesOf, prefs.allowFallbacks);
        }
    } else if (!request.stickyChannelId.isEmpty() && !groups.empty() && !groups.front().members.empty()) {
        applyStickiness(groups.front(), request.stickyChannelId);
    }
    if (!request.stickyChannelId.isEmpty() && (prefs.sort || !prefs.order.isEmpty()))
        selection.notes.append(QStringLiteral("stickiness ignored: explicit sort/order"));

    // 3. Soft demotions, then the allow_fallbacks cut; then flatten in group order.
    for (Group &group : groups) {
        ordering.demoteThresholdMisses(group.members, prefs, group.trace);
        ordering.demoteCoolingDown(group.members, group.trace);
        if (!prefs.allowFallbacks && prefs.order.isEmpty())
            keepFirstPerModel(group, selection.filtered);
        selection.ordered.insert(selection.ordered.end(), group.members.begin(), group.members.end());
        if (!group.trace.isEmpty())
            selection.notes.append(group.label + QStringLiteral(": ") + group.trace.join(QStringLiteral("; ")));
    }
    return selection;
}

} // namespace sy::routing
