#pragma once
// Workspace: one immutable snapshot of the configuration with the lookups the request path needs.
// A request takes a std::shared_ptr<const Workspace> when it starts and keeps it to the end, so
// a configuration change applies atomically: a request sees the old or the new one, never a mix.
#include "config/Config.h"
#include "routing/RouteTable.h"

#include <QHash>
#include <QSet>
#include <memory>

namespace sy::service {

// One way to serve a model: a channel and the model's upstream name and price on it.
struct ChannelRoute {
    const config::Channel *channel = nullptr;
    const config::ChannelModel *model = nullptr;
};

enum class ModelState { Unknown, Available, Disabled, PastSunset };

class Workspace {
public:
    explicit Workspace(config::Config config);
    // Not copyable: the route tables point into this object's configuration.
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;

    const config::Config &config() const { return m_config; }
    // The `format` values of the enabled channels (decided once per configuration, so a request
    // on a workspace of one format never looks for a translation).
    const QSet<QString> &channelFormats() const { return m_channelFormats; }

    // The key whose secret is `secret` (hashed and looked up), or nullptr. Disabled keys are
    // returned too: the caller decides (401 either way).
    const config::Key *findKeyBySecret(QByteArrayView secret) const;

    const config::Model *findModel(const QString &id) const;
    const config::VirtualModel *findVirtualModel(const QString &id) const;
    // Whether `id` can be requested on `today` (UTC date).
    ModelState modelState(const QString &id, const QDate &today) const;
    // Enabled channels that serve `modelId`, in configuration order (built once per configuration).
    const std::vector<ChannelRoute> &routesFor(const QString &modelId) const;
    // Every channel (enabled or not) of each model, for the selector's filters and trace.
    const routing::RouteTable &routeTable() const { return m_routeTable; }
    // How a channel is named in X-TsarRouter-* headers: its provider slug, or its channel id
    // where several channels share that provider (SPEC §6).
    QString channelLabel(const config::Channel &channel) const;

private:
    config::Config m_config;
    QHash<QByteArray, int> m_keyByHash;   // SHA-256 digest of the secret (32 bytes) → index in keys
    QHash<QString, int> m_modelById;
    QHash<QString, int> m_virtualById;
    QHash<QString, int> m_channelsPerProvider;
    QSet<QString> m_channelFormats;
    routing::RouteTable m_routeTable;
    QHash<QString, std::vector<ChannelRoute>> m_enabledRoutes;
};

using WorkspacePtr = std::shared_ptr<const Workspace>;

} // namespace sy::service
