#include "api/JsonMembers.h"

#include "core/JsonText.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace sy::api {

namespace {

qsizetype skipSpace(QByteArrayView s, qsizetype i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
    return i;
}

// Past the string starting at s[i] == '"'; -1 when unterminated. memchr finds each candidate
// quote; it ends the string when the run of backslashes right before it is even (the run cannot
// start inside an escape: the character before it is no backslash, and the opening quote bounds it).
qsizetype skipString(QByteArrayView s, qsizetype i)
{
    const char *const data = s.data();
    const char *p = data + i + 1;
    const char *const end = data + s.size();
    while (p < end) {
        const auto *quote = static_cast<const char *>(std::memchr(p, '"', size_t(end - p)));
        if (!quote)
            return -1;
        const char *back = quote;
        while (back[-1] == '\\')
            --back;
        if ((quote - back) % 2 == 0)
            return quote + 1 - data;
        p = quote + 1;
    }
    return -1;
}

// The bytes a container's scan stops at; everything else is skipped in a tight loop.
constexpr std::array<bool, 256> kStructural = [] {
    std::array<bool, 256> table{};
    for (const unsigned char c : {'"', '{', '}', '[', ']'})
        table[c] = true;
    return table;
}();

// Past the value starting at s[i]; -1 when malformed or cut short.
qsizetype skipValue(QByteArrayView s, qsizetype i)
{
    if (i >= s.size())
        return -1;
    if (s[i] == '"')
        return skipString(s, i);
    if (s[i] == '{' || s[i] == '[') {
        const char *const data = s.data();
        const qsizetype n = s.size();
        int depth = 0;
        for (; i < n; ++i) {
            while (i < n && !kStructural[static_cast<unsigned char>(data[i])])
                ++i;
            if (i == n)
                break;
            const char c = data[i];
            if (c == '"') {
                i = skipString(s, i);
                if (i < 0)
                    return -1;
                --i;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (--depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }
    // A number or a literal: up to the next delimiter.
    const qsizetype start = i;
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n'
           && s[i] != '\r' && s[i] != '\t')
        ++i;
    return i > start ? i : -1;
}

} // namespace

std::optional<std::vector<JsonMember>> topLevelMembers(QByteArrayView json)
{
    std::vector<JsonMember> members;
    // Request and answer bodies have about a dozen members: one allocation, not five growths.
    members.reserve(16);
    qsizetype i = skipSpace(json, 0);
    if (i >= json.size() || json[i] != '{')
        return std::nullopt;
    i = skipSpace(json, i + 1);
    if (i < json.size() && json[i] == '}')
        return skipSpace(json, i + 1) == json.size() ? std::optional(std::move(members)) : std::nullopt;
    while (i < json.size()) {
        if (json[i] != '"')
            return std::nullopt;
        JsonMember m;
        m.begin = i;
        const qsizetype keyEnd = skipString(json, i);
        if (keyEnd < 0)
            return std::nullopt;
        m.key = json.sliced(i + 1, keyEnd - i - 2);
        i = skipSpace(json, keyEnd);
        if (i >= json.size() || json[i] != ':')
            return std::nullopt;
        m.valueBegin = skipSpace(json, i + 1);
        m.valueEnd = skipValue(json, m.valueBegin);
        if (m.valueEnd < 0)
            return std::nullopt;
        members.push_back(m);
        i = skipSpace(json, m.valueEnd);
        if (i >= json.size())
            return std::nullopt;
        if (json[i] == '}')
            return skipSpace(json, i + 1) == json.size() ? std::optional(std::move(members)) : std::nullopt;
        if (json[i] != ',')
            return std::nullopt;
        i = skipSpace(json, i + 1);
    }
    return std::nullopt;
}

QByteArray jsonString(QByteArrayView utf8)
{
    QByteArray out;
    // Model ids and the like need no escapes: one copy.
    const bool plain = std::none_of(utf8.begin(), utf8.end(), [](char c) {
        return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
    });
    if (plain) {
        out.reserve(utf8.size() + 2);
        out.append('"').append(utf8).append('"');
        return out;
    }
    out.reserve(utf8.size() + 8);
    out += '"';
    for (const char c : utf8) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += "\\u00" + QByteArray::number(static_cast<unsigned char>(c), 16).rightJustified(2, '0');
            else
                out += c;
        }
    }
    out += '"';
    return out;
}

const JsonMember *findMember(const std::vector<JsonMember> &members, QByteArrayView key)
{
    const JsonMember *found = nullptr;
    for (const JsonMember &m : members) {
        if (m.key == key)
            found = &m;
    }
    return found;
}

QByteArray rewriteMembers(QByteArrayView json, const std::vector<JsonMember> &members,
                          const std::vector<JsonEdit> &edits, const std::vector<QByteArray> &appended)
{
    // The text is written as members joined by single commas. Members the source already joins
    // that way (compact JSON, the common case) are copied as one run of the source, up to the
    // next edit: a stream chunk is a few copies instead of two per member (every piece a
    // QByteArray append, about a hundred instructions each).
    QByteArray out;
    out.reserve(json.size() + 64);
    json::appendLiteral(out, "{");
    bool first = true;
    qsizetype runBegin = -1;   // the source run to be copied: [runBegin, runEnd)
    qsizetype runEnd = -1;
    auto flushRun = [&] {
        if (runBegin >= 0)
            json::appendRaw(out, json.data() + runBegin, runEnd - runBegin);
        runBegin = -1;
    };
    // Source bytes [from, to) of member text follow in the output.
    auto take = [&](qsizetype from, qsizetype to) {
        const bool joins = runBegin >= 0 && from == runEnd + 1 && json[runEnd] == ',';
        if (!joins) {
            flushRun();
            if (!first)
                json::appendLiteral(out, ",");
            runBegin = from;
        }
        first = false;
        runEnd = to;
    };
    for (const JsonMember &m : members) {
        const JsonEdit *edit = nullptr;
        for (const JsonEdit &e : edits) {
            if (e.key == m.key)
                edit = &e;
        }
        if (edit && edit->value.isEmpty())
            continue;
        if (!edit) {
            take(m.begin, m.valueEnd);
            continue;
        }
        take(m.begin, m.valueBegin);   // "key": as written
        flushRun();
        json::appendRaw(out, edit->value.constData(), edit->value.size());
    }
    flushRun();
    for (const QByteArray &member : appended) {
        if (!first)
            json::appendLiteral(out, ",");
        first = false;
        json::appendRaw(out, member.constData(), member.size());
    }
    json::appendLiteral(out, "}");
    return out;
}

bool hasEscapedKey(const std::vector<JsonMember> &members)
{
    for (const JsonMember &m : members) {
        if (m.key.contains('\\'))
            return true;
    }
    return false;
}

bool isNonEmptyArray(QByteArrayView value)
{
    if (value.isEmpty() || value.front() != '[')
        return false;
    for (qsizetype i = 1; i < value.size(); ++i) {
        const char c = value[i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c != ']';
    }
    return false;
}

std::optional<qint64> plainCount(QByteArrayView value)
{
    if (value.isEmpty() || value.size() > 15 || (value.size() > 1 && value[0] == '0'))
        return std::nullopt;
    qint64 n = 0;
    for (const char c : value) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

} // namespace sy::api
