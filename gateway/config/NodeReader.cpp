#include "config/NodeReader.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace sy::config::detail {

namespace {

QString formatNumber(double v)
{
    return QString::number(v, 'g', 15);
}

QString rangeMessage(const Range &r)
{
    const bool unbounded = std::isinf(r.max);
    if (r.minExclusive)
        return unbounded ? QStringLiteral("must be greater than %1").arg(formatNumber(r.min))
                         : QStringLiteral("must be greater than %1 and at most %2")
                               .arg(formatNumber(r.min), formatNumber(r.max));
    if (std::isinf(r.min))
        return QStringLiteral("must be at most %1").arg(formatNumber(r.max));
    return unbounded ? QStringLiteral("must be at least %1").arg(formatNumber(r.min))
                     : QStringLiteral("must be between %1 and %2")
                           .arg(formatNumber(r.min), formatNumber(r.max));
}

bool inRange(double v, const Range &r)
{
    const bool aboveMin = r.minExclusive ? v > r.min : v >= r.min;
    return aboveMin && v <= r.max;
}

// A plain (unquoted) scalar; quoted ones are text even when they look like numbers.
bool isPlainScalar(const YAML::Node &node)
{
    return node.IsScalar() && node.Tag() != "!";
}

std::optional<double> parseNumber(const std::string &s)
{
    std::string_view v(s);
    if (!v.empty() && v.front() == '+')
        v.remove_prefix(1);
    if (v.empty() || v.front() == '+')
        return std::nullopt;
    double out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(out))
        return std::nullopt;
    return out;
}

} // namespace

QString joinField(const QString &path, const char *key)
{
    return path.isEmpty() ? QString::fromUtf8(key) : path + u'.' + QString::fromUtf8(key);
}

QString indexField(const QString &path, std::size_t index)
{
    return QStringLiteral("%1[%2]").arg(path).arg(index);
}

Reader::Reader(QString sourceName, QProcessEnvironment env)
    : m_source(std::move(sourceName)), m_env(std::move(env))
{
}

Where Reader::where(const YAML::Node &node, const QString &field) const
{
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0)
        return {0, 0, field};
    return {mark.line + 1, mark.column + 1, field};
}

void Reader::fail(const Where &where, const QString &message)
{
    m_errors.push_back({m_source, where.line, where.column, where.field, message});
}

void Reader::fail(const YAML::Node &node, const QString &field, const QString &message)
{
    fail(where(node, field), message);
}

std::vector<ConfigError> Reader::takeErrors()
{
    return std::exchange(m_errors, {});
}

QString Reader::displayText(const std::string &raw)
{
    QString s = QString::fromStdString(raw);
    s.replace(QStringLiteral("$") + QChar(kRefOpen), QStringLiteral("${"));
    s.replace(QChar(kRefClose), QStringLiteral("}"));
    return s;
}

std::optional<QString> Reader::expand(const QString &raw, const YAML::Node &node,
                                      const QString &field)
{
    // Only the rewritten form is a reference (see kRefOpen); a `${` left over was malformed.
    QString out;
    out.reserve(raw.size());
    bool ok = true;
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const QChar c = raw.at(i);
        if (c != u'$' || i + 1 >= raw.size()) {
            out += c;
            continue;
        }
        const QChar next = raw.at(i + 1);
        if (next == QChar(kRefOpen)) {
            const qsizetype close = raw.indexOf(QChar(kRefClose), i + 2);
            const QString name = raw.mid(i + 2, close - i - 2);
            if (m_env.contains(name)) {
                out += m_env.value(name);
            } else {
                fail(node, field, QStringLiteral("environment variable %1 is not set").arg(name));
                ok = false;
            }
            i = close;
        } else if (next == u'{') {
            fail(node, field,
                 QStringLiteral("\"${\" must be followed by a variable name "
                                "(letters, digits, _) and \"}\""));
            ok = false;
            ++i;
        } else {
            out += c;
        }
    }
    if (!ok)
        return std::nullopt;
    return out;
}

std::optional<QString> Reader::text(const YAML::Node &node, const QString &field)
{
    if (!node.IsScalar()) {
        fail(node, field, QStringLiteral("expected a string"));
        return std::nullopt;
    }
    return expand(QString::fromStdString(node.Scalar()), node, field);
}

std::optional<double> Reader::number(const YAML::Node &node, const QString &field, Range range)
{
    const std::optional<double> v =
        isPlainScalar(node) ? parseNumber(node.Scalar()) : std::nullopt;
    if (!v) {
        fail(node, field, QStringLiteral("expected a number"));
        return std::nullopt;
    }
    if (!inRange(*v, range)) {
        fail(node, field, rangeMessage(range));
        return std::nullopt;
    }
    return v;
}

