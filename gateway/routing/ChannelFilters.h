#pragma once
// ChannelFilters: the hard exclusions of SPEC §3.4, one (channel, model) at a time. A channel
// either passes or is dropped with the first reason that applies, in this order: disabled, tier,
// provider.only, provider.ignore, max_price, quantizations, require_parameters, data_collection,
// zdr, enforce_distillable_text.
//
// Thread: any; pure functions.
#include "routing/ChannelSelector.h"
#include "routing/ProviderNames.h"
#include "routing/RouteTable.h"

#include <QString>
#include <optional>

namespace sy::routing {

// The request parameters `require_parameters` checks: the OpenAI / OpenRouter vocabulary of
// sampling, output-shape and tool controls that a channel lists in `supported_parameters`.
// Everything else in a body (model, messages, stream, provider, models, user, metadata, …) is
// about the gateway or the transport, not about what the upstream model must support, and is
// never checked. Callers pass canonical (OpenAI-named) top-level fields.
const QStringList &knownLlmParameters();
bool isKnownLlmParameter(const QString &name);

// True when `name` (from provider.order / only / ignore) designates `channel`: its provider slug
// or its channel id, compared case-insensitively.
bool providerNameMatches(const config::Channel &channel, const QString &name);

// Why `channel` must not serve `served` for this request, or nullopt when it may.
std::optional<QString> rejectionReason(const config::Channel &channel, const config::ChannelModel &served,
                                       const SelectionRequest &request);
// What the filters read from one request, prepared once per selection: the provider.only /
// ignore / order names folded (ProviderNames), and the max_price limits as the reasons write
// them, formatted on the first drop that needs them.
// Thread: one thread; lives for one selection and must not outlive `request`.
class RequestFilters {
public:
    explicit RequestFilters(const SelectionRequest &request);

    const SelectionRequest &request() const { return m_request; }
    const std::vector<FoldedName> &only() const { return m_only; }
    const std::vector<FoldedName> &ignore() const { return m_ignore; }
    const std::vector<FoldedName> &order() const { return m_order; }
    const QString &maxPromptText() const;
    const QString &maxCompletionText() const;

private:
    const SelectionRequest &m_request;
    std::vector<FoldedName> m_only, m_ignore, m_order;
    mutable QString m_maxPromptText, m_maxCompletionText;   // null until first needed
};

// The same for a channel found through a RouteTable (`route` names `channel` and `served`,
// `names` are the table's names of `channel`): the same reasons, from the facts the table and
// `filters` prepared.
std::optional<QString> rejectionReason(const config::Channel &channel, const config::ChannelModel &served,
                                       const Route &route, const ChannelNames &names, const RequestFilters &filters);

} // namespace sy::routing
