#include "service/OnboardingRequests.h"

#include "core/SecretRedaction.h"
#include "service/ChannelTransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sy::service {

namespace {

constexpr char kAnthropicVersion[] = "2023-06-01";
constexpr qsizetype kMaxErrorChars = 400;

QString defaultAuth(const QString &format)
{
    if (format == u"anthropic")
        return QStringLiteral("x-api-key");
    if (format == u"gemini")
        return QStringLiteral("x-goog-api-key");
    return QStringLiteral("bearer");
}

upstream::UpstreamRequest baseRequest(const UpstreamTarget &target, QByteArray method, const QString &path)
{
    upstream::UpstreamRequest request;
    request.method = std::move(method);
    request.url = (target.baseUrl + path).toUtf8();
    request.connectTimeout = target.timeouts.connect;
    request.firstByteTimeout = target.timeouts.firstByte;
    request.idleTimeout = target.timeouts.idle;
    request.verifyTls = !target.tls.insecure;
    request.caFile = target.tls.caFile.toUtf8();
    request.proxy = target.proxy.toUtf8();
    if (target.format == u"anthropic")
        request.headers.append(qMakePair(QByteArray("anthropic-version"), QByteArray(kAnthropicVersion)));
    applyAuthStyle(target.auth.isEmpty() ? defaultAuth(target.format) : target.auth, target.credential,
                   request.headers);
    return request;
}

// The message inside an upstream's error body, in any of the three formats, else the body.
QString errorMessageOf(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (doc.isObject()) {
        const QJsonValue error = doc.object().value("error");
        if (error.isObject() && error.toObject().value("message").isString())
            return error.toObject().value("message").toString();
        if (error.isString())
            return error.toString();
        if (doc.object().value("message").isString())
            return doc.object().value("message").toString();
    }
    const QByteArray start = body.trimmed().left(15).toLower();
    if (start.startsWith("<!doctype") || start.startsWith("<html"))
        return QStringLiteral("an HTML page");
    return QString::fromUtf8(body.simplified());
}

} // namespace

UpstreamTarget targetOf(const config::Channel &channel)
{
    UpstreamTarget target;
    target.format = channel.format;
    target.baseUrl = channel.baseUrl;
    target.credential = channel.credentials.isEmpty() ? QString() : channel.credentials.first();
    target.auth = channel.auth;
    target.tls = channel.tls;
    target.proxy = channel.proxy;
    target.timeouts = channel.timeouts;
    return target;
}

upstream::UpstreamRequest modelListRequest(const UpstreamTarget &target)
{
    return baseRequest(target, "GET", target.modelsPath.isEmpty() ? QStringLiteral("/models") : target.modelsPath);
}

upstream::UpstreamRequest ollamaTagsRequest(const UpstreamTarget &target)
{
    UpstreamTarget server = target;
    if (server.baseUrl.endsWith(u"/v1"))
        server.baseUrl.chop(3);
    return baseRequest(server, "GET", QStringLiteral("/api/tags"));
}

upstream::UpstreamRequest tinyChatRequest(const UpstreamTarget &target, const QString &upstreamModel)
{
    const QJsonArray messages{QJsonObject{{"role", "user"}, {"content", "ping"}}};
    QJsonObject body;
    QString path;
    if (target.format == u"anthropic") {
        path = QStringLiteral("/messages");
        body = {{"model", upstreamModel}, {"max_tokens", 1}, {"messages", messages}};
    } else if (target.format == u"gemini") {
        path = QStringLiteral("/models/%1:generateContent").arg(upstreamModel);
        body = {{"contents", QJsonArray{QJsonObject{{"role", "user"}, {"parts", QJsonArray{QJsonObject{{"text", "ping"}}}}}}},
                {"generationConfig", QJsonObject{{"maxOutputTokens", 1}}}};
    } else {
        path = QStringLiteral("/chat/completions");
        body = {{"model", upstreamModel}, {"max_tokens", 1}, {"stream", false}, {"messages", messages}};
    }
    upstream::UpstreamRequest request = baseRequest(target, "POST", path);
    request.headers.append(qMakePair(QByteArray("content-type"), QByteArray("application/json")));
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return request;
}

QString fetchProblem(const FetchResult &result, const QStringList &secrets)
{
    QString problem;
    if (result.error)
        problem = result.error->message;
    else if (result.status < 200 || result.status > 299)
        problem = QStringLiteral("HTTP %1: %2").arg(result.status).arg(errorMessageOf(result.body));
    else
        return {};
    if (problem.size() > kMaxErrorChars)
        problem = problem.left(kMaxErrorChars) + QStringLiteral("…");
    return redactSecrets(problem, secrets);
}

} // namespace sy::service
