#include "GatewayWorker.h"

#include "service/AdminApi.h"

#include "config/ConfigLoader.h"
#include "demo/DemoWorkspace.h"
#include "demo/TrafficGenerator.h"
#include "service/GatewayService.h"
#include "service/StartFailure.h"
#include "service/StoreSetup.h"
#include "boot/GatewayBoot.h"

#include <QDir>
#include <QTimer>

namespace sy::app {

namespace {

constexpr int kFramesPerSecond = 4;
constexpr int kHiddenFramesPerSecond = 1;

QString kindName(const failover::Outage &o)
{
    switch (o.kind) {
    case failover::OutageKind::HttpError:
        return o.status == 429 ? QStringLiteral("rate_limit") : QStringLiteral("error:%1").arg(o.status);
    case failover::OutageKind::Timeout: return QStringLiteral("timeout");
    case failover::OutageKind::Hang: return QStringLiteral("hang");
    case failover::OutageKind::DropMidStream: return QStringLiteral("drop_mid_stream");
    case failover::OutageKind::Slow: return QStringLiteral("slow");
    }
    return {};
}

// "The configuration file FILE is not valid:" and its errors, one a line, and what to do.
QString configFailure(const QString &path, const std::vector<config::ConfigError> &errors)
{
    QStringList lines;
    for (const config::ConfigError &e : errors)
        lines << e.toString();
    if (path.isEmpty())
        return GatewayWorker::tr("The demo workspace cannot start:\n%1").arg(lines.join('\n'));
    const bool unreadable = errors.size() == 1 && errors.front().line == 0;
    return GatewayWorker::tr("The configuration file %1 %2:\n%3\n%4")
        .arg(path, unreadable ? GatewayWorker::tr("cannot be read") : GatewayWorker::tr("is not valid"), lines.join('\n'),
             unreadable ? GatewayWorker::tr("Check the path given with --config.")
                        : GatewayWorker::tr("Fix the lines named above and start again."));
}

} // namespace

GatewayWorker::GatewayWorker()
    : m_clock(SystemClock::instance())
{
}

GatewayWorker::~GatewayWorker() = default;

void GatewayWorker::start(const GatewayStartOptions &options)
{
    boot::BootOptions bootOptions;
    bootOptions.demo = options.configPath.isEmpty();
    bootOptions.configPath = options.configPath;
    bootOptions.databasePath = options.databasePath;
    bootOptions.demoAlwaysStored = true;   // the desktop demo keeps its edits in demo.db
    bootOptions.resetDemo = options.resetDemo;
    if (options.port >= 0)
        bootOptions.listenPort = quint16(options.port);
    if (!options.listenHost.isEmpty())
        bootOptions.listenHost = options.listenHost;
    auto booting = std::make_unique<boot::GatewayBoot>(bootOptions, m_clock);
    std::vector<config::ConfigError> errors;
    if (!booting->loadConfiguration(errors)) {
        emit failed(configFailure(options.configPath, errors));
        return;
    }
    QString error;
    if (!booting->openDatabase(error)) {
        emit failed(error);
        return;
    }
    if (!options.configPath.isEmpty() && booting->configurationFromDatabase())
        qInfo().noquote() << QStringLiteral("configuration from the database %1 (the file only seeds the first start)")
                                 .arg(QDir::toNativeSeparators(booting->databasePath()));
    if (!booting->startService(error)) {
        // Not "edit the file": once the database holds the configuration, the file is not read.
        const QString whatToDo = tr("Close the other program, or start Switchyard with --port N (0 = any free port).");
        emit failed(booting->listenFailure(error, whatToDo));
        return;
    }
    m_boot = std::move(booting);
    m_demo = m_boot->demo();
    m_gateway = &m_boot->gateway();
    const QString demoKey = m_demo ? QString::fromLatin1(demo::kDemoKey) : QString();
    if (m_demo) {
        m_traffic = std::make_unique<demo::TrafficGenerator>(m_gateway->listenAddress(), QByteArray(demo::kDemoKey));
        m_trafficSettings.available = true;
        m_trafficSettings.models = chatModels();
        m_traffic->configure(m_trafficSettings.requestsPerSecond, m_trafficSettings.streamShare,
                             m_trafficSettings.models);
    }
    emit started(m_gateway->listenAddress(), demoKey);
    publish();
    // A steady 4 Hz however busy the gateway is: the UI gets frames, not a message per request.
    // Created here so the timer belongs to the gateway thread.
    m_ticker = new QTimer(this);
    connect(m_ticker, &QTimer::timeout, this, &GatewayWorker::publish);
    setWindowShown(m_windowShown);
}

void GatewayWorker::setWindowShown(bool shown)
{
    m_windowShown = shown;
    if (!m_ticker)
        return;   // applied when the gateway has started
    m_ticker->setInterval(1000 / (shown ? kFramesPerSecond : kHiddenFramesPerSecond));
    m_ticker->setTimerType(shown ? Qt::PreciseTimer : Qt::CoarseTimer);
    m_ticker->start();
    if (shown)
        publish();   // the window shows the present at once, not the last hidden frame
}

void GatewayWorker::stop()
{
    delete m_ticker;
    m_ticker = nullptr;
    m_traffic.reset();
    if (m_boot)
        m_boot->flush();
    m_gateway = nullptr;
    m_demo = nullptr;
    m_boot.reset();
}

QString GatewayWorker::simulatorUrl() const
{
    return m_demo ? m_demo->simulatorUrl() : QString();
}

void GatewayWorker::setOutage(const QString &targetKind, const QString &target, const QString &kind, int seconds)
{
    if (!m_gateway)
        return;
    std::optional<failover::Outage> outage = failover::parseOutageKind(kind);
    if (!outage || target.isEmpty() || seconds <= 0) {
        emit actionFailed(tr("Unknown failure kind or target: %1 %2").arg(kind, target));
        return;
    }
    if (targetKind == QLatin1String("channel"))
        outage->channelId = target;
    else
        outage->modelId = target;
    outage->until = m_clock.now() + std::chrono::seconds(seconds);
    m_gateway->outages().set(*outage);
    publish();   // the lab shows the change at once, not at the next tick
}

void GatewayWorker::restoreOutage(quint64 outageId)
{
    if (m_gateway && m_gateway->outages().remove(outageId))
        publish();
}

void GatewayWorker::clearOutages()
{
    if (!m_gateway)
        return;
    m_gateway->outages().clear();
    publish();
}

void GatewayWorker::setTraffic(bool running, double requestsPerSecond, double streamShare, const QStringList &models)
{
    if (!m_traffic) {
        emit actionFailed(tr("The traffic generator runs on the demo workspace only."));
        return;
    }
    m_trafficSettings.requestsPerSecond = std::clamp(requestsPerSecond, 0.5, 20.0);
    m_trafficSettings.streamShare = std::clamp(streamShare, 0.0, 1.0);
    // Whoever asks (the traffic panel, the tray, --demo-traffic at start with every model id),
    // only models that answer chat get the generator's chat requests.
    const QStringList chat = chatModels();
    QStringList chosen;
    for (const QString &id : models)
        if (chat.contains(id))
            chosen << id;
    m_trafficSettings.models = chosen;
    m_traffic->configure(m_trafficSettings.requestsPerSecond, m_trafficSettings.streamShare, m_trafficSettings.models);
    if (running && !chosen.isEmpty())
        m_traffic->start();
    else
        m_traffic->stop();
    publish();
}

void GatewayWorker::queryLog(const service::RequestFilter &filter, quint64 generation)
{
    if (m_gateway)
        emit logPageReady({generation, m_gateway->requestLog().query(filter)});
}

void GatewayWorker::fetchTrace(const QByteArray &requestId)
{
    if (m_gateway)
        emit traceReady({requestId, m_gateway->requestLog().find(requestId)});
}

void GatewayWorker::adminCall(quint64 tag, const QByteArray &method, const QByteArray &target, const QByteArray &body)
{
    if (!m_gateway || !m_gateway->admin()) {
        emit adminReplied(tag, 503, R"({"error":{"message":"The gateway is not running.","type":"server_error","param":null,"code":null}})");
        return;
    }
    m_gateway->admin()->invoke(method, target, body, [this, tag](int status, const QByteArray &reply) {
        emit adminReplied(tag, status, reply);
    });
    if (method != "GET")
        publish();   // an edit shows in the dashboard at once, not at the next tick
}

QStringList GatewayWorker::chatModels() const
{
    // The demo traffic sends chat requests: an embeddings-only model would only collect 400s.
    QStringList ids;
    for (const config::Model &model : m_gateway->workspace()->config().models) {
        if (model.capabilities.contains(QLatin1String("chat")))
            ids << model.id;
    }
    return ids;
}

QStringList GatewayWorker::allModels() const
{
    QStringList ids;
    for (const config::Model &model : m_gateway->workspace()->config().models)
        ids << model.id;
    return ids;
}

void GatewayWorker::publish()
{
    if (m_gateway)
        emit frameReady(buildFrame());
}

DashboardFrame GatewayWorker::buildFrame()
{
    DashboardFrame frame;
    frame.snapshot = service::buildDashboardSnapshot(*m_gateway);
    const config::Config &config = m_gateway->workspace()->config();
    for (const config::Key &key : config.keys)
        frame.keyNames << key.name;
    frame.modelIds = allModels();
    for (const config::Channel &channel : config.channels)
        frame.channelIds << channel.id;

    const auto now = m_clock.now();
    for (const failover::Outage &o : m_gateway->outages().active()) {
        const bool onChannel = !o.channelId.isEmpty();
        const auto left = std::chrono::duration_cast<std::chrono::seconds>(o.until - now).count();
        frame.outages.push_back({o.id, onChannel ? QStringLiteral("channel") : QStringLiteral("model"),
                                 onChannel ? o.channelId : o.modelId, kindName(o),
                                 failover::describeOutage(o, now), int(std::max<qint64>(0, left))});
    }

    frame.traffic = m_trafficSettings;
    if (m_traffic) {
        frame.traffic.running = m_traffic->isRunning();
        frame.traffic.sent = m_traffic->sent();
        frame.traffic.succeeded = m_traffic->succeeded();
        frame.traffic.failed = m_traffic->failed();
    }
    return frame;
}

} // namespace sy::app
