// AdminApi, onboarding routes (docs/admin-api.md): provider presets, model discovery and channel
// tests. Discovery and tests wait on an upstream: the call is deferred and answered from the
// upstream client's callbacks on the gateway thread, which never blocks on them. A test of a
// saved channel feeds the health tracker as a periodic probe does; a test of unsaved settings
// has no channel to feed.
#include "onboarding/ConnectGuide.h"
#include "onboarding/ModelLists.h"
#include "onboarding/Presets.h"
#include "service/AdminCall.h"
#include "service/ChannelProbes.h"
#include "service/GatewayService.h"
#include "service/OnboardingRequests.h"
#include "service/UpstreamFetch.h"

#include <QUrl>

namespace sy::service {

namespace {

const QStringList kFormats{"openai", "anthropic", "gemini"};
const QStringList kAuth{"bearer", "x-api-key", "x-goog-api-key", "api-key", "none"};

void failDiscovery(AdminApi::Call &call, const QString &message)
{
    const QJsonObject error{{"message", message}, {"type", "discovery_failed"}};
    call.reply(502, QJsonObject{{"error", error}});
}

// An empty body counts as {} (a test of every model, a discovery with the saved settings).
std::optional<QJsonObject> optionalBody(AdminApi::Call &call)
{
    if (call.request.body.trimmed().isEmpty())
        return QJsonObject();
    return call.bodyObject();
}

// The unsaved settings of POST /admin/discover and /admin/test; answers 400 naming the field.
std::optional<UpstreamTarget> targetFromBody(AdminApi::Call &call, const QJsonObject &body,
                                             const onboarding::Preset *preset)
{
    UpstreamTarget target;
    target.format = body.value("format").toString(preset ? preset->format : QStringLiteral("openai"));
    if (!kFormats.contains(target.format)) {
        call.fail(400, QStringLiteral("'format' must be one of %1.").arg(kFormats.join(QStringLiteral(", "))), QStringLiteral("format"));
        return std::nullopt;
    }
    QString baseUrl = body.value("base_url").toString(preset ? preset->baseUrl : QString());
    const QUrl url(baseUrl, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != u"http" && scheme != u"https") || url.host().isEmpty()) {
        call.fail(400, QStringLiteral("'base_url' must be an http:// or https:// URL."), QStringLiteral("base_url"));
        return std::nullopt;
    }
    while (baseUrl.endsWith(u'/'))
        baseUrl.chop(1);
    target.baseUrl = baseUrl;
    target.credential = body.value("credential").toString();
    target.auth = body.value("auth").toString(preset ? preset->auth : QString());
    if (!target.auth.isEmpty() && !kAuth.contains(target.auth)) {
        call.fail(400, QStringLiteral("'auth' must be one of %1.").arg(kAuth.join(QStringLiteral(", "))), QStringLiteral("auth"));
        return std::nullopt;
    }
    if (preset)
        target.modelsPath = preset->modelsPath;
    const QJsonObject tls = body.value("tls").toObject();
    target.tls.caFile = tls.value("ca_file").toString();
    target.tls.insecure = tls.value("insecure").toBool();
    target.proxy = body.value("proxy").toString();
    return target;
}

// Discovery of one target: the model list of its format, then Ollama's /api/tags when an
// OpenAI-style list was not answered. Answers the deferred call once.
struct Discovery {
    std::shared_ptr<AdminApi::Call> call;
    upstream::UpstreamClient *client = nullptr;
    QObject *owner = nullptr;
    UpstreamTarget target;
    const onboarding::Preset *preset = nullptr;

    QStringList secrets() const { return target.credential.isEmpty() ? QStringList() : QStringList{target.credential}; }

    static onboarding::ModelListShape shapeOf(const QString &format)
    {
        if (format == u"anthropic")
            return onboarding::ModelListShape::Anthropic;
        if (format == u"gemini")
            return onboarding::ModelListShape::Gemini;
        return onboarding::ModelListShape::OpenAi;
    }

