#include "billing/Money.h"

#include <QtNumeric>

#include <cmath>
#include <limits>

namespace sy::billing {

namespace {
constexpr Nanos kMax = std::numeric_limits<Nanos>::max();
constexpr Nanos kMin = std::numeric_limits<Nanos>::min();
} // namespace

Nanos fromCurrency(double amount)
{
    if (std::isnan(amount))
        return 0;
    const double nanos = std::round(amount * double(kNanosPerUnit));
    // 2^63 is exactly representable as a double; anything at or past it saturates.
    if (nanos >= 9223372036854775808.0)
        return kMax;
    if (nanos <= -9223372036854775808.0)
        return kMin;
    return Nanos(nanos);
}

double toCurrency(Nanos amount)
{
    // Whole units and the fraction apart, so amounts past 2^53 nanos keep their fraction's digits.
    return double(amount / kNanosPerUnit) + double(amount % kNanosPerUnit) / double(kNanosPerUnit);
}

QString formatCurrency(Nanos amount, int decimals)
{
    decimals = qBound(0, decimals, 9);
    const bool negative = amount < 0;
    // Work on the magnitude as unsigned so kMin has one.
    quint64 magnitude = negative ? quint64(0) - quint64(amount) : quint64(amount);

    quint64 step = 1;  // nanos per last printed digit
    for (int i = decimals; i < 9; ++i)
        step *= 10;
    quint64 scaled = magnitude / step;
    if (magnitude % step >= (step + 1) / 2 && step > 1)
        ++scaled;  // half away from zero

    const quint64 digitsPerUnit = quint64(kNanosPerUnit) / step;
    const quint64 whole = scaled / digitsPerUnit;
    const quint64 fraction = scaled % digitsPerUnit;

    QString text;
    if (negative && scaled != 0)
        text += QLatin1Char('-');
    text += QString::number(whole);
    if (decimals > 0)
        text += QLatin1Char('.') + QString::number(fraction).rightJustified(decimals, QLatin1Char('0'));
    return text;
}

Nanos addSaturating(Nanos a, Nanos b)
{
    Nanos sum = 0;
    if (qAddOverflow(a, b, &sum))
        return b > 0 ? kMax : kMin;
    return sum;
}

} // namespace sy::billing
