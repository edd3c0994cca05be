#pragma once
// Exact money for the ledger (SPEC §8). Amounts are integer nano-units of the workspace currency
// (1 Nanos = 1e-9 currency), so sums and comparisons never drift. Doubles appear only at the
// edges: configuration values are rounded once, at conversion, to the nearest nano, and
// toCurrency() is for display and metrics only.
//
// Range: a qint64 of nanos holds about ±9.2e9 currency; conversions and the sums below saturate
// at that range instead of wrapping.
//
// Thread: free functions without state; any thread.
#include <QString>
#include <QtGlobal>

namespace sy::billing {

using Nanos = qint64;

inline constexpr Nanos kNanosPerUnit = 1'000'000'000;

// Decimal currency → nanos, rounded once to the nearest nano (halves away from zero).
// NaN gives 0; values past the range saturate.
Nanos fromCurrency(double amount);

// Nanos → decimal currency. Approximate (a double); never feed it back into the ledger.
double toCurrency(Nanos amount);

// Exact decimal text, rounded to `decimals` places (0..9, clamped) with halves away from zero,
// e.g. formatCurrency(-1'500'000) == "-0.001500". A value that rounds to zero has no minus sign.
QString formatCurrency(Nanos amount, int decimals = 6);

// a + b, clamped to the qint64 range (a reservation total must never wrap to a credit).
Nanos addSaturating(Nanos a, Nanos b);

} // namespace sy::billing
