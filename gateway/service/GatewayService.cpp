#include "service/GatewayService.h"

#include "api/Codec.h"
#include "core/RequestId.h"
#include "service/ChatExchange.h"
#include "service/ChatRequest.h"
#include "service/EmbeddingsExchange.h"
#include "service/CountTokens.h"
#include "service/ErrorReply.h"
#include "service/ExchangeMoney.h"
#include "service/AdminApi.h"
#include "service/IngressRoutes.h"
#include "service/ModelList.h"
#include "api/responses/ResponseIds.h"
#include "billing/Pricing.h"
#include "service/PrometheusExporter.h"
#include "upstream/LaneUpstreamClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QSysInfo>
#include "routing/StickyConversations.h"

namespace sy::service {

namespace {

http::FrontOptions frontOptions(const config::Config &config)
{
    http::FrontOptions options;
    options.maxBodyBytes = config.settings.maxBodyBytes;
    const QHostAddress address(config.listenHost);
    // A user who binds a non-loopback address has opted in to remote clients.
    options.allowRemoteHosts = !address.isNull() && !address.isLoopback();
    options.reusePort = config.listenReusePort;
    return options;
}

// The key as each client family sends it (SPEC §2): Bearer for all; x-api-key (Anthropic);
// x-goog-api-key, and ?key= on Gemini routes only (a key in a URL is a Gemini habit, not one to
// invite elsewhere).
QByteArray clientSecret(const http::HttpRequest &request, api::Format format)
{
    const QByteArray authorization = request.header("authorization");
    if (authorization.startsWith("Bearer ") || authorization.startsWith("bearer "))
        return authorization.mid(7).trimmed();
    if (QByteArray key = request.header("x-api-key").trimmed(); !key.isEmpty())
        return key;
    if (QByteArray key = request.header("x-goog-api-key").trimmed(); !key.isEmpty())
        return key;
    if (format == api::Format::Gemini)
        return request.query.queryItemValue(QStringLiteral("key"), QUrl::FullyDecoded).toUtf8().trimmed();
    return {};
}

QString missingKeyMessage(api::Format format)
{
    switch (format) {
    case api::Format::Anthropic:
        return QStringLiteral("Missing API key: send it as 'x-api-key: <key>' or 'Authorization: Bearer <key>'.");
    case api::Format::Gemini:
        return QStringLiteral("Missing API key: send it as 'x-goog-api-key: <key>', as '?key=<key>' or as 'Authorization: Bearer <key>'.");
    case api::Format::OpenAiChat:
    case api::Format::OpenAiResponses: break;
    }
    return QStringLiteral("Missing API key: send it as 'Authorization: Bearer <key>'.");
}

} // namespace

GatewayService::GatewayService(config::Config config, const Clock &clock,
                               std::unique_ptr<upstream::UpstreamClient> upstream, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_workspace(std::make_shared<const Workspace>(std::move(config)))
    , m_upstream(upstream ? std::move(upstream) : std::make_unique<upstream::LaneUpstreamClient>())
    , m_state(std::make_unique<GatewayState>(clock, QRandomGenerator::system()->generate(),
                                             m_workspace->config().balance
                                                 ? std::optional(billing::fromCurrency(*m_workspace->config().balance))
                                                 : std::nullopt))
    , m_log(std::make_unique<RequestLog>())
    , m_responses(std::make_unique<ResponseStore>())
{
    m_injector = std::make_unique<OutageInjector>(*m_upstream);
    // With a store every charge is in it; without one, what the ledger drops from memory is kept
    // as sums for the usage history.
    m_state->ledger.setOnDropped([this](const billing::LedgerEntry &e) {
        if (!m_store && e.kind == billing::LedgerEntry::Kind::Charge)
            m_droppedUsage.record({e.requestId, e.at, e.keyName, e.modelId, e.promptTokens, e.completionTokens, e.amount});
    });
    m_responses->setRetention(m_workspace->config().settings.logRetentionDays, m_workspace->config().settings.logRetentionCount);
    m_admission = std::make_unique<AdmissionGate>(*m_state, m_clock);
    applyCapacities();
    QByteArray adminToken = m_workspace->config().adminToken.toUtf8();
    if (adminToken.isEmpty()) {
        quint64 words[2];
        QRandomGenerator::system()->fillRange(words);
        adminToken = "sya-" + QByteArray::number(words[0], 16).rightJustified(16, '0')
            + QByteArray::number(words[1], 16).rightJustified(16, '0');
        m_generatedAdminToken = adminToken;
    }
    m_admin = std::make_unique<AdminApi>(*this, QCryptographicHash::hash(adminToken, QCryptographicHash::Sha256).toHex());
    m_front = std::make_unique<http::HttpFront>(frontOptions(m_workspace->config()));
    // The front's own refusals (413, 431, 404 …) in the format of the route that was asked.
    m_front->setErrorFormatter([](const QByteArray &path, int status, const QString &message) {
        return errorBodyIn(formatForPath(path), {status, message});
    });
    registerRoutes();
    m_admin->registerRoutes(*m_front);
}

GatewayService::~GatewayService()
{
    // Exchanges in flight use the upstream client and the routing state: they go first.
    qDeleteAll(findChildren<ChatExchange *>(QString(), Qt::FindDirectChildrenOnly));
    qDeleteAll(findChildren<EmbeddingsExchange *>(QString(), Qt::FindDirectChildrenOnly));
    m_admin.reset();
    m_admission.reset();
    m_injector.reset();
}

bool GatewayService::start(QString *error)
{
    const config::Config &config = m_workspace->config();
    QHostAddress address;
    if (config.listenHost == QLatin1String("localhost"))
        address = QHostAddress::LocalHost;
    else if (!address.setAddress(config.listenHost)) {
        if (error)
            *error = QStringLiteral("listen address '%1' is not an IP address").arg(config.listenHost);
        return false;
    }
    m_port = m_front->listenOn(address, config.listenPort);
    if (m_port == 0 && error)
        *error = QStringLiteral("cannot listen on %1:%2: %3").arg(config.listenHost).arg(config.listenPort).arg(m_front->errorString());
    m_startedAt = m_clock.now();
    return m_port != 0;
}

void GatewayService::setStore(storage::Store *store)
{
    m_store = store;
    // Admission refuses new requests while the store cannot log them (SPEC §10).
    m_admission->setRequestLogStore(store);
}

void GatewayService::setSharedKeyLimits(limits::SharedKeyLimits *limits)
{
    m_sharedLimits = limits;
    m_admission->setSharedLimits(limits);
}

QString GatewayService::instanceName() const
{
    const QString configured = m_workspace->config().instanceName;
    return configured.isEmpty() ? QSysInfo::machineHostName() + u':' + QString::number(m_port) : configured;
}

QString GatewayService::listenAddress() const
{
    const QString host = m_workspace->config().listenHost;
    return QStringLiteral("http://%1:%2").arg(host.contains(':') ? '[' + host + ']' : host).arg(m_port);
}

void GatewayService::replaceWorkspace(config::Config config)
{
    m_workspace = std::make_shared<const Workspace>(std::move(config));
    applyCapacities();
    m_responses->setRetention(m_workspace->config().settings.logRetentionDays, m_workspace->config().settings.logRetentionCount);
    if (m_front)
        m_front->setMaxBodyBytes(m_workspace->config().settings.maxBodyBytes);
}

void GatewayService::applyConfig(config::Config config)
{
    replaceWorkspace(std::move(config));
    emit configApplied();
}

void GatewayService::persistLedger()
{
    emit ledgerChanged();
}

void GatewayService::applyCapacities()
{
    for (const config::Channel &channel : m_workspace->config().channels)
        m_state->capacity.setCapacity(channel.id, channel.maxConcurrent);
}

void GatewayService::registerRoutes()
{
    using namespace std::placeholders;
    m_front->route("GET", "/health", std::bind(&GatewayService::handleHealth, this, _1, _2));
    m_front->route("POST", "/v1/chat/completions", [this](http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink) {
        handleChat({api::Format::OpenAiChat}, "chat.completions", std::move(request), std::move(sink));
    });
    m_front->route("POST", "/v1/messages", [this](http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink) {
        handleChat({api::Format::Anthropic}, "messages", std::move(request), std::move(sink));
    });
    m_front->route("POST", "/v1/responses", [this](http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink) {
        handleChat({api::Format::OpenAiResponses}, "responses", std::move(request), std::move(sink));
    });
    m_front->routePrefix("POST", "/v1beta/models/", std::bind(&GatewayService::handleGeminiModelCall, this, _1, _2));
    m_front->route("GET", "/v1beta/models", std::bind(&GatewayService::handleGeminiModels, this, _1, _2));
    m_front->routePrefix("GET", "/v1beta/models/", std::bind(&GatewayService::handleGeminiModels, this, _1, _2));
    m_front->route("POST", "/v1/embeddings", std::bind(&GatewayService::handleEmbeddings, this, _1, _2));
    m_front->route("POST", "/v1/messages/count_tokens", std::bind(&GatewayService::handleCountTokens, this, _1, _2));
    m_front->route("GET", "/v1/models", std::bind(&GatewayService::handleModels, this, _1, _2));
    m_front->route("GET", "/metrics", [this](http::HttpRequest &&, std::shared_ptr<http::ResponseSink> sink) {
        // Loopback only by default, like everything else; no key, so a local Prometheus can scrape it.
        sink->respond(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}}, renderPrometheus(*this));
    });
    for (const char *method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
        m_front->routePrefix(method, "/v1/", std::bind(&GatewayService::handleUnknownV1, this, _1, _2));
        m_front->routePrefix(method, "/v1beta/", std::bind(&GatewayService::handleUnknownV1, this, _1, _2));
    }
}

