#pragma once
// AdminApi: the JSON admin API under /admin/ (SPEC §2): everything the dashboard can edit, for
// headless installs too. Admin token required (`Authorization: Bearer <token>`), loopback
// clients only, and the front's Host/Origin checks apply.
//
// Edits are applied "as a whole": the current configuration is written out, the edit is applied
// to that document, and the result goes through the configuration loader's full validation.
// An invalid or inconsistent edit is refused with 400 naming the field; a valid one replaces the
// workspace atomically (requests in flight keep the configuration they started with).
//
// Thread: the gateway thread.
#include "config/Config.h"
#include "http/HttpFront.h"

#include <QJsonObject>
#include <QObject>
#include <functional>
#include <memory>
#include <vector>

namespace sy::service {

class ChannelProbes;
class GatewayService;

class AdminApi : public QObject {
    Q_OBJECT
public:
    // `adminTokenSha256`: lower-case hex SHA-256 of the admin token; empty disables the API (403).
    AdminApi(GatewayService &gateway, QByteArray adminTokenSha256, QObject *parent = nullptr);
    ~AdminApi() override;

    void registerRoutes(http::HttpFront &front);
    // Periodic channel probes started so far (probe_interval_s).
    quint64 probesSent() const;

    // The same API called in-process by the desktop app's editors: `method` and `target` as in
    // an HTTP request ("PATCH", "/admin/keys/ide?x=1"), `body` JSON (or YAML for PUT /admin/config).
    // Trusted: no token or peer check. `answer` runs exactly once, with the status and the JSON
    // body an HTTP client would get: synchronously for most routes; later, from the gateway
    // thread's event loop, for those that wait on an upstream (discovery, channel tests). The
    // event stream is refused (400): it needs a connection.
    using InProcessAnswer = std::function<void(int status, const QByteArray &body)>;
    void invoke(const QByteArray &method, const QByteArray &target, const QByteArray &body, InProcessAnswer answer);

    // One call of a route (AdminCall.h); public only so the route files' helpers can name it.
    struct Call;

private:
    void dispatch(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void route(Call &call);
    bool authorized(const http::HttpRequest &request) const;

    // Configuration (AdminConfigRoutes.cpp).
    void handleConfig(Call &call);
    void handleCollection(Call &call, const char *section, const char *idField);
    void handleKeys(Call &call);
    void handleSettings(Call &call);
    void handleDefaultModel(Call &call);
    // Runtime (AdminRuntimeRoutes.cpp).
    void handleBalance(Call &call);
    void handleOutages(Call &call);
    void handleRequests(Call &call);
    void handleLedger(Call &call);
    void handleEvents(Call &call);
    void handleBreakerReset(Call &call, const QString &keyName);
    // Onboarding (AdminOnboardingRoutes.cpp): presets, discovery, channel tests, client setup.
    // `channel` is the saved channel of /admin/channels/{id}/…, null for unsaved settings.
    void handlePresets(Call &call);
    void handleDiscover(Call &call, const config::Channel *channel);
    void handleTest(Call &call, const config::Channel *channel);
    void handleConnect(Call &call);
    // Usage history (AdminUsageRoutes.cpp).
    void handleUsage(Call &call);

    // Applies `document` (the whole configuration as JSON) if it validates; answers the call.
    bool applyDocument(Call &call, const QJsonObject &document, int successStatus, const QJsonValue &answer);
    QJsonObject currentDocument() const;

    GatewayService &m_gateway;
    QByteArray m_tokenSha256;
    std::unique_ptr<ChannelProbes> m_probes;   // periodic channel tests (probe_interval_s)
};

} // namespace sy::service
