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
    m_front->setErrorFormatter([this](const QByteArray &path, int status, const QString &message) {
        return errorFormatFor(path).errorBody(status, message);
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
    // Exchanges count themselves out of m_state.stats and the front's handlers use the formats:
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
    const bool post = request.method == "POST";
    const bool get = request.method == "GET";
    if (target) {
        const QByteArray &endpoint = target->endpoint;
        if (post && endpoint == "/v1/chat/completions")
            return handleChat(*target, m_openAi, std::move(request), std::move(sink));
        if (post && endpoint == "/v1/embeddings")
            return handleChat(*target, m_openAiEmbeddings, std::move(request), std::move(sink));
        if (post && endpoint == "/v1/messages")
            return handleChat(*target, m_anthropic, std::move(request), std::move(sink));
        if (post && endpoint == "/v1/messages/count_tokens")
            return handleCountTokens(*target, m_anthropic, std::move(request), std::move(sink));
        if (get && endpoint == "/v1/models") {
            // Anthropic's SDKs always send anthropic-version; OpenAI's never do.
            const bool anthropic = !request.header("anthropic-version").isEmpty();
            return handleModels(*target, anthropic ? static_cast<const WireFormat &>(m_anthropic) : m_openAi, std::move(sink));
        }
        if (get && endpoint == "/v1beta/models")
            return handleModels(*target, m_gemini, std::move(sink));
        if (const std::optional<GeminiModelCall> call = parseGeminiModelCall(endpoint); post && call) {
            if (call->method == "generateContent" || call->method == "streamGenerateContent")
                return handleChat(*target, m_gemini, std::move(request), std::move(sink));
            if (call->method == "countTokens")
                return handleCountTokens(*target, m_gemini, std::move(request), std::move(sink));
            if (call->method == "embedContent")
                return handleChat(*target, m_geminiEmbedding, std::move(request), std::move(sink));
            if (call->method == "batchEmbedContents")
                return handleChat(*target, m_geminiBatchEmbedding, std::move(request), std::move(sink));
        }
    }
    respondError(*sink, errorFormatFor(request.path), 404,
                 QStringLiteral("Unknown simulator path %1 %2")
                     .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path)));
}

void SimServer::handleChat(const ProviderPath &target, const WireFormat &format, http::HttpRequest &&request,
                           std::shared_ptr<http::ResponseSink> sink)
{
    const RequestParse parsed = format.parseRequest(request, target.endpoint);
    m_state.stats.recordRequest(target.provider, parsed.request ? parsed.request->model : QString());
    if (!parsed.request) {
        respondError(*sink, format, parsed.status, parsed.error);
        return;
    }
    const SimRule &rule = m_state.rules.select(target.provider, parsed.request->model);
    ChatPlan plan = m_state.planner.plan(rule, *parsed.request, QDateTime::currentSecsSinceEpoch());
    if (plan.failure.kind != FailureKind::None)
        m_state.stats.recordFailure(failureName(plan.failure));
    ChatExchange::start(std::move(plan), format, std::move(sink), m_state.stats, m_exchanges);
}

void SimServer::handleCountTokens(const ProviderPath &target, const WireFormat &format, http::HttpRequest &&request,
                                  std::shared_ptr<http::ResponseSink> sink)
{
    const RequestParse parsed = format.parseRequest(request, target.endpoint);
    if (!parsed.request) {
        respondError(*sink, format, parsed.status, parsed.error);
        return;
    }
    const int tokens = parsed.request->promptTokens;
    sink->respond(200, {{"content-type", "application/json"}},
                  &format == &m_anthropic ? AnthropicFormat::tokenCountBody(tokens)
                                          : "{\"totalTokens\":" + QByteArray::number(tokens) + '}');
}

void SimServer::handleModels(const ProviderPath &target, const WireFormat &format, std::shared_ptr<http::ResponseSink> sink)
{
    const QString owner = target.provider == kDefaultProvider ? QStringLiteral("switchyard-sim") : target.provider;
    sink->respond(200, {{"content-type", "application/json"}},
                  format.modelList(m_state.catalog.modelsFor(target.provider), owner));
}

const WireFormat &SimServer::errorFormatFor(QByteArrayView path) const
{
    if (path.contains("/v1beta/"))
        return m_gemini;
    if (path.endsWith("/v1/messages") || path.contains("/v1/messages/"))
        return m_anthropic;
    return m_openAi;
}

void SimServer::respondError(http::ResponseSink &sink, const WireFormat &format, int status, const QString &message)
{
    sink.respond(status, {{"content-type", "application/json"}}, format.errorBody(status, message));
}

} // namespace sy::sim
