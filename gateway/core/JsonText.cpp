#include "core/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <cmath>

namespace sy::json {

namespace {

// Qt's own writer for one value: "[value]" minus the brackets.
void appendViaQt(QByteArray &out, const QJsonValue &value)
{
    const QByteArray text = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    out.append(text.constData() + 1, text.size() - 2);
}

// Printable ASCII without " and \ is written unchanged by every writer here.
bool isPlain(QStringView s)
{
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u > 0x7e || u == '"' || u == '\\')
            return false;
    }
    return true;
}

void appendLatin1(QByteArray &out, QStringView s)
{
    const qsizetype at = out.size();
    out.resize(at + s.size());
    char *dst = out.data() + at;
    for (const QChar c : s)
        *dst++ = char(c.unicode());
}

void appendDigits(char *dst, int value, int width)
{
    for (int i = width - 1; i >= 0; --i, value /= 10)
        dst[i] = char('0' + value % 10);
}

} // namespace

void appendString(QByteArray &out, QStringView s)
{
    // Qt's escapes: \" \\ \b \f \n \r \t, other controls as \u00xx; everything else as UTF-8.
    // Surrogates (rare: pairs, or lone ones that Qt escapes) go through Qt itself.
    static constexpr char kHex[] = "0123456789abcdef";
    const qsizetype start = out.size();
    out.resize(start + 2 + 6 * s.size());  // the longest form of a unit is \u00xx or 3 bytes
    char *dst = out.data() + start;
    *dst++ = '"';
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        if (u >= 0x20 && u < 0x80 && u != '"' && u != '\\') {
            *dst++ = char(u);
        } else if (u < 0x80) {
            *dst++ = '\\';
            switch (u) {
            case '"': *dst++ = '"'; break;
            case '\\': *dst++ = '\\'; break;
            case 0x08: *dst++ = 'b'; break;
            case 0x0c: *dst++ = 'f'; break;
            case 0x0a: *dst++ = 'n'; break;
            case 0x0d: *dst++ = 'r'; break;
            case 0x09: *dst++ = 't'; break;
            default:
                *dst++ = 'u';
                *dst++ = '0';
                *dst++ = '0';
                *dst++ = kHex[u >> 4];
                *dst++ = kHex[u & 0xf];
            }
        } else if (u < 0x800) {
            *dst++ = char(0xc0 | (u >> 6));
            *dst++ = char(0x80 | (u & 0x3f));
        } else if (u < 0xd800 || u > 0xdfff) {
            *dst++ = char(0xe0 | (u >> 12));
            *dst++ = char(0x80 | ((u >> 6) & 0x3f));
            *dst++ = char(0x80 | (u & 0x3f));
        } else {
            out.truncate(start);
            appendViaQt(out, QJsonValue(s.toString()));
            return;
        }
    }
    *dst++ = '"';
    out.truncate(dst - out.constData());
}

void appendHeaderString(QByteArray &out, QStringView s)
{
    if (isPlain(s)) {
        appendLiteral(out, "\"");
        appendLatin1(out, s);
        appendLiteral(out, "\"");
        return;
    }
    // Qt's escapes for control characters, quote and backslash; then every unit outside
    // printable ASCII (UTF-8 decoded back, so one escape per UTF-16 unit, 0x7f included).
    QByteArray json;
    appendViaQt(json, QJsonValue(s.toString()));
    for (const QChar c : QString::fromUtf8(json)) {
        if (c.unicode() < 0x20 || c.unicode() > 0x7e)
            out += "\\u" + QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
        else
            out += char(c.unicode());
    }
}

void appendNumber(QByteArray &out, double value)
{
    // Integral values below 2^53 are written as integers by Qt; everything else goes through it.
    if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 9007199254740992.0
        && !(value == 0 && std::signbit(value))) {
        // Formatted in place: QByteArray::number() would allocate a temporary per value.
        char digits[24];
        char *end = digits + sizeof digits;
        char *p = end;
        const bool negative = value < 0;
        quint64 n = quint64(negative ? -qint64(value) : qint64(value));
        do {
            *--p = char('0' + n % 10);
            n /= 10;
        } while (n);
        if (negative)
            *--p = '-';
        appendRaw(out, p, end - p);
        return;
    }
    // What Qt's writer does with a double (qjsonwriter.cpp): the shortest 'g' form that reads
    // back the same, "null" for what JSON cannot hold. Without the QJsonArray and QJsonDocument
    // built around one value only to cut the brackets off again (3.7 k instructions a number).
    if (!std::isfinite(value)) {
        appendLiteral(out, "null");
        return;
    }
    out += QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
}

namespace {

// yyyy-MM-ddTHH:mm:ss.zzzZ into dst (24 bytes) when `at` is on the fast path: UTC, years 1..9999.
bool formatUtcIso(char *dst, const QDateTime &at)
{
    if (!at.isValid() || at.timeSpec() != Qt::UTC)
        return false;
    const QDate d = at.date();
    const QTime t = at.time();
    if (d.year() < 1 || d.year() > 9999)
        return false;
    appendDigits(dst, d.year(), 4);
    dst[4] = '-';
    appendDigits(dst + 5, d.month(), 2);
    dst[7] = '-';
    appendDigits(dst + 8, d.day(), 2);
    dst[10] = 'T';
    appendDigits(dst + 11, t.hour(), 2);
    dst[13] = ':';
    appendDigits(dst + 14, t.minute(), 2);
    dst[16] = ':';
    appendDigits(dst + 17, t.second(), 2);
    dst[19] = '.';
    appendDigits(dst + 20, t.msec(), 3);
    dst[23] = 'Z';
    return true;
}

} // namespace

void appendIsoDateWithMs(QByteArray &out, const QDateTime &at)
{
    char buf[26];
    if (formatUtcIso(buf + 1, at)) {
        buf[0] = '"';
        buf[25] = '"';
        appendRaw(out, buf, sizeof buf);
        return;
    }
    appendString(out, at.toString(Qt::ISODateWithMs));
}

bool appendUtcIsoDateWithMs(QByteArray &out, const QDateTime &at)
{
    char buf[24];
    if (!formatUtcIso(buf, at))
        return false;
    appendRaw(out, buf, sizeof buf);
    return true;
}

} // namespace sy::json