    static void run(std::shared_ptr<Discovery> self)
    {
        const upstream::UpstreamRequest request = modelListRequest(self->target);
        const QString url = QString::fromUtf8(request.url);
        UpstreamFetch::start(*self->client, request, [self, url](const FetchResult &result) {
            QString problem = fetchProblem(result, self->secrets());
            onboarding::ModelListResult list;
            if (problem.isEmpty()) {
                list = onboarding::parseModelList(shapeOf(self->target.format), result.body);
                problem = list.error;
            }
            if (problem.isEmpty())
                return self->answer(std::move(list.models));
            const QString first = QStringLiteral("GET %1: %2").arg(url, problem);
            if (self->target.format == u"openai" && result.status != 401 && result.status != 403)
                return tryOllama(self, first);
            self->fail(first);
        }, self->owner);
    }

    static void tryOllama(std::shared_ptr<Discovery> self, const QString &firstProblem)
    {
        UpstreamFetch::start(*self->client, ollamaTagsRequest(self->target), [self, firstProblem](const FetchResult &result) {
            if (fetchProblem(result, self->secrets()).isEmpty()) {
                onboarding::ModelListResult list = onboarding::parseModelList(onboarding::ModelListShape::OllamaTags, result.body);
                if (list.error.isEmpty())
                    return self->answer(std::move(list.models));
            }
            self->fail(firstProblem);
        }, self->owner);
    }

    void answer(std::vector<onboarding::DiscoveredModel> models)
    {
        onboarding::applyPresetPrices(preset, models);
        call->reply(200, onboarding::discoveredJson(models));
    }

    void fail(const QString &problem)
    {
        failDiscovery(*call, QStringLiteral("Model discovery failed, nothing was added: %1").arg(problem));
    }
};

// One tiny chat request per model, all at once; answers when the last one ended.
struct ChannelTest {
    struct Row {
        QString model;      // as the caller named it
        QString upstream;   // empty: refused before sending (error set)
        QJsonObject result;
    };
    std::shared_ptr<AdminApi::Call> call;
    std::vector<Row> rows;
    int pending = 0;
    // A saved channel's test: each answer is recorded for (channelId, row.model). Null for unsaved settings.
    GatewayService *healthOf = nullptr;
    QString channelId;

    void finishOne()
    {
        if (--pending > 0)
            return;
        QJsonArray results;
        for (const Row &row : rows)
            results.append(row.result);
        call->reply(200, QJsonObject{{"results", results}});
    }

    static QJsonObject resultJson(const QString &model, const FetchResult &result, const QString &problem)
    {
        return QJsonObject{{"model", model},
                           {"ok", problem.isEmpty()},
                           {"status", result.status},
                           {"latency_ms", result.latencyMs},
                           {"error", problem}};
    }

    static void run(std::shared_ptr<ChannelTest> self, upstream::UpstreamClient &client, QObject *owner,
                    const UpstreamTarget &target)
    {
        const QStringList secrets = target.credential.isEmpty() ? QStringList() : QStringList{target.credential};
        self->pending = int(self->rows.size()) + 1;   // +1: answered only after every start below
        for (std::size_t i = 0; i < self->rows.size(); ++i) {
            if (self->rows[i].upstream.isEmpty()) {
                self->finishOne();
                continue;
            }
            UpstreamFetch::start(client, tinyChatRequest(target, self->rows[i].upstream),
                                 [self, i, secrets](const FetchResult &result) {
                                     Row &row = self->rows[i];
                                     row.result = resultJson(row.model, result, fetchProblem(result, secrets));
                                     if (self->healthOf)
                                         ChannelProbes::recordOutcome(*self->healthOf, self->channelId, row.model, result);
                                     self->finishOne();
                                 }, owner);
        }
        self->finishOne();
    }
};

} // namespace

void AdminApi::handlePresets(Call &call)
{
    if (call.method() != "GET")
        return call.methodNotAllowed();
    if (call.path.size() > 2)
        return call.notFound();
    const std::vector<onboarding::Preset> &presets = onboarding::builtinPresets();
    if (call.path.size() == 2) {
        const onboarding::Preset *preset = onboarding::findPreset(call.path[1]);
        if (!preset)
            return call.fail(404, QStringLiteral("No preset with id '%1'.").arg(call.path[1]));
        return call.reply(200, onboarding::presetsJson({*preset}).value("presets").toArray().first());
    }
    call.reply(200, onboarding::presetsJson(presets));
}

