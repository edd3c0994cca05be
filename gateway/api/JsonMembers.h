#pragma once
// JsonMembers: the top-level members of a JSON object found in place, so the gateway can rewrite
// a field of a request or response (the model id, a routing field) by copying the rest of the
// text unchanged instead of parsing and re-serialising the whole document. Nested values are
// only skipped over: strings and brackets are matched, nothing else is checked inside them.
#include <QByteArray>
#include <QByteArrayView>
#include <optional>
#include <vector>

namespace sy::api {

struct JsonMember {
    QByteArrayView key;          // raw key text between the quotes (escapes not decoded)
    qsizetype begin = 0;         // offset of the key's opening quote
    qsizetype valueBegin = 0;    // offset of the value's first byte
    qsizetype valueEnd = 0;      // one past the value's last byte
};

// The members of the object `json`, in order; nullopt when `json` is not an object or is cut
// short. Keys containing escapes are reported as written.
std::optional<std::vector<JsonMember>> topLevelMembers(QByteArrayView json);

// A JSON string literal for `text` (quotes included).
QByteArray jsonString(QByteArrayView utf8);

// One edit of a top-level member: replace its value, or drop the member (value empty).
struct JsonEdit {
    QByteArrayView key;
    QByteArray value;            // raw JSON text; empty = remove the member
};

// `json` with the edits applied to every member of that key (JSON keeps duplicates; parsers take
// the last) and `appended` members ("\"key\":value" texts) added at the end. `members` must be
// topLevelMembers(json).
QByteArray rewriteMembers(QByteArrayView json, const std::vector<JsonMember> &members,
                          const std::vector<JsonEdit> &edits, const std::vector<QByteArray> &appended = {});

// The value text of `member` in `json`.
inline QByteArrayView memberValue(QByteArrayView json, const JsonMember &member)
{
    return json.sliced(member.valueBegin, member.valueEnd - member.valueBegin);
}

// True when a key is written with escapes ("mod\u0065l" is "model"): such bodies are left to a
// full parser, since in-place edits match keys as written.
bool hasEscapedKey(const std::vector<JsonMember> &members);

// A JSON array with at least one element, judged from its text ("[ ]" is empty).
bool isNonEmptyArray(QByteArrayView value);

// The member `key` of `members`, or nullptr (the last one when repeated).
const JsonMember *findMember(const std::vector<JsonMember> &members, QByteArrayView key);

// A member's value as a token count the way upstreams write one: "0" or digits without a
// leading zero, exact in a double; nullopt for anything else (a full parse reads it then).
std::optional<qint64> plainCount(QByteArrayView value);

} // namespace sy::api
