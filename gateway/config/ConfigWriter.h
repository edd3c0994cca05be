#pragma once
// Writing a Config back out as a SPEC §12 configuration document: the inverse of the loader
// (ConfigLoader.h). For every Config the loader produced, loading the written document with
// loadConfigText() gives a Config equal to it (operator== below) — except for the channel
// credentials and the admin token when they are omitted (Secrets::Omit).
//
// Used to export the configuration (dashboard, admin API) and to apply an edit: the edited Config
// is written and loaded back, so that every edit goes through the loader's validation as a whole.
// The writer itself validates nothing beyond what it needs to produce a faithful document; a
// Config that breaks the loader's rules is written as it is and rejected on load.
//
// Limitation: the loader has no escape for `${` (every `${` in a file starts an environment
// variable reference), so a text value containing `${` cannot be written; neither can a value
// containing `$` followed by U+001A (the loader's internal reference marker), text starting with
// U+FEFF (the loader drops a leading byte-order mark), text that is not valid UTF-16, a number
// that is not finite, or an invalid date. Such a Config gives a WriteResult with errors that name
// each field, never its value. Omitted secrets are not checked (they are not written).
#include "config/Config.h"

#include <QByteArray>
#include <QString>
#include <optional>
#include <vector>

namespace sy::config {

enum class Secrets {
    Omit,      // no channel `credentials` and no `admin_token` in the output at all
    Include,   // channel credentials and the admin token written as given
};

// One value of a Config that cannot be written.
struct WriteError {
    QString field;     // path as in ConfigError::field, e.g. "channels[0].credentials[1]"
    QString message;   // never contains the value
};

// Either the complete document or at least one error, never both.
struct WriteResult {
    std::optional<QByteArray> document;   // UTF-8
    std::vector<WriteError> errors;       // in document order

    bool ok() const { return document.has_value(); }
};

// YAML in the SPEC §12 layout and top-level order, without comments except, with Secrets::Omit,
// one first line saying that credentials and the admin token were omitted. Keys are written as
// `secret_sha256` (the Config never holds a plain key secret). Timeouts are written in seconds
// (exact to the millisecond), dates as YYYY-MM-DD, numbers so that they parse back to the same
// double. Optional values (admin_token, database, balance, default_model, quantization,
// deprecated, spend_limit) are written only when set (non-empty). Every model in
// Config::models is written as declared, including those the loader added implicitly; they load
// back to the same list. Pure function; any thread.
WriteResult writeConfigYaml(const Config &config, Secrets secrets);

// The same document as compact JSON (one line, keys in the same order). Any thread.
WriteResult writeConfigJson(const Config &config, Secrets secrets);

// Deep, field-by-field equality of every field (doubles compared with ==, so -0 equals 0 and NaN
// equals nothing). For tests and for "did this edit change anything". != follows (C++20).
bool operator==(const Price &a, const Price &b);
bool operator==(const ChannelModel &a, const ChannelModel &b);
bool operator==(const Timeouts &a, const Timeouts &b);
bool operator==(const Tls &a, const Tls &b);
bool operator==(const Channel &a, const Channel &b);
bool operator==(const Model &a, const Model &b);
bool operator==(const VirtualModel &a, const VirtualModel &b);
bool operator==(const Key &a, const Key &b);
bool operator==(const Settings &a, const Settings &b);
bool operator==(const Config &a, const Config &b);

} // namespace sy::config