const config::Key *GatewayService::authenticate(const http::HttpRequest &request, http::ResponseSink &sink,
                                                const QByteArray &requestId, const Workspace &workspace,
                                                api::Format format)
{
    const QByteArray secret = clientSecret(request, format);
    const config::Key *key = workspace.findKeyBySecret(secret);
    if (key && key->enabled)
        return key;
    const QString message = secret.isEmpty() ? missingKeyMessage(format)
        : key ? QStringLiteral("This API key is disabled.") : QStringLiteral("Invalid API key.");
    sendErrorReply(sink, requestId, ErrorReply{401, message, secret.isEmpty() ? "missing_api_key" : "invalid_api_key"}, format);
    return nullptr;
}

RequestRecord GatewayService::startRecord(const char *endpoint, const QByteArray &requestId) const
{
    RequestRecord record;
    record.id = requestId;
    record.at = m_clock.wallNow();
    record.endpoint = QString::fromLatin1(endpoint);
    return record;
}

std::optional<GatewayService::KeyedRequest> GatewayService::beginKeyedRequest(const char *endpoint,
                                                                             const http::HttpRequest &request,
                                                                             http::ResponseSink &sink,
                                                                             api::Format format)
{
    KeyedRequest begun{m_clock.now(), newRequestId(), {}, m_workspace, nullptr};
    ++m_counters.requests;
    begun.record = startRecord(endpoint, begun.requestId);
    begun.key = authenticate(request, sink, begun.requestId, *begun.workspace, format);
    if (!begun.key) {
        finishRecord(std::move(begun.record), 401, begun.arrivedAt, QStringLiteral("authentication failed"));
        return std::nullopt;
    }
    begun.record.keyName = begun.key->name;
    return begun;
}

