#include "onboarding/Presets.h"

#include <QFile>
#include <QJsonArray>
#include <yaml-cpp/yaml.h>

namespace sy::onboarding {

namespace {

const QStringList kFormats{"openai", "anthropic", "gemini"};
const QStringList kAuth{"bearer", "x-api-key", "x-goog-api-key", "api-key", "none"};

QString text(const YAML::Node &node, const char *key, const QString &fallback = {})
{
    const YAML::Node value = node[key];
    return value && value.IsScalar() ? QString::fromStdString(value.as<std::string>()) : fallback;
}

double number(const YAML::Node &node, const char *key)
{
    const YAML::Node value = node[key];
    return value && value.IsScalar() ? value.as<double>() : 0.0;
}

Preset readPreset(const YAML::Node &node, const QString &defaultDate)
{
    Preset preset;
    preset.id = text(node, "id");
    preset.name = text(node, "name", preset.id);
    preset.baseUrl = text(node, "base_url");
    while (preset.baseUrl.endsWith(u'/'))
        preset.baseUrl.chop(1);
    preset.format = text(node, "format", QStringLiteral("openai"));
    preset.auth = text(node, "auth", QStringLiteral("bearer"));
    preset.modelsPath = text(node, "models_path", QStringLiteral("/models"));
    preset.local = node["local"] && node["local"].as<bool>();
    preset.needsKey = preset.auth != u"none";
    preset.pricesAsOf = text(node, "prices_as_of", defaultDate);
    for (const YAML::Node &m : node["models"]) {
        PresetModel model;
        model.id = text(m, "id");
        model.upstream = text(m, "upstream", model.id);
        model.prompt = number(m, "prompt");
        model.completion = number(m, "completion");
        for (const YAML::Node &c : m["capabilities"])
            model.capabilities << QString::fromStdString(c.as<std::string>());
        if (model.capabilities.isEmpty())
            model.capabilities << QStringLiteral("chat");
        preset.models.push_back(std::move(model));
    }
    return preset;
}

QString checkPreset(const Preset &preset)
{
    if (preset.id.isEmpty())
        return QStringLiteral("a preset has no id");
    if (!preset.baseUrl.startsWith(u"http://") && !preset.baseUrl.startsWith(u"https://"))
        return QStringLiteral("preset %1: base_url must be http(s)").arg(preset.id);
    if (!kFormats.contains(preset.format))
        return QStringLiteral("preset %1: unknown format %2").arg(preset.id, preset.format);
    if (!kAuth.contains(preset.auth))
        return QStringLiteral("preset %1: unknown auth %2").arg(preset.id, preset.auth);
    return {};
}

} // namespace

const PresetModel *Preset::findModel(const QString &name) const
{
    for (const PresetModel &model : models)
        if (model.upstream == name || model.id == name)
            return &model;
    return nullptr;
}

PresetList parsePresets(const QByteArray &yaml)
{
    PresetList out;
    try {
        const YAML::Node root = YAML::Load(yaml.toStdString());
        const QString date = text(root, "prices_as_of");
        if (!root["presets"] || !root["presets"].IsSequence()) {
            out.error = QStringLiteral("no `presets:` list");
            return out;
        }
        for (const YAML::Node &node : root["presets"]) {
            Preset preset = readPreset(node, date);
            if (QString problem = checkPreset(preset); !problem.isEmpty()) {
                out.error = problem;
                out.presets.clear();
                return out;
            }
            out.presets.push_back(std::move(preset));
        }
    } catch (const YAML::Exception &e) {
        out.error = QString::fromStdString(e.what());
        out.presets.clear();
    }
    return out;
}

const std::vector<Preset> &builtinPresets()
{
    static const std::vector<Preset> presets = [] {
        QFile file(QStringLiteral(":/switchyard/presets/presets.yaml"));
        if (!file.open(QIODevice::ReadOnly))
            return std::vector<Preset>();
        return parsePresets(file.readAll()).presets;
    }();
    return presets;
}

const Preset *findPreset(const QString &id)
{
    for (const Preset &preset : builtinPresets())
        if (preset.id == id)
            return &preset;
    return nullptr;
}

QJsonObject presetsJson(const std::vector<Preset> &presets)
{
    QJsonArray list;
    for (const Preset &preset : presets) {
        QJsonArray models;
        for (const PresetModel &model : preset.models)
            models.append(QJsonObject{{"id", model.id},
                                      {"upstream", model.upstream},
                                      {"prompt", model.prompt},
                                      {"completion", model.completion},
                                      {"capabilities", QJsonArray::fromStringList(model.capabilities)}});
        list.append(QJsonObject{{"id", preset.id},
                                {"name", preset.name},
                                {"base_url", preset.baseUrl},
                                {"format", preset.format},
                                {"auth", preset.auth},
                                {"models_path", preset.modelsPath},
                                {"local", preset.local},
                                {"needs_key", preset.needsKey},
                                {"prices_as_of", preset.pricesAsOf},
                                {"models", models}});
    }
    return QJsonObject{{"presets", list}};
}

} // namespace sy::onboarding
