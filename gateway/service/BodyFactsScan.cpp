// scanChatFacts(): BodyFacts of a Chat Completions body read with simdjson, without building a
// QJsonObject (a third of the chat handler's work before). Every rule here is the one factsOf()
// follows on the parsed object; where Qt's reading could differ, the scan gives up instead.
#include "service/BodyFacts.h"

#include "core/FastHash.h"

#include <simdjson.h>

#include <QJsonValue>
#include <array>
#include <string_view>

namespace sy::service {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// The largest body the thread's own parser is sized for (it may keep ~14 × this).
constexpr qsizetype kKeptParserBytes = 256 * 1024;

// Thrown out of the walk when the scan must leave the body to Qt.
struct GiveUp {};

// The member `key` of `o` as QJsonObject reads it: the last one when the key repeats.
std::optional<element> lastMember(const object &o, std::string_view key)
{
    std::optional<element> found;
    for (const auto field : o) {
        if (field.key == key)
            found = field.value;
    }
    return found;
}

QString qstring(std::string_view utf8)
{
    return QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
}

// UTF-16 units of valid UTF-8 (simdjson validated it): one per sequence, two for four bytes.
qint64 utf16Length(std::string_view utf8)
{
    qint64 units = 0;
    for (const char c : utf8) {
        const auto byte = static_cast<unsigned char>(c);
        units += (byte & 0xc0) != 0x80;
        units += byte >= 0xf0;
    }
    return units;
}

// Feeds the hash what routing::leadingTurnsDigest() feeds for the same value (see there).
class TurnHasher {
public:
    explicit TurnHasher(FastHash128 &hash)
        : m_hash(hash)
    {
    }

    void add(const element &value)
    {
        switch (value.type()) {
        case element_type::NULL_VALUE:
            tag(QJsonValue::Null);
            break;
        case element_type::BOOL:
            tag(QJsonValue::Bool);
            m_hash.addValue(quint8(bool(value.get_bool())));
            break;
        case element_type::INT64:
        case element_type::UINT64:
        case element_type::DOUBLE: {
            tag(QJsonValue::Double);
            const double number = double(value.get_double());
            m_hash.addValue(number == 0 ? 0.0 : number);
            break;
        }
        case element_type::STRING:
            tag(QJsonValue::String);
            addString(std::string_view(value.get_string()));
            break;
        case element_type::ARRAY: {
            tag(QJsonValue::Array);
            const simdjson::dom::array array = value.get_array();
            m_hash.addValue(qint64(array.size()));
            for (const element item : array)
                add(item);
            break;
        }
        case element_type::OBJECT:
            tag(QJsonValue::Object);
            addObject(value.get_object());
            break;
        }
    }

private:
    void tag(QJsonValue::Type type) { m_hash.addValue(quint8(type)); }

    // QJsonObject's order: keys sorted, a repeated key once with its last value. For ASCII keys
    // that is byte order; other keys are left to Qt.
    void addObject(const object &o)
    {
        std::vector<std::pair<std::string_view, element>> members;
        for (const auto field : o) {
            for (const char c : field.key) {
                if (static_cast<unsigned char>(c) >= 0x80)
                    throw GiveUp{};
            }
            members.emplace_back(field.key, field.value);
        }
        std::stable_sort(members.begin(), members.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        // After the stable sort a repeated key's last value ends its run: that one counts.
        const auto counts = [&members](std::size_t i) {
            return i + 1 == members.size() || members[i + 1].first != members[i].first;
        };
        qint64 size = 0;
        for (std::size_t i = 0; i < members.size(); ++i)
            size += counts(i);
        m_hash.addValue(size);
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (counts(i)) {
                addString(members[i].first);
                add(members[i].second);
            }
        }
    }

    // The string's UTF-16 length, then its units, decoded in pieces (the hash does not depend
    // on how its input is split).
    void addString(std::string_view utf8)
    {
        m_hash.addValue(utf16Length(utf8));
        std::array<char16_t, 256> units;
        std::size_t n = 0;
        const auto put = [&](char16_t unit) {
            units[n++] = unit;
            if (n == units.size()) {
                m_hash.add(units.data(), n * sizeof(char16_t));
                n = 0;
            }
        };
        for (std::size_t i = 0; i < utf8.size();) {
            const auto lead = static_cast<unsigned char>(utf8[i]);
            const int length = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
            char32_t code = length == 1 ? lead : lead & (0xff >> (length + 1));
            for (int k = 1; k < length; ++k)
                code = (code << 6) | (static_cast<unsigned char>(utf8[i + std::size_t(k)]) & 0x3f);
            i += std::size_t(length);
            if (code >= 0x10000) {
                code -= 0x10000;
                put(char16_t(0xd800 + (code >> 10)));
                put(char16_t(0xdc00 + (code & 0x3ff)));
            } else {
                put(char16_t(code));
            }
        }
        if (n)
            m_hash.add(units.data(), n * sizeof(char16_t));
    }