void AdminApi::handleDiscover(Call &call, const config::Channel *channel)
{
    if (call.method() != "POST")
        return call.methodNotAllowed();
    if (!channel && call.path.size() != 1)
        return call.notFound();
    const std::optional<QJsonObject> body = optionalBody(call);
    if (!body)
        return;
    const QString presetId = body->value("preset").toString(channel ? channel->provider : QString());
    const onboarding::Preset *preset = onboarding::findPreset(presetId);
    if (!channel && body->contains("preset") && !preset)
        return call.fail(400, QStringLiteral("No preset with id '%1'.").arg(presetId), QStringLiteral("preset"));
    std::optional<UpstreamTarget> target;
    if (channel) {
        target = targetOf(*channel);
        if (preset)
            target->modelsPath = preset->modelsPath;
    } else {
        target = targetFromBody(call, *body, preset);
    }
    if (!target)
        return;
    auto discovery = std::make_shared<Discovery>();
    discovery->call = call.defer();
    discovery->client = &m_gateway.upstreamClient();
    discovery->owner = this;
    discovery->target = std::move(*target);
    discovery->preset = preset;
    Discovery::run(discovery);
}

void AdminApi::handleTest(Call &call, const config::Channel *channel)
{
    if (call.method() != "POST")
        return call.methodNotAllowed();
    if (!channel && call.path.size() != 1)
        return call.notFound();
    const std::optional<QJsonObject> body = optionalBody(call);
    if (!body)
        return;
    const QJsonValue modelsValue = body->value("models");
    if (!modelsValue.isUndefined() && !modelsValue.isArray())
        return call.fail(400, QStringLiteral("'models' must be a list of model names."), QStringLiteral("models"));
    QStringList asked;
    for (const QJsonValue &v : modelsValue.toArray())
        asked << v.toString();

    auto test = std::make_shared<ChannelTest>();
    std::optional<UpstreamTarget> target;
    if (channel) {
        target = targetOf(*channel);
        test->healthOf = &m_gateway;
        test->channelId = channel->id;
        if (asked.isEmpty())
            for (const config::ChannelModel &m : channel->models)
                asked << m.id;
        if (asked.isEmpty())
            return call.fail(400, QStringLiteral("Channel '%1' serves no models to test.").arg(channel->id), QStringLiteral("models"));
        for (const QString &model : asked) {
            ChannelTest::Row row{model, {}, {}};
            for (const config::ChannelModel &m : channel->models)
                if (m.id == model)
                    row.upstream = m.upstream.isEmpty() ? m.id : m.upstream;
            if (row.upstream.isEmpty())
                row.result = QJsonObject{{"model", model}, {"ok", false}, {"status", 0}, {"latency_ms", 0},
                                         {"error", QStringLiteral("channel '%1' does not serve '%2'").arg(channel->id, model)}};
            test->rows.push_back(std::move(row));
        }
    } else {
        target = targetFromBody(call, *body, onboarding::findPreset(body->value("preset").toString()));
        if (!target)
            return;
        if (asked.isEmpty())
            return call.fail(400, QStringLiteral("'models' must name at least one upstream model."), QStringLiteral("models"));
        for (const QString &model : asked)
            test->rows.push_back({model, model, {}});
    }
    // Unsaved settings have no timeouts of their own: the channel defaults apply.
    test->call = call.defer();
    ChannelTest::run(test, m_gateway.upstreamClient(), this, *target);
}

void AdminApi::handleConnect(Call &call)
{
    if (call.method() != "GET")
        return call.methodNotAllowed();
    if (call.path.size() != 1)
        return call.notFound();
    const QUrlQuery &query = call.request.query;
    const QString client = query.queryItemValue("client", QUrl::FullyDecoded);
    if (client.isEmpty()) {
        QJsonArray clients;
        for (const onboarding::ConnectClient &c : onboarding::connectClients())
            clients.append(QJsonObject{{"id", c.id}, {"title", c.title}});
        return call.reply(200, QJsonObject{{"clients", clients}});
    }
    onboarding::ConnectRequest request;
    request.gatewayUrl = m_gateway.listenAddress();
    request.secret = query.queryItemValue("secret", QUrl::FullyDecoded);
    request.model = query.queryItemValue("model", QUrl::FullyDecoded);
    const std::optional<onboarding::ConnectText> text = onboarding::connectText(client, request);
    if (!text)
        return call.fail(404, QStringLiteral("No setup for client '%1'.").arg(client), QStringLiteral("client"));
    call.reply(200, QJsonObject{{"client", text->client}, {"title", text->title}, {"supported", text->supported}, {"text", text->text}});
}

} // namespace sy::service
