#pragma once
// What a provider's own model list says, read from its wire format, and what a discovery
// answers: OpenAI-style `{"data":[{"id"}]}` (also Anthropic's), Gemini's
// `{"models":[{"name":"models/x"}]}` and Ollama's `/api/tags` `{"models":[{"name"}]}`.
// Pure; any thread.
#include "onboarding/Presets.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>
#include <vector>

namespace sy::onboarding {

enum class ModelListShape { OpenAi, Anthropic, Gemini, OllamaTags };

struct DiscoveredModel {
    QString id;                // suggested public id (the preset's id when it lists the model)
    QString upstream;          // the provider's name for it ("models/" prefix removed)
    double prompt = 0;
    double completion = 0;
    bool knownPrice = false;   // the preset's price table lists it
    QStringList capabilities;
};

struct ModelListResult {
    std::vector<DiscoveredModel> models;
    QString error;             // set when the body is not a model list of that shape, or empty
};

// Reads `body` (a 2xx answer) as a model list; ids in the provider's order, duplicates dropped.
// An empty list is an error ("the provider lists no models").
ModelListResult parseModelList(ModelListShape shape, const QByteArray &body);

// Fills id, prices and capabilities from `preset`'s table where it lists the model.
void applyPresetPrices(const Preset *preset, std::vector<DiscoveredModel> &models);

// {"models":[{id, upstream, prompt, completion, known_price, capabilities}]}
QJsonObject discoveredJson(const std::vector<DiscoveredModel> &models);

} // namespace sy::onboarding
