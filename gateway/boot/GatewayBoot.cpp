#include "boot/GatewayBoot.h"

#include "core/FileLimit.h"
#include "limits/RedisSession.h"
#include "service/StartFailure.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QSysInfo>

Q_LOGGING_CATEGORY(lcBoot, "switchyard.boot")

namespace sy::boot {

GatewayBoot::GatewayBoot(BootOptions options, const Clock &clock)
    : m_options(std::move(options))
    , m_clock(clock)
{
}

GatewayBoot::~GatewayBoot()
{
    // The service uses the store's persistence and the demo's simulator: it goes first.
    m_gateway.reset();
    m_sharedLimits.reset();
    m_store.reset();
    m_demo.reset();
}

bool GatewayBoot::loadConfiguration(std::vector<config::ConfigError> &errors)
{
    config::LoadResult loaded;
    if (m_options.demo) {
        m_demo = std::make_unique<demo::DemoWorkspace>();
        loaded = m_demo->start(8080);
    } else {
        loaded = config::loadConfigFile(m_options.configPath);
    }
    if (!loaded.config) {
        errors = std::move(loaded.errors);
        return false;
    }
    m_config = std::move(*loaded.config);
    applyListenOverride(m_config);
    return true;
}

void GatewayBoot::applyListenOverride(config::Config &config) const
{
    if (m_options.listenHost)
        config.listenHost = *m_options.listenHost;
    if (m_options.listenPort)
        config.listenPort = *m_options.listenPort;
}

bool GatewayBoot::openDatabase(QString &error)
{
    if (m_demo && !m_options.demoAlwaysStored && m_options.databasePath.isEmpty())
        return true;   // the headless demo keeps nothing unless a database is named
    // The demo keeps its own file: a user's real workspace is never mixed with the demo's.
    m_databasePath = m_demo ? service::chooseDatabasePath(m_options.databasePath, QString(), QStringLiteral("demo.db"))
                            : service::chooseDatabasePath(m_options.databasePath, m_config.database, QStringLiteral("switchyard.db"));
    if (m_demo && m_options.resetDemo) {
        error = service::removeDatabaseFiles(m_databasePath);
        if (!error.isEmpty())
            return false;
    }
    const config::Config file = m_config;   // its scale-out fields win over the stored ones
    auto opened = service::StoreSetup::open({m_databasePath, m_demo ? m_demo->simulatorUrl() : QString()}, std::move(m_config));
    if (auto *message = std::get_if<QString>(&opened)) {
        error = *message;
        return false;
    }
    m_store = std::get<std::unique_ptr<service::StoreSetup>>(std::move(opened));
    m_databasePath = m_store->path();   // a PostgreSQL address without its password, for messages
    m_config = m_store->takeConfig();
    // How this instance joins the others is the file's (or the command line's) business, never a
    // stored edit's: several instances may share one stored configuration.
    m_config.listenReusePort = file.listenReusePort;
    m_config.instanceName = file.instanceName;
    m_config.redis = file.redis;
    m_config.redisUnreachable = file.redisUnreachable;
    m_config.redisLeaseS = file.redisLeaseS;
    applyListenOverride(m_config);   // an override lasts one run; the stored address is kept
    return true;
}

bool GatewayBoot::startService(QString &error)
{
    // Ten thousand streams need twenty thousand descriptors: take what the process may have,
    // and say so when the configuration asks for more.
    quint64 concurrency = 0;
    for (const config::Channel &channel : m_config.channels) {
        if (!channel.enabled)
            continue;
        if (channel.maxConcurrent <= 0) {
            concurrency = 0;  // one unlimited channel: no configured bound
            break;
        }
        concurrency += quint64(channel.maxConcurrent);
    }
    const FileLimitReport files = describeFileLimit(raiseOpenFileLimit(), concurrency);
    if (files.tooLow)
        qCWarning(lcBoot).noquote() << files.text;
    else
        qCInfo(lcBoot).noquote() << files.text;

    m_listenFailed = false;
    m_gateway = std::make_unique<service::GatewayService>(std::move(m_config), m_clock);
    if (!m_gateway->workspace()->config().redis.isEmpty() && !connectSharedLimits(*m_gateway, error)) {
        m_config = m_gateway->workspace()->config();
        m_gateway.reset();
        return false;
    }
    if (m_store)
        m_store->attach(*m_gateway);
    if (m_gateway->start(&error))
        return true;
    m_listenFailed = true;
    m_config = m_gateway->workspace()->config();
    m_gateway.reset();
    m_sharedLimits.reset();
    return false;
}

bool GatewayBoot::connectSharedLimits(service::GatewayService &gateway, QString &error)
{
    const config::Config &config = gateway.workspace()->config();
    QString problem;
    const std::optional<config::RedisEndpoint> endpoint = config::parseRedisUrl(config.redis, &problem);
    if (!endpoint) {
        error = QStringLiteral("redis %1: %2").arg(config::redactedRedisUrl(config.redis), problem);
        return false;
    }
    bool unreachable = false;
    const QString refused = limits::checkRedisAccess(*endpoint, std::chrono::seconds(2), &unreachable);
    if (!refused.isEmpty() && !unreachable) {
        error = QStringLiteral("Cannot use Redis %1 for the shared key limits: %2").arg(config::redactedRedisUrl(config.redis), refused);
        return false;
    }
    if (unreachable)
        qWarning().noquote() << refused << "- starting anyway; until Redis answers, redis_unreachable:"
                             << config.redisUnreachable << "applies";
    limits::RedisKeyLimiter::Options options;
    options.endpoint = *endpoint;
    options.lease = std::chrono::seconds(config.redisLeaseS);
    options.failClosed = config.redisUnreachable == QLatin1String("fail_closed");
    // Unique per run, so a restarted instance never takes over the leases of its previous life.
    options.instanceId = (QSysInfo::machineHostName() + u':' + QString::number(QCoreApplication::applicationPid()) + u':'
                          + QString::number(QRandomGenerator::system()->generate(), 16)).toUtf8();
    m_sharedLimits = std::make_unique<limits::RedisKeyLimiter>(std::move(options), gateway.state().keyLimiter);
    gateway.setSharedKeyLimits(m_sharedLimits.get());
    return true;
}

QString GatewayBoot::listenFailure(const QString &rawError, const QString &whatToDo) const
{
    if (!m_listenFailed)
        return rawError;
    return service::listenFailureMessage(m_config.listenHost, m_config.listenPort, rawError, whatToDo);
}

void GatewayBoot::flush()
{
    if (m_store)
        m_store->flush();
}

} // namespace sy::boot