void GatewayService::handleChat(const IngressFacts &facts, const char *endpoint, http::HttpRequest &&request,
                                std::shared_ptr<http::ResponseSink> sink)
{
    const api::Format format = facts.format;
    std::optional<KeyedRequest> begun = beginKeyedRequest(endpoint, request, *sink, format);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    record.authMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - arrivedAt).count();
    const auto refuse = [&](const ErrorReply &reply) {
        sendErrorReply(*sink, requestId, reply, format);
        finishRecord(std::move(record), reply.status, arrivedAt, reply.message);
    };
    // A suspended or breaker-disabled key is refused before anything else about the request.
    if (const std::optional<ErrorReply> refusal = breakerRefusal(*m_state, key->name))
        return refuse(*refusal);

    auto parsed = parseChatRequest(request.body, *workspace, m_clock.wallNow().date(), facts);
    if (auto *error = std::get_if<ErrorReply>(&parsed))
        return refuse(*error);
    ChatRequest chat = std::get<ChatRequest>(std::move(parsed));
    record.requestedModel = chat.primaryModel;
    record.stream = chat.stream;
    if (const std::optional<ErrorReply> invalid = prepareTranslation(chat, *workspace, request))
        return refuse(*invalid);
    if (format == api::Format::OpenAiResponses) {
        if (const std::optional<ErrorReply> unknown = continueResponse(chat, *m_responses, key->name,
                                                                       api::responses::responseIdFor(requestId), m_clock))
            return refuse(*unknown);
    }
    if (!key->allowedModels.isEmpty()) {
        // The guardrail covers every model the request could reach, fallbacks included (SPEC §8).
        chat.chain.removeIf([&](const QString &model) { return !key->allowedModels.contains(model); });
        const bool primaryAllowed = key->allowedModels.contains(chat.primaryModel)
            || (workspace->findVirtualModel(chat.primaryModel) && !chat.chain.isEmpty());
        if (!primaryAllowed || chat.chain.isEmpty())
            return refuse({403, QStringLiteral("Request blocked by guardrail policy"), "guardrail_blocked", "model"});
    }

    ExchangeContext context;
    context.requestId = requestId;
    context.record = std::move(record);
    context.arrivedAt = arrivedAt;
    context.simulateFail = parseSimulateFail(request.header("x-simulate-fail"));
    context.conversation = routing::conversationKeyFromDigest(key->name, chat.primaryModel, request.header("x-session-id"),
                                                              chat.user, chat.turnsDigest);

    AdmissionRequest admission;
    admission.token = ++m_admissionTokens;
    admission.key = *key;
    admission.primaryModel = chat.chain.value(0);
    if (const config::Model *primary = workspace->findModel(admission.primaryModel))
        admission.modelRequestsPerMinute = primary->rpmPerKey;
    admission.estimate = estimateCharge(*workspace, chat);
    admission.keyWait = std::chrono::seconds(workspace->config().settings.keyLimitWaitS);

    const api::Format replyFormat = chat.format;
    admitThenRun(std::move(admission), std::move(context), replyFormat, sink,
        [this, workspace, chat = std::move(chat), sink](ExchangeContext context, AdmissionTicket ticket) mutable {
            auto *exchange = new ChatExchange(std::move(context), std::move(workspace), std::move(chat), std::move(ticket),
                                              std::move(sink), *m_injector, *m_state, m_clock, this);
            connect(exchange, &ChatExchange::finished, this, &GatewayService::onExchangeFinished);
            exchange->start();
        });
}