    FastHash128 &m_hash;
};

BodyFacts::Kind kindOf(const std::optional<element> &value, element_type wanted)
{
    if (!value)
        return BodyFacts::Kind::Absent;
    if (value->type() == element_type::NULL_VALUE)
        return BodyFacts::Kind::Null;
    return value->type() == wanted ? BodyFacts::Kind::Wanted : BodyFacts::Kind::Other;
}

std::string_view stringOf(const std::optional<element> &value)
{
    return value && value->type() == element_type::STRING ? std::string_view(value->get_string()) : std::string_view();
}

bool isNumber(const element &value)
{
    const element_type type = value.type();
    return type == element_type::INT64 || type == element_type::UINT64 || type == element_type::DOUBLE;
}

bool isImagePart(const element &part)
{
    if (part.type() != element_type::OBJECT)
        return false;
    const object o = part.get_object();
    const std::string_view type = stringOf(lastMember(o, "type"));
    if (type == "image_url" || type == "input_image" || type == "image")
        return true;
    for (const std::string_view member : {"inlineData", "inline_data", "fileData", "file_data"}) {
        const std::optional<element> data = lastMember(o, member);
        if (!data || data->type() != element_type::OBJECT)
            continue;
        const object d = data->get_object();
        const std::optional<element> mimeType = lastMember(d, "mimeType");
        const std::string_view mime = mimeType && mimeType->type() == element_type::STRING
            ? std::string_view(mimeType->get_string())
            : stringOf(lastMember(d, "mime_type"));
        if (mime.substr(0, 6) == "image/")
            return true;
    }
    return false;
}

// The parts of a turn factsOf() looks into: `content` when an array, else `parts`.
std::optional<simdjson::dom::array> partsOf(const object &turn)
{
    if (const std::optional<element> content = lastMember(turn, "content"); content && content->type() == element_type::ARRAY)
        return content->get_array();
    if (const std::optional<element> parts = lastMember(turn, "parts"); parts && parts->type() == element_type::ARRAY)
        return parts->get_array();
    return std::nullopt;
}

} // namespace

std::optional<BodyFacts> scanChatFacts(const QByteArray &raw)
{
    // One parser per thread keeps its buffers from one request to the next. They are sized at
    // about 14 bytes per byte of the largest body parsed (tape, structural indexes, strings; the
    // pages a body's tokens touch stay resident) and a parser never gives them back, so a larger
    // body gets a parser of its own, freed after it.
    thread_local simdjson::dom::parser kept;
    std::optional<simdjson::dom::parser> oneOff;
    simdjson::dom::parser *parser = &kept;
    if (raw.size() > kKeptParserBytes)
        parser = &oneOff.emplace();
    element document;
    if (parser->parse(raw.constData(), std::size_t(raw.size())).get(document) != simdjson::SUCCESS
        || document.type() != element_type::OBJECT)
        return std::nullopt;   // Qt's parser has the last word, and names the error
    const object top = document.get_object();

    // Repeated top-level keys: QJsonObject keeps the last, and the in-place rewrites edit all.
    // Rare enough to leave to Qt rather than to follow here.
    std::vector<std::string_view> keys;
    for (const auto field : top) {
        if (field.key == "provider")
            return std::nullopt;
        for (const std::string_view seen : keys) {
            if (seen == field.key)
                return std::nullopt;
        }
        keys.push_back(field.key);
    }

    BodyFacts facts;
    const std::optional<element> model = lastMember(top, "model");
    facts.model = kindOf(model, element_type::STRING);
    facts.modelText = qstring(stringOf(model));
    const std::optional<element> models = lastMember(top, "models");
    facts.models = kindOf(models, element_type::ARRAY);
    if (facts.models == BodyFacts::Kind::Wanted) {
        for (const element item : models->get_array()) {
            facts.modelsItems.push_back(item.type() == element_type::STRING ? std::optional<QString>(qstring(item.get_string()))
                                                                             : std::nullopt);
        }
    }
    const std::optional<element> stream = lastMember(top, "stream");
    facts.stream = kindOf(stream, element_type::BOOL);
    facts.streamValue = facts.stream == BodyFacts::Kind::Wanted && bool(stream->get_bool());
    if (const std::optional<element> options = lastMember(top, "stream_options"); options && options->type() == element_type::OBJECT) {
        const std::optional<element> include = lastMember(options->get_object(), "include_usage");
        facts.includeUsage = include && include->type() == element_type::BOOL && bool(include->get_bool());
    }
    facts.user = qstring(stringOf(lastMember(top, "user")));

    bool charactersKnown = true;
    qint64 characters = 0;
    const auto addCharacters = [&](const std::optional<element> &value) {
        if (!value)
            return;
        if (value->type() == element_type::STRING)
            characters += utf16Length(value->get_string());
        else if (value->type() == element_type::ARRAY)
            charactersKnown = false;   // Qt's compact text of it: left to promptCharactersOf()
    };
    addCharacters(lastMember(top, "system"));

    FastHash128 digest;
    TurnHasher hasher(digest);
    bool leadingTurns = facts.user.isEmpty();
    try {
        if (const std::optional<element> turns = lastMember(top, "messages"); turns && turns->type() == element_type::ARRAY) {
            const simdjson::dom::array array = turns->get_array();
            facts.turnsUsable = array.size() > 0;
            for (const element turn : array) {
                const bool isObject = turn.type() == element_type::OBJECT;
                if (isObject) {
                    const object o = turn.get_object();
                    addCharacters(lastMember(o, "content"));
                    if (const std::optional<simdjson::dom::array> parts = partsOf(o); parts && !facts.needsVision) {
                        for (const element part : *parts)
                            facts.needsVision = facts.needsVision || isImagePart(part);
                    }
                }
                if (leadingTurns) {
                    hasher.add(turn);
                    if (isObject && stringOf(lastMember(turn.get_object(), "role")) == "user")
                        leadingTurns = false;
                }
            }
        }
    } catch (const GiveUp &) {
        return std::nullopt;
    }
    if (facts.user.isEmpty())
        facts.turnsDigest = digest.result();
    if (charactersKnown)
        facts.promptCharacters = characters;
    for (const std::string_view field : {"max_completion_tokens", "max_tokens"}) {
        if (const std::optional<element> v = lastMember(top, field); v && isNumber(*v) && double(v->get_double()) > 0) {
            facts.maxOutputTokens = qint64(double(v->get_double()));
            break;
        }
    }
    return facts;
}

} // namespace sy::service
