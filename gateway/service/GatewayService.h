#pragma once
// GatewayService: the composition root of the gateway. It owns the HTTP front, the upstream
// client and the current Workspace, wires the routes, and runs each request to its end.
//
// Thread: create, start and use on one thread (the gateway thread); in the desktop app that is
// a worker thread, in switchyard-gateway the main thread.
#include "config/Config.h"
#include "core/Clock.h"
#include "http/HttpFront.h"
#include "onboarding/UsageArchive.h"
#include "service/AdmissionGate.h"
#include "service/ChatRequest.h"
#include "service/ExchangeContext.h"
#include "service/OutageInjector.h"
#include "service/RequestLog.h"
#include "service/ResponseStore.h"
#include "storage/Store.h"
#include "service/GatewayState.h"
#include "service/Workspace.h"
#include "upstream/UpstreamClient.h"

#include <QObject>
#include <functional>
#include <memory>

namespace sy::service {

class AdminApi;

struct GatewayCounters {
    quint64 requests = 0;      // every request that reached a /v1 handler
    quint64 succeeded = 0;     // answered 2xx
    quint64 failed = 0;        // answered with an error status
    quint64 failedOver = 0;    // answered after more than one attempt (or a failed one)
    int inFlight = 0;          // chat requests not finished yet
    QHash<int, quint64> byStatus;
    quint64 promptTokens = 0;
    quint64 completionTokens = 0;
};

class GatewayService : public QObject {
    Q_OBJECT
public:
    // `upstream` may be injected (tests); by default the libcurl client is used.
    explicit GatewayService(config::Config config, const Clock &clock = SystemClock::instance(),
                            std::unique_ptr<upstream::UpstreamClient> upstream = nullptr,
                            QObject *parent = nullptr);
    ~GatewayService() override;

    // Listens on the configured address. Returns false with `error` set (e.g. port in use).
    bool start(QString *error = nullptr);
    quint16 port() const { return m_port; }
    QString listenAddress() const;