void GatewayService::handleCountTokens(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    constexpr api::Format format = api::Format::Anthropic;
    std::optional<KeyedRequest> begun = beginKeyedRequest("messages.count_tokens", request, *sink, format);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    const QJsonObject body = QJsonDocument::fromJson(request.body).object();
    const QString model = body.value("model").toString();
    std::optional<ErrorReply> refusal;
    if (body.isEmpty())
        refusal = ErrorReply{400, QStringLiteral("Request body must be a JSON object."), "invalid_json"};
    else if (model.isEmpty())
        refusal = ErrorReply{400, QStringLiteral("'model' is required."), {}, "model"};
    else if (!workspace->findModel(model))
        refusal = ErrorReply{404, QStringLiteral("The model '%1' does not exist.").arg(model), "model_not_found", "model"};
    else if (!key->allowedModels.isEmpty() && !key->allowedModels.contains(model))
        refusal = ErrorReply{403, QStringLiteral("Request blocked by guardrail policy"), "guardrail_blocked", "model"};
    if (refusal) {
        sendErrorReply(*sink, requestId, *refusal, format);
        return finishRecord(std::move(record), refusal->status, arrivedAt, refusal->message);
    }
    record.requestedModel = model;
    countTokens(body, request.body, *workspace, request.header("anthropic-version"), requestId, sink, *m_injector,
                [this, record = std::move(record), arrivedAt](int status) mutable {
                    finishRecord(std::move(record), status, arrivedAt);
                });
}

