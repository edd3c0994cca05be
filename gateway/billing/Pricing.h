#pragma once
// What a request costs (SPEC §8): usage × the answering channel's price, in exact nanos.
//
// Rounding, once per side: a price per 1M tokens is converted to nanos per 1M tokens once
// (fromCurrency: round to the nearest nano), then a side costs tokens × that / 1'000'000 with
// integer arithmetic, rounded to the nearest nano with halves up. So 1 token at 0.27 per 1M is
// exactly 270 nanos, and a request's charge is the sum of its two rounded sides. Negative token
// counts or prices count as zero (a charge is never a credit); results saturate at the Nanos range.
//
// Thread: free functions without state; any thread.
#include "billing/Money.h"
#include "config/Config.h"

#include <optional>
#include <span>

namespace sy::billing {

// Output tokens reserved for a request that names no max_completion_tokens / max_tokens.
// Only the reservation uses it; the charge is always the actual usage.
inline constexpr qint64 kDefaultMaxOutputTokens = 1024;
// Prompt tokens are estimated as characters / 4, rounded up.
inline constexpr qint64 kCharactersPerToken = 4;

// Cost of `tokens` at `pricePerMillionTokens` (currency per 1M tokens), rounded as above.
Nanos chargeForTokens(qint64 tokens, double pricePerMillionTokens);

// Cost of a request's usage at a channel's price: prompt side + completion side.
Nanos chargeFor(qint64 promptTokens, qint64 completionTokens, const config::Price &price);

// Upper estimate for the reservation at admission: (ceil(promptCharacters / 4) + max output
// tokens) at `highestPrice`. `maxOutputTokens` is the request's max_completion_tokens /
// max_tokens; absent or not positive → kDefaultMaxOutputTokens.
Nanos estimateCharge(qint64 promptCharacters, std::optional<qint64> maxOutputTokens,
                     const config::Price &highestPrice);

// The most expensive of the candidates' prices, side by side (the highest prompt price and the
// highest completion price, possibly from different candidates), so the estimate is an upper
// bound whichever candidate answers. No candidates → a zero price.
config::Price highestPrice(std::span<const config::Price> candidates);

} // namespace sy::billing
