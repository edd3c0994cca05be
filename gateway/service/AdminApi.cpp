#include "service/AdminApi.h"

#include "config/ConfigLoader.h"
#include "config/ConfigWriter.h"
#include "service/AdminCall.h"
#include "service/ChannelProbes.h"
#include "service/GatewayService.h"

#include <QCryptographicHash>

namespace sy::service {

AdminApi::AdminApi(GatewayService &gateway, QByteArray adminTokenSha256, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_tokenSha256(adminTokenSha256.toLower())
    , m_probes(std::make_unique<ChannelProbes>(gateway))
{
}

AdminApi::~AdminApi() = default;

quint64 AdminApi::probesSent() const
{
    return m_probes->probesSent();
}

void AdminApi::registerRoutes(http::HttpFront &front)
{
    for (const char *method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
        front.routePrefix(method, "/admin/", [this](http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink) {
            dispatch(std::move(request), std::move(sink));
        });
    }
}

bool AdminApi::authorized(const http::HttpRequest &request) const
{
    if (m_tokenSha256.isEmpty())
        return false;
    const QByteArray authorization = request.header("authorization");
    if (!authorization.startsWith("Bearer "))
        return false;
    const QByteArray hash = QCryptographicHash::hash(authorization.mid(7).trimmed(), QCryptographicHash::Sha256).toHex();
    // Fixed-time comparison: the token must not leak through response timing.
    if (hash.size() != m_tokenSha256.size())
        return false;
    char diff = 0;
    for (qsizetype i = 0; i < hash.size(); ++i)
        diff |= char(hash[i] ^ m_tokenSha256[i]);
    return diff == 0;
}

void AdminApi::dispatch(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    Call call{std::move(request), std::move(sink), {}, {}};
    if (!call.request.peer.isLoopback())
        return call.fail(403, QStringLiteral("The admin API answers loopback clients only."));
    if (!authorized(call.request))
        return call.fail(401, m_tokenSha256.isEmpty() ? QStringLiteral("The admin API is disabled: no admin token is configured.")
                                                      : QStringLiteral("Admin token missing or wrong: send 'Authorization: Bearer <admin token>'."));
    route(call);
}

void AdminApi::invoke(const QByteArray &method, const QByteArray &target, const QByteArray &body, InProcessAnswer answer)
{
    const qsizetype question = target.indexOf('?');
    http::HttpRequest request;
    request.method = method.toUpper();
    request.path = QByteArray::fromPercentEncoding(question < 0 ? target : target.left(question));
    if (question >= 0)
        request.query = QUrlQuery(QString::fromUtf8(target.mid(question + 1)));
    request.body = body;
    request.peer = QHostAddress(QHostAddress::LocalHost);
    Call call{std::move(request), nullptr, {}, std::move(answer)};
    if (!call.request.path.startsWith("/admin/"))
        return call.notFound();
    route(call);
    // A route either answered or deferred the call (which then answers later); never leave the
    // caller waiting.
    if (call.answer)
        call.fail(500, QStringLiteral("The admin route gave no answer."));
}

void AdminApi::route(Call &call)
{
    call.path = QString::fromUtf8(call.request.path.mid(int(qstrlen("/admin/")))).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (call.path.isEmpty())
        return call.notFound();
    const QString &section = call.path.first();
    if (section == QLatin1String("config"))
        return handleConfig(call);
    if (section == QLatin1String("channels") && call.path.size() == 3
        && (call.path[2] == QLatin1String("discover") || call.path[2] == QLatin1String("test"))) {
        const config::Channel *channel = nullptr;
        for (const config::Channel &c : m_gateway.workspace()->config().channels)
            if (c.id == call.path[1])
                channel = &c;
        if (!channel)
            return call.fail(404, QStringLiteral("No channels with id '%1'.").arg(call.path[1]));
        return call.path[2] == QLatin1String("discover") ? handleDiscover(call, channel) : handleTest(call, channel);
    }
    if (section == QLatin1String("channels"))
        return handleCollection(call, "channels", "id");
    if (section == QLatin1String("models"))
        return handleCollection(call, "models", "id");
    if (section == QLatin1String("virtual-models"))
        return handleCollection(call, "virtual_models", "id");
    if (section == QLatin1String("keys"))
        return handleKeys(call);
    if (section == QLatin1String("settings"))
        return handleSettings(call);
    if (section == QLatin1String("default-model"))
        return handleDefaultModel(call);
    if (section == QLatin1String("balance"))
        return handleBalance(call);
    if (section == QLatin1String("outages"))
        return handleOutages(call);
    if (section == QLatin1String("requests"))
        return handleRequests(call);
    if (section == QLatin1String("ledger"))
        return handleLedger(call);
    if (section == QLatin1String("events"))
        return handleEvents(call);
    if (section == QLatin1String("presets"))
        return handlePresets(call);
    if (section == QLatin1String("discover"))
        return handleDiscover(call, nullptr);
    if (section == QLatin1String("test"))
        return handleTest(call, nullptr);
    if (section == QLatin1String("connect"))
        return handleConnect(call);
    if (section == QLatin1String("usage"))
        return handleUsage(call);
    call.notFound();
}

QJsonObject AdminApi::currentDocument() const
{
    // The live configuration always writes (it was loaded by the same rules); an empty document
    // makes any edit fail validation rather than lose data.
    const config::WriteResult written = config::writeConfigJson(m_gateway.workspace()->config(), config::Secrets::Include);
    return written.document ? QJsonDocument::fromJson(*written.document).object() : QJsonObject();
}

bool AdminApi::applyDocument(Call &call, const QJsonObject &document, int successStatus, const QJsonValue &answer)
{
    const QByteArray json = QJsonDocument(document).toJson(QJsonDocument::Compact);
    // No environment: `${NAME}` in an admin edit is text, not a variable of the gateway's process.
    config::LoadResult loaded = config::loadConfigText(json, QStringLiteral("<admin>"), QProcessEnvironment());
    if (!loaded.config) {
        const config::ConfigError &first = loaded.errors.front();
        QStringList messages;
        for (const config::ConfigError &e : loaded.errors)
            messages << (e.field.isEmpty() ? e.message : e.field + QStringLiteral(": ") + e.message);
        call.fail(400, QStringLiteral("The change was refused as a whole: %1").arg(messages.join(QStringLiteral("; "))), first.field);
        return false;
    }
    m_gateway.applyConfig(std::move(*loaded.config));
    call.reply(successStatus, answer);
    return true;
}

} // namespace sy::service