void GatewayService::finishRecord(RequestRecord &&record, int status, Clock::TimePoint arrivedAt, const QString &error,
                                  bool countForBreaker)
{
    record.status = status;
    record.errorMessage = error;
    record.totalMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - arrivedAt).count();
    recordFinished(record, countForBreaker);
}

void GatewayService::recordFinished(const RequestRecord &record, bool countForBreaker)
{
    if (record.status >= 200 && record.status < 300)
        ++m_counters.succeeded;
    else
        ++m_counters.failed;
    if (record.failedOver())
        ++m_counters.failedOver;
    ++m_counters.byStatus[record.status];
    m_counters.promptTokens += record.promptTokens;
    // The breaker counts the key's failures, the gateway's own 4xx included; a client that left is no
    // failure, nor is a refusal because the gateway's shared database or limits server is away.
    if (!record.keyName.isEmpty() && record.status != 499 && countForBreaker)
        m_state->breaker.recordOutcome(record.keyName, record.status >= 400);
    m_counters.completionTokens += record.completionTokens;
    m_log->add(record);
    emit requestFinished(record.id, record.status);
}

void GatewayService::handleModels(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    std::optional<KeyedRequest> begun = beginKeyedRequest("models", request, *sink);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    // Anthropic clients (they send anthropic-version, and their key as x-api-key) get the list in
    // the shape of Anthropic's GET /v1/models.
    const bool anthropicClient = !request.header("anthropic-version").isEmpty() || !request.header("x-api-key").isEmpty();
    const QJsonObject list = modelList(*workspace, *key, m_clock.wallNow().date(),
                                       anthropicClient ? ModelListShape::Anthropic : ModelListShape::OpenAi);
    sink->respond(200, {{"Content-Type", "application/json"}, {"x-request-id", requestId}},
                  QJsonDocument(list).toJson(QJsonDocument::Compact));
    finishRecord(std::move(record), 200, arrivedAt);
}

void GatewayService::handleHealth(http::HttpRequest &&, std::shared_ptr<http::ResponseSink> sink)
{
    const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(m_clock.now() - m_startedAt);
    const QJsonObject body{{"status", "ok"},
                           {"uptime_s", double(uptime.count())},
                           {"in_flight", m_counters.inFlight},
                           {"channels", int(m_workspace->config().channels.size())}};
    sink->respond(200, {{"Content-Type", "application/json"}, {"x-request-id", newRequestId()}},
                  QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void GatewayService::handleUnknownV1(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    const api::Format format = formatForPath(request.path);
    std::optional<KeyedRequest> begun = beginKeyedRequest("unknown", request, *sink, format);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    // A known endpoint asked with the wrong method is a 405, not an unknown route.
    static const QSet<QByteArray> knownPaths{"/v1/chat/completions", "/v1/models", "/v1/messages",
                                             "/v1/messages/count_tokens", "/v1/responses", "/v1/embeddings",
                                             "/v1beta/models"};
    const bool known = knownPaths.contains(request.path);
    const ErrorReply reply{known ? 405 : 404,
                           known ? QStringLiteral("Method %1 is not allowed on %2.").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path))
                                 : QStringLiteral("Unknown route: %1 %2").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path)),
                           known ? "method_not_allowed" : "unknown_route"};
    sendErrorReply(*sink, requestId, reply, format);
    finishRecord(std::move(record), reply.status, arrivedAt, reply.message);
}

} // namespace sy::service
