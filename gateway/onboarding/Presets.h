#pragma once
// Provider presets (docs/providers.md): the built-in starting points of a new channel — base URL,
// API format, how the key is sent, where the model list is, and a dated price table. The data is
// resources/presets/presets.yaml, compiled in as a Qt resource; prices are never fetched.
// Pure; any thread (the built-in list is parsed once, on first use, thread-safely).
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace sy::onboarding {

struct PresetModel {
    QString id;                // suggested public model id
    QString upstream;          // name the provider knows it by; defaults to id
    double prompt = 0;         // USD per 1M tokens
    double completion = 0;     // USD per 1M tokens
    QStringList capabilities;  // chat, tools, vision, json, embeddings
};

struct Preset {
    QString id;                // "openai"
    QString name;              // "OpenAI"
    QString baseUrl;           // without trailing slash
    QString format;            // openai | anthropic | gemini
    QString auth;              // bearer | x-api-key | x-goog-api-key | api-key | none
    QString modelsPath;        // relative to baseUrl, e.g. "/models"
    bool local = false;        // runs on this machine
    bool needsKey = true;      // false when auth is "none"
    QString pricesAsOf;        // YYYY-MM-DD
    std::vector<PresetModel> models;

    // The preset's model with this upstream name or id, if listed.
    const PresetModel *findModel(const QString &name) const;
};

struct PresetList {
    std::vector<Preset> presets;
    QString error;             // set when the text did not parse (then presets is empty)
};

// Parses a presets document (the shape of resources/presets/presets.yaml).
PresetList parsePresets(const QByteArray &yaml);

// The built-in presets (the compiled-in resource).
const std::vector<Preset> &builtinPresets();
const Preset *findPreset(const QString &id);

// GET /admin/presets: {"presets":[{id, name, base_url, format, auth, models_path, local,
// needs_key, prices_as_of, models:[{id, upstream, prompt, completion, capabilities}]}]}.
QJsonObject presetsJson(const std::vector<Preset> &presets);

} // namespace sy::onboarding
