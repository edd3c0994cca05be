#include "service/Workspace.h"

#include <QCryptographicHash>

namespace sy::service {

Workspace::Workspace(config::Config config)
    : m_config(std::move(config))
{
    // By the digest's 32 bytes, so a request's lookup needs no hex text of its own digest. A
    // configured hash that is not 64 hex digits matches nothing, as before.
    for (int i = 0; i < int(m_config.keys.size()); ++i) {
        const QByteArray &hex = m_config.keys[i].secretSha256;
        const QByteArray digest = QByteArray::fromHex(hex);
        if (hex.size() == 64 && digest.size() == 32)
            m_keyByHash.insert(digest, i);
    }
    for (int i = 0; i < int(m_config.models.size()); ++i)
        m_modelById.insert(m_config.models[i].id, i);
    for (int i = 0; i < int(m_config.virtualModels.size()); ++i)
        m_virtualById.insert(m_config.virtualModels[i].id, i);
    for (const config::Channel &channel : m_config.channels) {
        ++m_channelsPerProvider[channel.provider];
        if (channel.enabled)
            m_channelFormats.insert(channel.format);
    }
    m_routeTable = routing::RouteTable(m_config.channels);
    for (const config::Channel &channel : m_config.channels) {
        if (!channel.enabled)
            continue;
        for (const config::ChannelModel &served : channel.models)
            m_enabledRoutes[served.id].push_back({&channel, &served});
    }
}

QString Workspace::channelLabel(const config::Channel &channel) const
{
    return m_channelsPerProvider.value(channel.provider) > 1 ? channel.id : channel.provider;
}

const config::Key *Workspace::findKeyBySecret(QByteArrayView secret) const
{
    if (secret.isEmpty())
        return nullptr;
    // The digest viewed where QCryptographicHash keeps it: no allocation (every request
    // authenticates).
    QCryptographicHash sha(QCryptographicHash::Sha256);
    sha.addData(secret);
    const QByteArrayView digest = sha.resultView();
    const auto it = m_keyByHash.constFind(QByteArray::fromRawData(digest.data(), digest.size()));
    return it == m_keyByHash.cend() ? nullptr : &m_config.keys[*it];
}

const config::Model *Workspace::findModel(const QString &id) const
{
    const auto it = m_modelById.constFind(id);
    return it == m_modelById.cend() ? nullptr : &m_config.models[*it];
}

const config::VirtualModel *Workspace::findVirtualModel(const QString &id) const
{
    const auto it = m_virtualById.constFind(id);
    return it == m_virtualById.cend() ? nullptr : &m_config.virtualModels[*it];
}

ModelState Workspace::modelState(const QString &id, const QDate &today) const
{
    const config::Model *model = findModel(id);
    if (!model)
        return ModelState::Unknown;
    if (!model->enabled)
        return ModelState::Disabled;
    if (model->deprecated && today > *model->deprecated)
        return ModelState::PastSunset;
    return ModelState::Available;
}

const std::vector<ChannelRoute> &Workspace::routesFor(const QString &modelId) const
{
    static const std::vector<ChannelRoute> none;
    const auto it = m_enabledRoutes.constFind(modelId);
    return it == m_enabledRoutes.cend() ? none : *it;
}

} // namespace sy::service
