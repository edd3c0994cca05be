#include "service/Workspace.h"

#include <QCryptographicHash>

namespace sy::service {

Workspace::Workspace(config::Config config)
    : m_config(std::move(config))
{
    for (int i = 0; i < int(m_config.keys.size()); ++i)
        m_keyByHash.insert(m_config.keys[i].secretSha256.toLower(), i);
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
    // The digest's hex on the stack, looked up through a raw-data view: no allocation for the
    // digest or its hex (every request authenticates).
    QCryptographicHash sha(QCryptographicHash::Sha256);
    sha.addData(secret);
    const QByteArrayView digest = sha.resultView();
    static constexpr char kHex[] = "0123456789abcdef";
    char hex[64];
    for (qsizetype i = 0; i < digest.size() && i < 32; ++i) {
        hex[2 * i] = kHex[quint8(digest[i]) >> 4];
        hex[2 * i + 1] = kHex[quint8(digest[i]) & 0xf];
    }
    const auto it = m_keyByHash.constFind(QByteArray::fromRawData(hex, sizeof hex));
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
