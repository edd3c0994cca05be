#pragma once
// Small builders for sy::config values, so service tests state only what they are about.
#include "config/Config.h"

#include <QCryptographicHash>

namespace sy::service::builders {

inline config::Model model(const QString &id, bool enabled = true, std::optional<QDate> sunset = {})
{
    config::Model m;
    m.id = id;
    m.enabled = enabled;
    m.deprecated = sunset;
    return m;
}

inline config::ChannelModel served(const QString &id, const QString &upstream = {}, config::Price price = {})
{
    return config::ChannelModel{id, upstream.isEmpty() ? id : upstream, price};
}

inline config::Channel channel(const QString &id, std::vector<config::ChannelModel> models, bool enabled = true)
{
    config::Channel c;
    c.id = id;
    c.provider = QStringLiteral("sim");
    c.baseUrl = QStringLiteral("http://127.0.0.1:1/v1");
    c.enabled = enabled;
    c.models = std::move(models);
    return c;
}

inline QByteArray sha256Hex(QByteArrayView secret)
{
    return QCryptographicHash::hash(secret, QCryptographicHash::Sha256).toHex();
}

inline config::Key key(const QString &name, QByteArrayView secret, bool enabled = true)
{
    config::Key k;
    k.name = name;
    k.secretSha256 = sha256Hex(secret);
    k.enabled = enabled;
    return k;
}

} // namespace sy::service::builders
