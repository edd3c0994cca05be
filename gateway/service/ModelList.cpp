#include "service/ModelList.h"

#include <QJsonArray>
#include <algorithm>

namespace sy::service {

namespace {

bool keyMayUse(const config::Key &key, const QString &id)
{
    return key.allowedModels.isEmpty() || key.allowedModels.contains(id);
}

// OpenAI's entry, with the gateway's own members.
QJsonObject openAiEntry(const Workspace &workspace, const config::Model &model)
{
    const std::vector<ChannelRoute> &routes = workspace.routesFor(model.id);
    QJsonObject entry{{"id", model.id}, {"object", "model"}, {"created", 0},
                      {"owned_by", routes.empty() ? QStringLiteral("switchyard") : routes.front().channel->provider}};
    if (model.contextLength > 0)
        entry.insert("context_length", model.contextLength);
    if (!routes.empty()) {
        // The cheapest way to reach the model is what a client can expect to pay at least.
        const auto cheapest = std::min_element(routes.begin(), routes.end(), [](const ChannelRoute &a, const ChannelRoute &b) {
            return a.model->price.prompt + a.model->price.completion < b.model->price.prompt + b.model->price.completion;
        });
        entry.insert("pricing", QJsonObject{{"prompt", cheapest->model->price.prompt},
                                            {"completion", cheapest->model->price.completion},
                                            {"unit", "per 1M tokens"},
                                            {"currency", workspace.config().currency}});
    }
    if (model.deprecated)
        entry.insert("deprecated", model.deprecated->toString(Qt::ISODate));
    return entry;
}

QJsonObject geminiEntry(const QString &id, const config::Model *model)
{
    const bool embeds = model && model->capabilities.contains(QLatin1String("embeddings"));
    const bool chats = !model || model->capabilities.contains(QLatin1String("chat"));
    QJsonArray methods;
    if (chats)
        methods = {"generateContent", "streamGenerateContent", "countTokens"};
    if (embeds)
        methods.append("embedContent");
    QJsonObject entry{{"name", QStringLiteral("models/") + id}, {"baseModelId", id}, {"version", "switchyard"},
                      {"displayName", id}, {"supportedGenerationMethods", methods}};
    if (model && model->contextLength > 0)
        entry.insert("inputTokenLimit", model->contextLength);
    return entry;
}

// The OpenAI list turned into Anthropic's shape; pricing and deprecation members stay.
QJsonObject anthropicList(const QJsonArray &openAiData)
{
    QJsonArray models;
    for (const QJsonValue &value : openAiData) {
        QJsonObject entry = value.toObject();
        entry.remove("object");
        entry.remove("created");
        entry.remove("owned_by");
        entry.insert("type", "model");
        entry.insert("display_name", entry.value("id"));
        entry.insert("created_at", "1970-01-01T00:00:00Z");
        models.append(entry);
    }
    return {{"data", models}, {"has_more", false},
            {"first_id", models.isEmpty() ? QJsonValue(QJsonValue::Null) : models.first().toObject().value("id")},
            {"last_id", models.isEmpty() ? QJsonValue(QJsonValue::Null) : models.last().toObject().value("id")}};
}

} // namespace

QJsonObject modelList(const Workspace &workspace, const config::Key &key, const QDate &today, ModelListShape shape)
{
    QJsonArray data;
    QJsonArray gemini;
    for (const config::Model &model : workspace.config().models) {
        if (workspace.modelState(model.id, today) != ModelState::Available || !keyMayUse(key, model.id))
            continue;
        data.append(openAiEntry(workspace, model));
        gemini.append(geminiEntry(model.id, &model));
    }
    for (const config::VirtualModel &vm : workspace.config().virtualModels) {
        // A virtual model is usable when any model it may reach is (the chat guardrail's rule).
        const bool usable = keyMayUse(key, vm.id) || keyMayUse(key, vm.primary)
            || std::any_of(vm.fallbacks.begin(), vm.fallbacks.end(), [&](const QString &id) { return keyMayUse(key, id); });
        if (!usable)
            continue;
        data.append(QJsonObject{{"id", vm.id}, {"object", "model"}, {"created", 0}, {"owned_by", "switchyard"}});
        gemini.append(geminiEntry(vm.id, nullptr));
    }
    switch (shape) {
    case ModelListShape::Anthropic: return anthropicList(data);
    case ModelListShape::Gemini: return {{"models", gemini}};
    case ModelListShape::OpenAi: break;
    }
    return {{"object", "list"}, {"data", data}};
}

std::optional<QJsonObject> geminiModel(const Workspace &workspace, const config::Key &key, const QDate &today,
                                       const QString &id)
{
    const QString bare = id.startsWith(QLatin1String("models/")) ? id.mid(7) : id;
    if (!keyMayUse(key, bare))
        return std::nullopt;
    if (workspace.findVirtualModel(bare))
        return geminiEntry(bare, nullptr);
    if (workspace.modelState(bare, today) != ModelState::Available)
        return std::nullopt;
    return geminiEntry(bare, workspace.findModel(bare));
}

} // namespace sy::service