    WorkspacePtr workspace() const { return m_workspace; }
    // What the gateway has learned across requests (metrics, health, credentials). Gateway thread.
    GatewayState &state() { return *m_state; }
    // Swaps in a new configuration; requests already running keep the one they started with.
    void replaceWorkspace(config::Config config);
    // replaceWorkspace() plus persistence and notification: what an admin edit calls.
    void applyConfig(config::Config config);
    // Hands new ledger entries to persistence (when a store is attached).
    void persistLedger();
    // The admin token generated at start when the configuration has none (shown once by the
    // program that started the gateway); empty when the configuration sets one.
    QByteArray generatedAdminToken() const { return m_generatedAdminToken; }
    // The admin API (in-process calls from the desktop app); null until start() succeeded.
    AdminApi *admin() const { return m_admin.get(); }
    const GatewayCounters &counters() const { return m_counters; }
    RequestLog &requestLog() { return *m_log; }
    // The charges that left the ledger's memory while no store was attached, summed per day
    // (the usage history's only source for them then). Gateway thread.
    const onboarding::UsageArchive &droppedUsage() const { return m_droppedUsage; }
    // The failure lab's outages (dashboard, admin API). Gateway thread.
    failover::OutagePlan &outages() { return m_state->outages; }
    const Clock &clock() const { return m_clock; }
    // The database behind the gateway, when there is one (request log beyond memory). The store
    // must outlive the service. Gateway thread.
    void setStore(storage::Store *store);
    storage::Store *store() const { return m_store; }
    const http::HttpFront &front() const { return *m_front; }
    // The upstream client every request goes through (admin discovery and channel tests too).
    upstream::UpstreamClient &upstreamClient() { return *m_upstream; }
    // Key limits shared with other instances (Redis); null: this instance's own. Set before
    // start(); `limits` must outlive the service.
    void setSharedKeyLimits(limits::SharedKeyLimits *limits);
    limits::SharedKeyLimits *sharedKeyLimits() const { return m_sharedLimits; }
    // This instance's name in /metrics: `instance_name`, else host name and listening port.
    QString instanceName() const;

signals:
    void requestFinished(const QByteArray &requestId, int status);
    void configApplied();
    void ledgerChanged();

private:
    void registerRoutes();
    // The key of an authenticated request, or nullptr after answering 401.
    const config::Key *authenticate(const http::HttpRequest &request, http::ResponseSink &sink,
                                    const QByteArray &requestId, const Workspace &workspace, api::Format format);
    // Every chat-shaped endpoint: Chat Completions, Anthropic Messages, Responses, Gemini.
    void handleChat(const IngressFacts &facts, const char *endpoint, http::HttpRequest &&request,
                    std::shared_ptr<http::ResponseSink> sink);
    // POST /v1beta/models/{model}:{method} (GatewayGeminiRoutes.cpp).
    void handleGeminiModelCall(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void handleGeminiCountTokens(const QString &model, http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    // GET /v1beta/models and /v1beta/models/{model}.
    void handleGeminiModels(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    // POST /v1/embeddings (GatewayEmbeddingsRoute.cpp).
    void handleEmbeddings(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void handleCountTokens(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void handleModels(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void handleHealth(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void handleUnknownV1(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    RequestRecord startRecord(const char *endpoint, const QByteArray &requestId) const;
    // The start every /v1 handler shares: an id, a log record, the workspace of the moment and
    // the caller's key. Answers (and logs) 401 and returns nothing when the key is missing or wrong.
    struct KeyedRequest {
        Clock::TimePoint arrivedAt;
        QByteArray requestId;
        RequestRecord record;
        WorkspacePtr workspace;
        const config::Key *key = nullptr;
    };
    std::optional<KeyedRequest> beginKeyedRequest(const char *endpoint, const http::HttpRequest &request,
                                                  http::ResponseSink &sink,
                                                  api::Format format = api::Format::OpenAiChat);
    // The admission every exchange-running route ends with (GatewayAdmission.cpp): the key's
    // limits, balance and spend through AdmissionGate, one more request in flight meanwhile. A
    // refusal is answered in `format`; a client that leaves while admission waits ends the request
    // (499). Once admitted, `run` gets the context (queue time recorded) and the ticket, and starts
    // the exchange, connecting its `finished` to onExchangeFinished. Gateway thread.
    using RunAdmitted = std::function<void(ExchangeContext context, AdmissionTicket ticket)>;
    void admitThenRun(AdmissionRequest admission, ExchangeContext context, api::Format format,
                      std::shared_ptr<http::ResponseSink> sink, RunAdmitted run);
    // An admitted request's exchange is over: one fewer in flight, its record counted.
    void onExchangeFinished(const RequestRecord &record);
    void applyCapacities();
    // `countForBreaker` false: the outcome is left out of the key breaker (countsAgainstKey()).
    void finishRecord(RequestRecord &&record, int status, Clock::TimePoint arrivedAt, const QString &error = {},
                      bool countForBreaker = true);
    void recordFinished(const RequestRecord &record, bool countForBreaker = true);

    const Clock &m_clock;
    WorkspacePtr m_workspace;
    std::unique_ptr<upstream::UpstreamClient> m_upstream;
    std::unique_ptr<GatewayState> m_state;
    std::unique_ptr<RequestLog> m_log;
    std::unique_ptr<OutageInjector> m_injector;
    std::unique_ptr<AdmissionGate> m_admission;
    std::unique_ptr<AdminApi> m_admin;
    std::unique_ptr<ResponseStore> m_responses;
    onboarding::UsageArchive m_droppedUsage;
    QByteArray m_generatedAdminToken;
    storage::Store *m_store = nullptr;
    limits::SharedKeyLimits *m_sharedLimits = nullptr;
    quint64 m_admissionTokens = 0;
    std::unique_ptr<http::HttpFront> m_front;
    quint16 m_port = 0;
    GatewayCounters m_counters;
    Clock::TimePoint m_startedAt;
};

} // namespace sy::service
