#pragma once
// Loading the SPEC §12 configuration file (YAML; JSON is YAML too) into a validated Config.
// The file format, every field and its default are described in docs/configuration.md.
#include "config/Config.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <optional>
#include <vector>

namespace sy::config {

// One problem found in a configuration file. Never carries the value of a secret or credential:
// an error about such a field names the field only.
struct ConfigError {
    QString file;          // the source name given to the loader (a path, or e.g. "<admin>")
    int line = 0;          // 1-based; 0 = not tied to a position (e.g. the file cannot be read)
    int column = 0;        // 1-based; 0 = unknown
    QString field;         // path such as "channels[0].timeouts.connect_s"; empty for syntax errors
    QString message;       // e.g. "expected a number"

    // "config.yaml:12:5: channels[0].timeouts.connect_s: expected a number"; the position and the
    // field are left out when unknown.
    QString toString() const;
};

// Either a complete, validated configuration or at least one error, never both.
struct LoadResult {
    std::optional<Config> config;
    std::vector<ConfigError> errors;   // ordered by position in the file

    bool ok() const { return config.has_value(); }
};

// Parses and validates `text`. `sourceName` is used only in errors. Every `${NAME}` in a text
// value is replaced by NAME from `env`; an unset variable is an error. All errors that can be
// found are reported, not only the first. Pure function of its arguments; any thread.
LoadResult loadConfigText(const QByteArray &text, const QString &sourceName,
                          const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

// Reads the file at `path` and calls loadConfigText() with `path` as the source name. A file that
// cannot be read is one error with line 0. Any thread.
LoadResult loadConfigFile(const QString &path,
                          const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

// A `listen` value ("127.0.0.1:8080", "localhost:0", "[::1]:8080") as the configuration accepts
// it, for command line options. False when it does not have that shape. Any thread.
bool parseListenAddress(const QString &text, QString &host, quint16 &port);

} // namespace sy::config
