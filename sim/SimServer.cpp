#include "SimServer.h"

#include "ChatExchange.h"
#include "ControlApi.h"
#include "ProviderPath.h"

#include <QDateTime>

namespace sy::sim {

namespace {

http::FrontOptions frontOptions(const SimOptions &simOptions)
{
    http::FrontOptions options;
    options.maxBodyBytes = 64 * 1024 * 1024;
    options.allowRemoteHosts = simOptions.allowRemoteHosts;
    return options;
}

} // namespace

SimServer::SimServer(SimOptions options, QObject *parent)
    : QObject(parent), m_state(options.seed), m_exchanges(new QObject(this)),
      m_front(new http::HttpFront(frontOptions(options), this))
{
    m_front->setErrorFormatter([this](const QByteArray &, int status, const QString &message) {
        return m_openAi.errorBody(status, message);
    });
    // Exact routes first: HttpFront::route() appends behind the prefix routes already sorted.
    installControlRoutes(*m_front, m_state);
    for (const QByteArray &method : {QByteArrayLiteral("GET"), QByteArrayLiteral("POST")}) {
        m_front->routePrefix(method, "/", [this](http::HttpRequest &&request,
                                                 std::shared_ptr<http::ResponseSink> sink) {
            handleProviderPath(std::move(request), std::move(sink));
        });
    }
}

SimServer::~SimServer()
{
    // Exchanges count themselves out of m_state.stats and the front's handlers use m_openAi:
    // end both while the members exist (QObject would delete its children only after them).
    delete m_exchanges;
    delete m_front;
}

quint16 SimServer::listen(const QHostAddress &address, quint16 port)
{
    return m_front->listenOn(address, port);
}

void SimServer::handleProviderPath(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    const std::optional<ProviderPath> target = parseProviderPath(request.path);
    if (target && request.method == "POST" && target->endpoint == "/v1/chat/completions") {
        handleChat(*target, std::move(request), std::move(sink));
    } else if (target && request.method == "GET" && target->endpoint == "/v1/models") {
        handleModels(*target, std::move(sink));
    } else {
        respondError(*sink, 404, QStringLiteral("Unknown simulator path %1 %2")
                                     .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path)));
    }
}

void SimServer::handleChat(const ProviderPath &target, http::HttpRequest &&request,
                           std::shared_ptr<http::ResponseSink> sink)
{
    const RequestParse parsed = m_openAi.parseRequest(request.body);
    m_state.stats.recordRequest(target.provider, parsed.request ? parsed.request->model : QString());
    if (!parsed.request) {
        respondError(*sink, 400, parsed.error);
        return;
    }
    const SimRule &rule = m_state.rules.select(target.provider, parsed.request->model);
    ChatPlan plan = m_state.planner.plan(rule, *parsed.request, QDateTime::currentSecsSinceEpoch());
    if (plan.failure.kind != FailureKind::None)
        m_state.stats.recordFailure(failureName(plan.failure));
    ChatExchange::start(std::move(plan), m_openAi, std::move(sink), m_state.stats, m_exchanges);
}

void SimServer::handleModels(const ProviderPath &target, std::shared_ptr<http::ResponseSink> sink)
{
    const QString owner = target.provider == kDefaultProvider ? QStringLiteral("switchyard-sim") : target.provider;
    sink->respond(200, {{"content-type", "application/json"}},
                  m_openAi.modelList(m_state.catalog.modelsFor(target.provider), owner));
}

void SimServer::respondError(http::ResponseSink &sink, int status, const QString &message)
{
    sink.respond(status, {{"content-type", "application/json"}}, m_openAi.errorBody(status, message));
}

} // namespace sy::sim
