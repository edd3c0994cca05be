// Second pass over a read configuration: unique ids, references between sections, and the
// models that channels serve without a `models:` entry.
#include "config/Sections.h"

#include <QHash>
#include <QSet>

namespace sy::config::detail {

namespace {

QString quoted(const QString &id)
{
    return u'"' + id + u'"';
}

QString firstAt(const Where &first)
{
    return first.line > 0 ? QStringLiteral(" (first at line %1)").arg(first.line) : QString();
}

// Records a duplicate; returns true when `id` was new.
bool claim(Reader &reader, QHash<QString, Where> &seen, const QString &id, const Where &where,
           const QString &what)
{
    if (id.isEmpty())
        return false;
    const auto it = seen.constFind(id);
    if (it != seen.constEnd()) {
        reader.fail(where, QStringLiteral("duplicate %1 %2%3").arg(what, quoted(id), firstAt(*it)));
        return false;
    }
    seen.insert(id, where);
    return true;
}

void validateChannels(Reader &reader, const Config &config, const Marks &marks)
{
    QHash<QString, Where> channelIds;
    for (std::size_t i = 0; i < config.channels.size(); ++i) {
        const Channel &channel = config.channels[i];
        claim(reader, channelIds, channel.id, marks.channels[i].id, QStringLiteral("channel id"));
        QHash<QString, Where> served;
        for (std::size_t j = 0; j < channel.models.size(); ++j)
            claim(reader, served, channel.models[j].id, marks.channels[i].modelIds[j],
                  QStringLiteral("model in this channel:"));
    }
}

// Declared models must be unique; a model only served by channels is added with defaults, in the
// order channels list it. Returns every model id with where it was (first) written.
QHash<QString, Where> collectModels(Reader &reader, Config &config, const Marks &marks)
{
    QHash<QString, Where> modelIds;
    for (std::size_t i = 0; i < config.models.size(); ++i)
        claim(reader, modelIds, config.models[i].id, marks.modelIds[i], QStringLiteral("model id"));
    for (std::size_t i = 0; i < config.channels.size(); ++i) {
        const Channel &channel = config.channels[i];
        for (std::size_t j = 0; j < channel.models.size(); ++j) {
            const QString &id = channel.models[j].id;
            if (id.isEmpty() || modelIds.contains(id))
                continue;
            Model implicit;
            implicit.id = id;
            config.models.push_back(std::move(implicit));
            modelIds.insert(id, marks.channels[i].modelIds[j]);
        }
    }
    return modelIds;
}

void validateVirtualModels(Reader &reader, const Config &config, const Marks &marks,
                           const QHash<QString, Where> &modelIds)
{
    QSet<QString> allVirtual;
    for (const VirtualModel &vm : config.virtualModels)
        allVirtual.insert(vm.id);

    QHash<QString, Where> virtualIds;
    for (std::size_t i = 0; i < config.virtualModels.size(); ++i) {
        const VirtualModel &vm = config.virtualModels[i];
        const VirtualModelMarks &mark = marks.virtualModels[i];
        if (const auto model = modelIds.constFind(vm.id); model != modelIds.constEnd())
            reader.fail(mark.id, QStringLiteral("%1 is already a model id%2")
                                     .arg(quoted(vm.id), firstAt(*model)));
        else
            claim(reader, virtualIds, vm.id, mark.id, QStringLiteral("virtual model id"));

        const auto checkTarget = [&](const QString &target, const Where &where) {
            if (target.isEmpty())
                return;
            if (!vm.id.isEmpty() && target == vm.id)
                reader.fail(where, QStringLiteral("a virtual model cannot refer to itself"));
            else if (allVirtual.contains(target) && !modelIds.contains(target))
                reader.fail(where, QStringLiteral("%1 is a virtual model; name a model")
                                       .arg(quoted(target)));
            else if (!modelIds.contains(target))
                reader.fail(where, QStringLiteral("unknown model %1").arg(quoted(target)));
        };
        checkTarget(vm.primary, mark.primary);
        for (qsizetype j = 0; j < vm.fallbacks.size(); ++j)
            checkTarget(vm.fallbacks[j], mark.fallbacks[static_cast<std::size_t>(j)]);
    }
}

void validateKeys(Reader &reader, const Config &config, const Marks &marks,
                  const QHash<QString, Where> &modelIds, const QSet<QString> &virtualIds)
{
    QHash<QString, Where> names;
    QHash<QByteArray, QString> secrets;   // hash -> name of the first key using it
    for (std::size_t i = 0; i < config.keys.size(); ++i) {
        const Key &key = config.keys[i];
        const KeyMarks &mark = marks.keys[i];
        claim(reader, names, key.name, mark.name, QStringLiteral("key name"));
        if (!key.secretSha256.isEmpty()) {
            // Two keys with one secret would make authentication ambiguous. Name the other key,
            // never the secret.
            if (const auto it = secrets.constFind(key.secretSha256); it != secrets.constEnd())
                reader.fail(mark.secret, QStringLiteral("same secret as key %1").arg(quoted(*it)));
            else
                secrets.insert(key.secretSha256, key.name);
        }
        for (qsizetype j = 0; j < key.allowedModels.size(); ++j) {
            const QString &id = key.allowedModels[j];
            if (!modelIds.contains(id) && !virtualIds.contains(id))
                reader.fail(mark.allowedModels[static_cast<std::size_t>(j)],
                            QStringLiteral("unknown model %1").arg(quoted(id)));
        }
    }
}

} // namespace

void validateConfig(Reader &reader, Config &config, const Marks &marks)
{
    validateChannels(reader, config, marks);
    const QHash<QString, Where> modelIds = collectModels(reader, config, marks);
    validateVirtualModels(reader, config, marks, modelIds);

    QSet<QString> virtualIds;
    for (const VirtualModel &vm : config.virtualModels)
        if (!vm.id.isEmpty())
            virtualIds.insert(vm.id);
    if (config.defaultModel && !modelIds.contains(*config.defaultModel)
        && !virtualIds.contains(*config.defaultModel))
        reader.fail(marks.defaultModel, QStringLiteral("unknown model or virtual model %1")
                                            .arg(quoted(*config.defaultModel)));
    validateKeys(reader, config, marks, modelIds, virtualIds);
}

} // namespace sy::config::detail
