#include "onboarding/ModelLists.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace sy::onboarding {

namespace {

QString stripModelsPrefix(QString name)
{
    return name.startsWith(u"models/") ? name.mid(7) : name;
}

// Capabilities a list says or implies: Gemini's supportedGenerationMethods, embedding names.
QStringList guessCapabilities(const QJsonObject &entry, const QString &name)
{
    const QJsonArray methods = entry.value("supportedGenerationMethods").toArray();
    if (!methods.isEmpty()) {
        const QVariantList list = methods.toVariantList();
        if (list.contains(QStringLiteral("embedContent")) && !list.contains(QStringLiteral("generateContent")))
            return {QStringLiteral("embeddings")};
        return {QStringLiteral("chat")};
    }
    if (name.contains(QLatin1String("embed"), Qt::CaseInsensitive))
        return {QStringLiteral("embeddings")};
    return {QStringLiteral("chat")};
}

} // namespace

ModelListResult parseModelList(ModelListShape shape, const QByteArray &body)
{
    ModelListResult out;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        const QByteArray start = body.trimmed().left(15).toLower();
        out.error = start.startsWith("<!doctype") || start.startsWith("<html")
                        ? QStringLiteral("the server answered an HTML page, not a model list (is the base URL right?)")
                        : QStringLiteral("the answer is not a JSON model list");
        return out;
    }
    const bool openAiShape = shape == ModelListShape::OpenAi || shape == ModelListShape::Anthropic;
    const QJsonValue list = doc.object().value(openAiShape ? "data" : "models");
    if (!list.isArray()) {
        out.error = QStringLiteral("the answer has no `%1` list of models").arg(openAiShape ? "data" : "models");
        return out;
    }
    QSet<QString> seen;
    for (const QJsonValue &value : list.toArray()) {
        const QJsonObject entry = value.toObject();
        const QString raw = openAiShape ? entry.value("id").toString() : entry.value("name").toString();
        const QString name = stripModelsPrefix(raw.trimmed());
        if (name.isEmpty() || seen.contains(name))
            continue;
        seen.insert(name);
        DiscoveredModel model;
        model.id = name;
        model.upstream = name;
        model.capabilities = guessCapabilities(entry, name);
        out.models.push_back(std::move(model));
    }
    if (out.models.empty())
        out.error = QStringLiteral("the provider lists no models");
    return out;
}

void applyPresetPrices(const Preset *preset, std::vector<DiscoveredModel> &models)
{
    if (!preset)
        return;
    for (DiscoveredModel &model : models) {
        const PresetModel *known = preset->findModel(model.upstream);
        if (!known)
            continue;
        model.id = known->id;
        model.prompt = known->prompt;
        model.completion = known->completion;
        model.knownPrice = true;
        model.capabilities = known->capabilities;
    }
}

QJsonObject discoveredJson(const std::vector<DiscoveredModel> &models)
{
    QJsonArray list;
    for (const DiscoveredModel &model : models)
        list.append(QJsonObject{{"id", model.id},
                                {"upstream", model.upstream},
                                {"prompt", model.prompt},
                                {"completion", model.completion},
                                {"known_price", model.knownPrice},
                                {"capabilities", QJsonArray::fromStringList(model.capabilities)}});
    return QJsonObject{{"models", list}};
}

} // namespace sy::onboarding
