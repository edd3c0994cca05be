// The hard exclusions of SPEC §3.4. Reasons are short, stable English phrases naming the
// `provider` field that caused the drop, so the route trace reads like the request.
#include "routing/ChannelFilters.h"

#include <QStringBuilder>
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

std::optional<QString> tierReason(ChannelTier tier, const SelectionRequest &request)
{
    if (tier == ChannelTier::Priority && !request.admitPriority)
        return QStringLiteral("priority tier is admitted only with :nitro");
    if (tier == ChannelTier::Flex && !request.admitFlex)
        return QStringLiteral("flex tier is admitted only with :floor");
    return std::nullopt;
}

QString priceText(double price)
{
    return QStringLiteral("%1").arg(price);
}

// The served prices and the limits as the reasons write them, when they were prepared (a
// RouteTable and RequestFilters); null pointers format them here.
struct PriceTexts {
    const QString *prompt = nullptr;
    const QString *completion = nullptr;
    const RequestFilters *filters = nullptr;
};

std::optional<QString> maxPriceReason(const config::ChannelModel &served, const ProviderPreferences &prefs,
                                      const PriceTexts &texts)
{
    if (!prefs.maxPrice)
        return std::nullopt;
    // The limit itself is allowed: only a price strictly above it is dropped. Reasons are joined
    // in one allocation (QStringBuilder); arg() would parse its pattern for every dropped channel.
    if (prefs.maxPriceHasPrompt && served.price.prompt > prefs.maxPrice->prompt)
        return QString(QLatin1String("prompt price ") % (texts.prompt ? *texts.prompt : priceText(served.price.prompt))
                       % QLatin1String(" above max_price.prompt ")
                       % (texts.filters ? texts.filters->maxPromptText() : priceText(prefs.maxPrice->prompt)));
    if (prefs.maxPriceHasCompletion && served.price.completion > prefs.maxPrice->completion)
        return QString(QLatin1String("completion price ")
                       % (texts.completion ? *texts.completion : priceText(served.price.completion))
                       % QLatin1String(" above max_price.completion ")
                       % (texts.filters ? texts.filters->maxCompletionText() : priceText(prefs.maxPrice->completion)));
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

// `onlyMatches()` / `ignoreMatches()`: whether a name of provider.only / ignore designates the
// channel (asked only when that list is given).
template <class OnlyMatches, class IgnoreMatches>
std::optional<QString> rejectionReasonOf(const config::Channel &channel, const config::ChannelModel &served,
                                         ChannelTier tier, const PriceTexts &texts, const SelectionRequest &request,
                                         OnlyMatches onlyMatches, IgnoreMatches ignoreMatches)
{
    const ProviderPreferences &prefs = request.preferences;
    if (!channel.enabled)
        return QStringLiteral("channel disabled");
    if (auto reason = tierReason(tier, request))
        return reason;
    // `only` wins over `ignore`: when `only` is given it alone decides, so a channel named in
    // both lists is kept.
    if (!prefs.only.isEmpty()) {
        if (!onlyMatches())
            return QStringLiteral("not in provider.only");
    } else if (!prefs.ignore.isEmpty() && ignoreMatches()) {
        return QStringLiteral("ignored by provider.ignore");
    }
    if (auto reason = maxPriceReason(served, prefs, texts))
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
    const auto matchesAny = [&](const QStringList &names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const QString &name) { return providerNameMatches(channel, name); });
    };
    const ProviderPreferences &prefs = request.preferences;
    return rejectionReasonOf(
        channel, served, tierOf(channel), PriceTexts{}, request,
        [&] { return matchesAny(prefs.only); }, [&] { return matchesAny(prefs.ignore); });
}

RequestFilters::RequestFilters(const SelectionRequest &request)
    : m_request(request)
    , m_only(foldedNames(request.preferences.only))
    , m_ignore(foldedNames(request.preferences.ignore))
    , m_order(foldedNames(request.preferences.order))
{
}

const QString &RequestFilters::maxPromptText() const
{
    if (m_maxPromptText.isNull() && m_request.preferences.maxPrice)
        m_maxPromptText = priceText(m_request.preferences.maxPrice->prompt);
    return m_maxPromptText;
}

const QString &RequestFilters::maxCompletionText() const
{
    if (m_maxCompletionText.isNull() && m_request.preferences.maxPrice)
        m_maxCompletionText = priceText(m_request.preferences.maxPrice->completion);
    return m_maxCompletionText;
}

std::optional<QString> rejectionReason(const config::Channel &channel, const config::ChannelModel &served,
                                       const Route &route, const ChannelNames &names, const RequestFilters &filters)
{
    const PriceTexts texts{&route.promptPriceText, &route.completionPriceText, &filters};
    const auto onlyMatches = [&] { return anyNameMatches(names, filters.only()); };
    const auto ignoreMatches = [&] { return anyNameMatches(names, filters.ignore()); };
    return rejectionReasonOf(channel, served, route.tier, texts, filters.request(), onlyMatches, ignoreMatches);
}

} // namespace sy::routing