std::optional<qint64> Reader::integer(const YAML::Node &node, const QString &field, Range range)
{
    const std::optional<double> v =
        isPlainScalar(node) ? parseNumber(node.Scalar()) : std::nullopt;
    if (!v) {
        fail(node, field, QStringLiteral("expected a number"));
        return std::nullopt;
    }
    // Doubles hold every integer up to 2^53 exactly; all ranges used here are far below that.
    if (std::trunc(*v) != *v) {
        fail(node, field, QStringLiteral("expected a whole number"));
        return std::nullopt;
    }
    if (!inRange(*v, range)) {
        fail(node, field, rangeMessage(range));
        return std::nullopt;
    }
    return static_cast<qint64>(*v);
}

std::optional<bool> Reader::boolean(const YAML::Node &node, const QString &field)
{
    if (isPlainScalar(node)) {
        const std::string &s = node.Scalar();
        if (s == "true" || s == "True" || s == "TRUE")
            return true;
        if (s == "false" || s == "False" || s == "FALSE")
            return false;
    }
    fail(node, field, QStringLiteral("expected true or false"));
    return std::nullopt;
}

bool Reader::expectList(const YAML::Node &node, const QString &field)
{
    if (node.IsSequence())
        return true;
    fail(node, field, QStringLiteral("expected a list"));
    return false;
}

std::optional<QStringList> Reader::textList(const YAML::Node &node, const QString &field)
{
    if (!expectList(node, field))
        return std::nullopt;
    QStringList out;
    bool ok = true;
    std::size_t i = 0;
    for (auto it = node.begin(); it != node.end(); ++it, ++i) {
        const std::optional<QString> entry = text(*it, indexField(field, i));
        if (entry)
            out.append(*entry);
        else
            ok = false;
    }
    if (!ok)
        return std::nullopt;
    return out;
}

std::optional<QString> Reader::choice(const YAML::Node &node, const QString &field,
                                      const QStringList &allowed)
{
    const std::optional<QString> v = text(node, field);
    if (!v)
        return std::nullopt;
    if (!allowed.contains(*v)) {
        fail(node, field, QStringLiteral("expected one of: %1").arg(allowed.join(QStringLiteral(", "))));
        return std::nullopt;
    }
    return v;
}

MapView::MapView(Reader &reader, const YAML::Node &node, QString path,
                 std::initializer_list<const char *> allowedKeys)
    : m_reader(reader), m_path(std::move(path)), m_where(reader.where(node, m_path))
{
    if (!node.IsMap()) {
        m_reader.fail(node, m_path, QStringLiteral("expected a mapping (key: value pairs)"));
        return;
    }
    m_isMap = true;
    QString allowedText;
    for (const char *k : allowedKeys)
        allowedText += (allowedText.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromUtf8(k);
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;
        if (!key.IsScalar()) {
            m_reader.fail(key, m_path, QStringLiteral("keys must be plain names"));
            continue;
        }
        const std::string name = key.Scalar();
        const QString keyField = joinField(m_path, Reader::displayText(name).toUtf8().constData());
        bool known = false;
        for (const char *k : allowedKeys)
            known = known || name == k;
        if (!known) {
            m_reader.fail(key, keyField, QStringLiteral("unknown key (expected one of: %1)").arg(allowedText));
            continue;
        }
        if (m_entries.count(name)) {
            m_reader.fail(key, keyField, QStringLiteral("duplicate key"));
            continue;
        }
        m_entries.emplace(name, Entry{key, it->second});
    }
}

QString MapView::field(const char *key) const
{
    return joinField(m_path, key);
}

const YAML::Node *MapView::get(const char *key) const
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end() || it->second.value.IsNull())
        return nullptr;
    return &it->second.value;
}

const YAML::Node *MapView::require(const char *key)
{
    const YAML::Node *v = get(key);
    if (!v && m_isMap)
        m_reader.fail(whereOf(key), QStringLiteral("missing required field"));
    return v;
}

Where MapView::whereOf(const char *key) const
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return {m_where.line, m_where.column, field(key)};
    // A null value's mark points at the next token, so use the key's position for it.
    const YAML::Node &at = it->second.value.IsNull() ? it->second.key : it->second.value;
    return m_reader.where(at, field(key));
}

void MapView::read(const char *key, QString &out)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.text(*n, field(key)))
            out = *v;
}

void MapView::read(const char *key, bool &out)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.boolean(*n, field(key)))
            out = *v;
}

void MapView::read(const char *key, int &out, Range range)
{
    // Every int field's range lies within int; the caller's range is the contract.
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.integer(*n, field(key), range))
            out = static_cast<int>(*v);
}

void MapView::read(const char *key, qint64 &out, Range range)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.integer(*n, field(key), range))
            out = *v;
}

void MapView::read(const char *key, double &out, Range range)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.number(*n, field(key), range))
            out = *v;
}

void MapView::read(const char *key, QStringList &out)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.textList(*n, field(key)))
            out = *v;
}

void MapView::readChoice(const char *key, QString &out, const QStringList &allowed)
{
    if (const YAML::Node *n = get(key))
        if (auto v = m_reader.choice(*n, field(key), allowed))
            out = *v;
}

} // namespace sy::config::detail
