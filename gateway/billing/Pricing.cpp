#include "billing/Pricing.h"

#include <QtNumeric>

#include <algorithm>
#include <limits>

namespace sy::billing {

namespace {
constexpr qint64 kTokensPerPrice = 1'000'000;  // prices are per 1M tokens
} // namespace

Nanos chargeForTokens(qint64 tokens, double pricePerMillionTokens)
{
    const Nanos perMillion = fromCurrency(pricePerMillionTokens);
    if (tokens <= 0 || perMillion <= 0)
        return 0;
    // tokens × perMillion / 1e6 without overflowing the intermediate product: whole millions of
    // tokens cost exactly perMillion each; the remainder (< 1e6 tokens) is rounded. The remainder
    // product stays below 1e6 × perMillion, which fits while perMillion < 9.2e12 (9 200 currency
    // per 1M tokens); dearer prices are computed in long double and saturate.
    const qint64 millions = tokens / kTokensPerPrice;
    const qint64 rest = tokens % kTokensPerPrice;
    Nanos wholePart = 0;
    Nanos restProduct = 0;
    if (qMulOverflow(millions, perMillion, &wholePart) || qMulOverflow(rest, perMillion, &restProduct)) {
        const long double exact = (long double)tokens * (long double)perMillion / kTokensPerPrice;
        return exact >= (long double)std::numeric_limits<Nanos>::max() ? std::numeric_limits<Nanos>::max()
                                                                       : Nanos(exact + 0.5L);
    }
    const Nanos restPart = (restProduct + kTokensPerPrice / 2) / kTokensPerPrice;  // halves up
    return addSaturating(wholePart, restPart);
}

Nanos chargeFor(qint64 promptTokens, qint64 completionTokens, const config::Price &price)
{
    return addSaturating(chargeForTokens(promptTokens, price.prompt),
                         chargeForTokens(completionTokens, price.completion));
}

Nanos estimateCharge(qint64 promptCharacters, std::optional<qint64> maxOutputTokens,
                     const config::Price &highestPrice)
{
    const qint64 characters = std::max<qint64>(promptCharacters, 0);
    const qint64 promptTokens = characters / kCharactersPerToken + (characters % kCharactersPerToken != 0 ? 1 : 0);
    const qint64 outputTokens =
        maxOutputTokens && *maxOutputTokens > 0 ? *maxOutputTokens : kDefaultMaxOutputTokens;
    return chargeFor(promptTokens, outputTokens, highestPrice);
}

config::Price highestPrice(std::span<const config::Price> candidates)
{
    config::Price highest;
    for (const config::Price &price : candidates) {
        highest.prompt = std::max(highest.prompt, price.prompt);
        highest.completion = std::max(highest.completion, price.completion);
    }
    return highest;
}

} // namespace sy::billing
