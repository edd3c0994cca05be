#include "GatewayFixture.h"

#include "SimRule.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QJsonDocument>
#include <QTcpServer>

namespace sy::integration {

using namespace std::chrono_literals;

namespace {

config::Key keyFor(const QString &name, const QByteArray &secret, QStringList allowedModels = {})
{
    config::Key key;
    key.name = name;
    key.secretSha256 = QCryptographicHash::hash(secret, QCryptographicHash::Sha256).toHex();
    key.allowedModels = std::move(allowedModels);
    return key;
}

config::ChannelModel channelModel(const QString &id, const QString &upstream, double prompt, double completion)
{
    return config::ChannelModel{id, upstream, config::Price{prompt, completion}};
}

} // namespace

void GatewayFixture::SetUp()
{
    sim = std::make_unique<sim::SimServer>(sim::SimOptions{});
    simPort = sim->listen(QHostAddress::LocalHost, 0);
    ASSERT_NE(simPort, 0) << qPrintable(sim->errorString());
}

void GatewayFixture::TearDown()
{
    if (gateway) {
        // Every test ends its requests; an exchange still running here is a leak of the gateway.
        EXPECT_TRUE(test::waitUntil([this] { return gateway->counters().inFlight == 0; }, 3s))
            << "requests still in flight: " << gateway->counters().inFlight;
    }
    gateway.reset();
    sim.reset();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

QString GatewayFixture::simBaseUrl(const QString &provider) const
{
    return QStringLiteral("http://127.0.0.1:%1/%2/v1").arg(simPort).arg(provider);
}

quint16 GatewayFixture::closedPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

config::Config GatewayFixture::baseConfig() const
{
    config::Config config;
    config.listenHost = QStringLiteral("127.0.0.1");
    config.listenPort = 0;
    config.settings.retryPauseMs = 20;
    config.settings.firstChunkTimeoutS = 5;

    const auto makeChannel = [this](const QString &id, std::vector<config::ChannelModel> models) {
        config::Channel channel;
        channel.id = id;
        channel.provider = id;
        channel.baseUrl = simBaseUrl(id);
        channel.credentials = {QStringLiteral("sk-upstream-") + id};
        channel.timeouts = {2000ms, 3000ms, 3000ms};
        channel.models = std::move(models);
        return channel;
    };
    config.channels.push_back(makeChannel("alpha", {channelModel(kModelA, "chat-a-up", 1.0, 2.0),
                                                    channelModel(kModelOld, "old-up", 0.5, 0.5)}));
    config.channels.push_back(makeChannel("beta", {channelModel(kModelA, "chat-a-up", 3.0, 4.0)}));
    config.channels.push_back(makeChannel("gamma", {channelModel(kModelB, "chat-b-up", 0.25, 1.25)}));

    config::Model a;
    a.id = kModelA;
    a.contextLength = 8192;
    config::Model b;
    b.id = kModelB;
    config::Model old;
    old.id = kModelOld;
    old.deprecated = QDate(2099, 12, 31);
    config.models = {a, b, old};
    config.virtualModels = {config::VirtualModel{kVirtual, kModelA, {kModelB}}};
    config.keys = {keyFor("main", kSecret), keyFor("restricted", kRestrictedSecret, {kModelA})};
    return config;
}

config::Channel &GatewayFixture::channel(config::Config &config, const QString &id) const
{
    for (config::Channel &c : config.channels) {
        if (c.id == id)
            return c;
    }
    ADD_FAILURE() << "no channel " << qPrintable(id);
    return config.channels.front();
}

void GatewayFixture::startGateway(config::Config config)
{
    startGateway(std::move(config), nullptr);
}

void GatewayFixture::startGateway(config::Config config, std::unique_ptr<upstream::UpstreamClient> upstream)
{
    gateway = std::make_unique<service::GatewayService>(std::move(config), SystemClock::instance(), std::move(upstream));
    QString error;
    ASSERT_TRUE(gateway->start(&error)) << qPrintable(error);
    gatewayPort = gateway->port();
    ASSERT_NE(gatewayPort, 0);
}

void GatewayFixture::addRule(const QByteArray &ruleJson)
{
    QJsonParseError parseError;
    const QJsonObject object = QJsonDocument::fromJson(ruleJson, &parseError).object();
    ASSERT_EQ(parseError.error, QJsonParseError::NoError) << ruleJson.constData();
    const sim::RuleParse parsed = sim::parseRule(object);
    ASSERT_TRUE(parsed.rule) << qPrintable(parsed.error);
    sim->state().rules.upsert(*parsed.rule);
}

qint64 GatewayFixture::hits(const QString &provider) const
{
    return sim->stats().requestsForProvider(provider);
}

qint64 GatewayFixture::hitsForModel(const QString &upstreamModel) const
{
    return sim->stats().requestsForModel(upstreamModel);
}

QJsonObject GatewayFixture::fixedOrder()
{
    return QJsonObject{{"order", QJsonArray{"alpha", "beta", "gamma"}}};
}

QByteArray GatewayFixture::chatBody(const QString &model, const QJsonObject &extra)
{
    QJsonObject body{{"model", model},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say hello to the switchyard."}}}},
                     {"provider", fixedOrder()}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray GatewayFixture::streamBody(const QString &model, const QJsonObject &extra)
{
    QJsonObject withStream = extra;
    withStream.insert("stream", true);
    return chatBody(model, withStream);
}

std::unique_ptr<GatewayClient> GatewayFixture::send(const QByteArray &method, const QByteArray &path,
                                                    const QByteArray &body, RequestHeaders headers)
{
    const bool hasAuth = std::any_of(headers.begin(), headers.end(), [](const auto &h) {
        return h.first.compare("authorization", Qt::CaseInsensitive) == 0;
    });
    if (!hasAuth)
        headers.prepend({"Authorization", QByteArray("Bearer ") + kSecret});
    auto client = std::make_unique<GatewayClient>(gatewayPort);
    client->send(method, path, body, headers);
    return client;
}

std::unique_ptr<GatewayClient> GatewayFixture::call(const QByteArray &method, const QByteArray &path,
                                                    const QByteArray &body, RequestHeaders headers)
{
    auto client = send(method, path, body, std::move(headers));
    EXPECT_TRUE(client->waitForEnd()) << method.constData() << ' ' << path.constData() << " did not end";
    return client;
}

QJsonArray GatewayFixture::attempts(const GatewayClient &client)
{
    const QByteArray value = client.header("x-tsarrouter-attempts");
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(value, &parseError);
    EXPECT_EQ(parseError.error, QJsonParseError::NoError) << "X-TsarRouter-Attempts: " << value.constData();
    EXPECT_TRUE(document.isArray()) << "X-TsarRouter-Attempts: " << value.constData();
    return document.array();
}

QStringList GatewayFixture::attemptStatuses(const QJsonArray &attempts)
{
    QStringList out;
    for (const QJsonValue &attempt : attempts)
        out.append(attempt.toObject().value("status").toString());
    return out;
}

QStringList GatewayFixture::attemptProviders(const QJsonArray &attempts)
{
    QStringList out;
    for (const QJsonValue &attempt : attempts)
        out.append(attempt.toObject().value("provider").toString());
    return out;
}

std::vector<std::unique_ptr<GatewayClient>> GatewayFixture::chatConcurrently(int count, const QByteArray &body,
                                                                             std::chrono::milliseconds limit)
{
    std::vector<std::unique_ptr<GatewayClient>> clients;
    for (int i = 0; i < count; ++i)
        clients.push_back(send("POST", "/v1/chat/completions", body));
    const bool ended = test::waitUntil([&clients] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->isComplete() || c->isClosed(); });
    }, limit);
    EXPECT_TRUE(ended) << count << " concurrent requests did not all end";
    return clients;
}

QJsonObject GatewayFixture::openAiError(const GatewayClient &client, const QString &type)
{
    const QJsonObject error = client.json().value("error").toObject();
    EXPECT_EQ(error.value("type").toString(), type) << client.body().constData();
    EXPECT_TRUE(error.contains("param") && error.contains("code")) << client.body().constData();
    return error;
}

} // namespace sy::integration
