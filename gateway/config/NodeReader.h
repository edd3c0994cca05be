#pragma once
// Internal to the loader: typed reading of yaml-cpp nodes. Every getter either returns a value
// or records a ConfigError at the node's position with the field's path, so section readers
// never handle yaml-cpp exceptions or positions themselves.
#include "config/ConfigLoader.h"

#include <yaml-cpp/yaml.h>

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sy::config::detail {

// Before parsing, each well-formed `${NAME}` is rewritten to `$` SUB NAME ESC (same length, so
// positions do not move). Braces are YAML flow indicators; without this, the natural
// `credentials: [${KEY}]` would be a syntax error. The input may not contain these control
// characters itself (YAML forbids them anyway), so the rewritten form is unambiguous.
inline constexpr char kRefOpen = '\x1A';
inline constexpr char kRefClose = '\x1B';

// A place in the file and the field found there; what cross-reference checks need to report.
struct Where {
    int line = 0;      // 1-based
    int column = 0;    // 1-based
    QString field;
};

// An inclusive or exclusive lower bound and an inclusive upper bound for numbers.
struct Range {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool minExclusive = false;

    static Range atLeast(double v) { return {v, std::numeric_limits<double>::infinity(), false}; }
    static Range above(double v) { return {v, std::numeric_limits<double>::infinity(), true}; }
    static Range between(double lo, double hi) { return {lo, hi, false}; }
    static Range aboveUpTo(double lo, double hi) { return {lo, hi, true}; }
};

// Collects errors for one load. Not thread-safe; one per load.
class Reader {
public:
    Reader(QString sourceName, QProcessEnvironment env);

    Where where(const YAML::Node &node, const QString &field) const;
    void fail(const Where &where, const QString &message);
    void fail(const YAML::Node &node, const QString &field, const QString &message);
    bool hasErrors() const { return !m_errors.empty(); }
    std::vector<ConfigError> takeErrors();
    const QString &sourceName() const { return m_source; }

    // A scalar as text, with `${NAME}` references replaced. Any scalar is text (`currency: 123`
    // is "123"); lists and mappings are not.
    std::optional<QString> text(const YAML::Node &node, const QString &field);
    // A finite number within `range`. Quoted scalars ("10") are text, not numbers.
    std::optional<double> number(const YAML::Node &node, const QString &field, Range range);
    // A whole number within `range`.
    std::optional<qint64> integer(const YAML::Node &node, const QString &field, Range range);
    // `true` or `false` (YAML 1.2 core spellings only; `yes`/`on` are rejected as ambiguous).
    std::optional<bool> boolean(const YAML::Node &node, const QString &field);
    // A list of text scalars; entry errors name `field[i]`.
    std::optional<QStringList> textList(const YAML::Node &node, const QString &field);
    // One of `allowed`, exactly as spelled.
    std::optional<QString> choice(const YAML::Node &node, const QString &field,
                                  const QStringList &allowed);
    // Records "expected a list" unless `node` is a sequence.
    bool expectList(const YAML::Node &node, const QString &field);

    // A key as the user wrote it (references shown as `${NAME}` again).
    static QString displayText(const std::string &raw);

private:
    std::optional<QString> expand(const QString &raw, const YAML::Node &node, const QString &field);

    QString m_source;
    QProcessEnvironment m_env;
    std::vector<ConfigError> m_errors;
};

// A YAML mapping with a fixed set of allowed keys. Construction reports a value that is not a
// mapping, unknown keys and duplicate keys (each at the key's position). Values that are YAML null
// (`~`, `null`, nothing) count as absent: the field keeps its default.
class MapView {
public:
    MapView(Reader &reader, const YAML::Node &node, QString path,
            std::initializer_list<const char *> allowedKeys);

    bool isMap() const { return m_isMap; }
    const QString &path() const { return m_path; }
    Where where() const { return m_where; }
    QString field(const char *key) const;

    // The value of `key`, or nullptr when absent or null.
    const YAML::Node *get(const char *key) const;
    // Like get(), but records "missing required field" when absent or null.
    const YAML::Node *require(const char *key);
    // Position of `key` (its value when present, else the key, else the mapping).
    Where whereOf(const char *key) const;

    // Convenience readers: `out` keeps its value when the key is absent or the value is invalid.
    void read(const char *key, QString &out);
    void read(const char *key, bool &out);
    void read(const char *key, int &out, Range range);
    void read(const char *key, qint64 &out, Range range);
    void read(const char *key, double &out, Range range);
    void read(const char *key, QStringList &out);
    void readChoice(const char *key, QString &out, const QStringList &allowed);

private:
    struct Entry {
        YAML::Node key;
        YAML::Node value;
    };
    Reader &m_reader;
    QString m_path;
    Where m_where;
    bool m_isMap = false;
    std::map<std::string, Entry> m_entries;
};

// "path.key", or "key" at the top level.
QString joinField(const QString &path, const char *key);
// "path[index]".
QString indexField(const QString &path, std::size_t index);

} // namespace sy::config::detail
