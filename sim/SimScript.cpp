#include "SimScript.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace sy::sim {

namespace {

std::optional<QStringList> readNames(const QJsonValue &value)
{
    if (!value.isArray())
        return std::nullopt;
    QStringList names;
    for (const QJsonValue &item : value.toArray()) {
        if (!item.isString() || item.toString().isEmpty())
            return std::nullopt;
        names.append(item.toString());
    }
    return names;
}

} // namespace

const QStringList &ModelCatalog::modelsFor(const QString &provider) const
{
    const auto it = perProvider.constFind(provider);
    return it == perProvider.constEnd() ? models : *it;
}

ScriptParse parseScript(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return {std::nullopt, QStringLiteral("invalid JSON at offset %1: %2")
                                  .arg(parseError.offset).arg(parseError.errorString())};
    if (!document.isObject())
        return {std::nullopt, QStringLiteral("expected a JSON object")};
    const QJsonObject root = document.object();

    SimScript script;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString &key = it.key();
        if (key == u"models") {
            const std::optional<QStringList> names = readNames(it.value());
            if (!names)
                return {std::nullopt, QStringLiteral("models: expected an array of model names")};
            if (!script.catalog)
                script.catalog.emplace();
            script.catalog->models = *names;
        } else if (key == u"providers") {
            if (!it.value().isObject())
                return {std::nullopt, QStringLiteral("providers: expected an object")};
            if (!script.catalog)
                script.catalog.emplace();
            const QJsonObject providers = it.value().toObject();
            for (auto provider = providers.begin(); provider != providers.end(); ++provider) {
                const std::optional<QStringList> names = readNames(provider.value());
                if (!names)
                    return {std::nullopt, QStringLiteral("providers.%1: expected an array of model names")
                                              .arg(provider.key())};
                script.catalog->perProvider.insert(provider.key(), *names);
            }
        } else if (key == u"rules") {
            if (!it.value().isArray())
                return {std::nullopt, QStringLiteral("rules: expected an array")};
            const QJsonArray rules = it.value().toArray();
            for (qsizetype i = 0; i < rules.size(); ++i) {
                if (!rules.at(i).isObject())
                    return {std::nullopt, QStringLiteral("rules[%1]: expected an object").arg(i)};
                RuleParse parsed = parseRule(rules.at(i).toObject());
                if (!parsed.rule)
                    return {std::nullopt, QStringLiteral("rules[%1].%2").arg(i).arg(parsed.error)};
                script.rules.push_back(std::move(*parsed.rule));
            }
        } else {
            return {std::nullopt, QStringLiteral("%1: unknown field").arg(key)};
        }
    }
    return {std::move(script), {}};
}

} // namespace sy::sim
