// The hard exclusions of SPEC §3.4. Reasons are short, stable English phrases naming the
// `provider` field that caused the drop, so the route trace reads like the request.
#include "routing/ChannelFilters.h"

#include <algorithm>

namespace sy::routing {

const QStringList &knownLlmParameters()
{
    static const QStringList names = {
        // tools and output shape
        QStringLiteral("tools"), QStringLiteral("tool_choice"), QStringLiteral("parallel_tool_calls"),
        QStringLiteral("response_format"), QStringLiteral("structured_outputs"),
        // sampling
        QStringLiteral("temperature"), QStringLiteral("top_p"), QStringLiteral("top_k"),
        QStringLiteral("min_p"), QStringLiteral("top_a"), QStringLiteral("seed"),
        QStringLiteral("frequency_penalty"), QStringLiteral("presence_penalty"),
        QStringLiteral("repetition_penalty"), QStringLiteral("logit_bias"),
        // length and stopping
        QStringLiteral("max_tokens"), QStringLiteral("max_completion_tokens"), QStringLiteral("stop"),
        // log probabilities
        QStringLiteral("logprobs"), QStringLiteral("top_logprobs"),
        // reasoning and search
        QStringLiteral("reasoning"), QStringLiteral("reasoning_effort"), QStringLiteral("include_reasoning"),
        QStringLiteral("verbosity"), QStringLiteral("web_search_options"),
    };
    return names;
}

bool isKnownLlmParameter(const QString &name)
{
    return knownLlmParameters().contains(name);
}

bool providerNameMatches(const config::Channel &channel, const QString &name)
{
    return channel.provider.compare(name, Qt::CaseInsensitive) == 0
        || channel.id.compare(name, Qt::CaseInsensitive) == 0;
}

namespace {

bool anyNameMatches(const config::Channel &channel, const QStringList &names)
{
    return std::any_of(names.begin(), names.end(),
                       [&](const QString &name) { return providerNameMatches(channel, name); });
}

std::optional<QString> tierReason(ChannelTier tier, const SelectionRequest &request)
{
    if (tier == ChannelTier::Priority && !request.admitPriority)
        return QStringLiteral("priority tier is admitted only with :nitro");
    if (tier == ChannelTier::Flex && !request.admitFlex)
        return QStringLiteral("flex tier is admitted only with :floor");
    return std::nullopt;
}

// `promptText` / `completionText`: the served prices already formatted (RouteTable), or null to
// format them here.
std::optional<QString> maxPriceReason(const config::ChannelModel &served, const ProviderPreferences &prefs,
                                      const QString *promptText, const QString *completionText)
{
    if (!prefs.maxPrice)
        return std::nullopt;
    // The limit itself is allowed: only a price strictly above it is dropped.
    if (prefs.maxPriceHasPrompt && served.price.prompt > prefs.maxPrice->prompt)
        return QStringLiteral("prompt price %1 above max_price.prompt %2")
            .arg(promptText ? *promptText : QStringLiteral("%1").arg(served.price.prompt),
                 QStringLiteral("%1").arg(prefs.maxPrice->prompt));
    if (prefs.maxPriceHasCompletion && served.price.completion > prefs.maxPrice->completion)
        return QStringLiteral("completion price %1 above max_price.completion %2")
            .arg(completionText ? *completionText : QStringLiteral("%1").arg(served.price.completion),
                 QStringLiteral("%1").arg(prefs.maxPrice->completion));
    return std::nullopt;
}

std::optional<QString> quantizationReason(const config::Channel &channel, const ProviderPreferences &prefs)
{
    if (prefs.quantizations.isEmpty())
        return std::nullopt;
    // A channel whose quantization is not configured counts as "unknown" (the OpenRouter value
    // for it), so a request can admit such channels by listing "unknown".
    const QString quantization = channel.quantization.isEmpty() ? QStringLiteral("unknown") : channel.quantization;
    if (prefs.quantizations.contains(quantization, Qt::CaseInsensitive))
        return std::nullopt;
    return QStringLiteral("quantization %1 not in provider.quantizations").arg(quantization);
}

std::optional<QString> parametersReason(const config::Channel &channel, const SelectionRequest &request)
{
    if (!request.preferences.requireParameters)
        return std::nullopt;
    // Sorted so the reason is the same on every run (QSet iteration order is not).
    QStringList missing;
    for (const QString &name : request.requestParameters) {
        if (isKnownLlmParameter(name) && !channel.supportedParameters.contains(name))
            missing.append(name);
    }
    if (missing.isEmpty())
        return std::nullopt;
    missing.sort();
    return QStringLiteral("does not support %1 (require_parameters)").arg(missing.join(QStringLiteral(", ")));
}

std::optional<QString> rejectionReasonOf(const config::Channel &channel, const config::ChannelModel &served,
                                         ChannelTier tier, const QString *promptText, const QString *completionText,
                                         const SelectionRequest &request)
{
    const ProviderPreferences &prefs = request.preferences;
    if (!channel.enabled)
        return QStringLiteral("channel disabled");
    if (auto reason = tierReason(tier, request))
        return reason;
    // `only` wins over `ignore`: when `only` is given it alone decides, so a channel named in
    // both lists is kept.
    if (!prefs.only.isEmpty()) {
        if (!anyNameMatches(channel, prefs.only))
            return QStringLiteral("not in provider.only");
    } else if (anyNameMatches(channel, prefs.ignore)) {
        return QStringLiteral("ignored by provider.ignore");
    }
    if (auto reason = maxPriceReason(served, prefs, promptText, completionText))
        return reason;
    if (auto reason = quantizationReason(channel, prefs))
        return reason;
    if (auto reason = parametersReason(channel, request))
        return reason;
    if (prefs.denyDataCollection && channel.dataCollection != QLatin1String("deny"))
        return QStringLiteral("may collect data (data_collection: deny)");
    if (prefs.zdr && !channel.zdr)
        return QStringLiteral("no zero data retention (zdr)");
    if (prefs.enforceDistillableText && !channel.distillable)
        return QStringLiteral("not distillable (enforce_distillable_text)");
    return std::nullopt;
}

} // namespace

std::optional<QString> rejectionReason(const config::Channel &channel, const config::ChannelModel &served,
                                       const SelectionRequest &request)
{
    return rejectionReasonOf(channel, served, tierOf(channel), nullptr, nullptr, request);
}

std::optional<QString> rejectionReason(const config::Channel &channel, const config::ChannelModel &served,
                                       const Route &route, const SelectionRequest &request)
{
    return rejectionReasonOf(channel, served, route.tier, &route.promptPriceText, &route.completionPriceText,
                             request);
}

} // namespace sy::routing
