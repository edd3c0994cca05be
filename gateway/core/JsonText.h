#pragma once
// Appending JSON text by hand, byte for byte as QJsonDocument::toJson(Compact) writes it.
// Building a QJsonObject only to serialise it costs an allocation per key and value plus a sort;
// the request log writes one record per request, so its JSON is written directly instead.
// Whatever is not on a fast path (strings with surrogates, non-UTC times) falls back to Qt's own
// writer, so the text never differs from it (tests/unit/core/JsonTextTest compares the two).
#include <QByteArray>
#include <QDateTime>
#include <QStringView>
#include <cstring>

namespace sy::json {

// `n` bytes at the end of `out`: one resize and a copy. QByteArray::append() goes through
// insert()'s general path (about a hundred instructions a call), and the writers here append
// many short pieces.
inline void appendRaw(QByteArray &out, const char *bytes, qsizetype n)
{
    const qsizetype at = out.size();
    out.resize(at + n);
    std::memcpy(out.data() + at, bytes, size_t(n));
}
template <qsizetype N>
inline void appendLiteral(QByteArray &out, const char (&text)[N])
{
    appendRaw(out, text, N - 1);
}

// `s` as a JSON string literal (quotes included), as QJsonDocument writes it (UTF-8).
void appendString(QByteArray &out, QStringView s);
// `s` as a JSON string literal kept in printable ASCII for an HTTP header value: what
// appendString writes, with every UTF-16 unit outside 0x20..0x7e written as \uXXXX.
void appendHeaderString(QByteArray &out, QStringView s);
// A number as QJsonValue(double) is written: integral values without a fraction.
void appendNumber(QByteArray &out, double value);
inline void appendBool(QByteArray &out, bool value)
{
    if (value)
        appendLiteral(out, "true");
    else
        appendLiteral(out, "false");
}
// `at.toString(Qt::ISODateWithMs)` as a JSON string.
void appendIsoDateWithMs(QByteArray &out, const QDateTime &at);
// `at.toString(Qt::ISODateWithMs)` as UTF-8, unquoted, when `at` is a UTC time in years 1..9999;
// otherwise false, and nothing is written.
bool appendUtcIsoDateWithMs(QByteArray &out, const QDateTime &at);

} // namespace sy::json
