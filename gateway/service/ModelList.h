#pragma once
// ModelList: the models a key may use, in the list shape of each client family — OpenAI's
// GET /v1/models (with pricing and deprecation members), Anthropic's (for clients that send
// anthropic-version or x-api-key), and Gemini's GET /v1beta/models. Pure.
#include "config/Config.h"
#include "service/Workspace.h"

#include <QJsonObject>
#include <optional>

namespace sy::service {

enum class ModelListShape { OpenAi, Anthropic, Gemini };

QJsonObject modelList(const Workspace &workspace, const config::Key &key, const QDate &today, ModelListShape shape);

// One model in Gemini's shape (GET /v1beta/models/{model}); nullopt when the key may not use it
// or it is not available today.
std::optional<QJsonObject> geminiModel(const Workspace &workspace, const config::Key &key, const QDate &today,
                                       const QString &id);

} // namespace sy::service
