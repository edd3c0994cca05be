#pragma once
// GatewayBoot: the one start sequence of a gateway, shared by switchyard-gateway and the desktop
// app — the configuration (a file, or the demo workspace with its in-process simulator), then the
// database (which may hold a newer configuration than the file), then the service listening.
// Each step reports its own failure so each program can say it in its own way.
//
// Thread: the gateway thread (the worker thread in the desktop app); everything it creates lives
// there and is destroyed with it, the service first.
#include "config/ConfigLoader.h"
#include "core/Clock.h"
#include "demo/DemoWorkspace.h"
#include "service/GatewayService.h"
#include "service/StoreSetup.h"
#include "limits/RedisKeyLimiter.h"

#include <memory>
#include <optional>

namespace sy::boot {

struct BootOptions {
    QString configPath;                  // the configuration file; ignored with `demo`
    bool demo = false;                   // the demo workspace
    QString databasePath;                // --database; empty = the configured or default file
    // The demo keeps its edits in its own database (the desktop app), or only when a database
    // is named (switchyard-gateway).
    bool demoAlwaysStored = false;
    bool resetDemo = false;              // start the demo's database over
    std::optional<QString> listenHost;   // one run only (--listen / --port)
    std::optional<quint16> listenPort;
};

class GatewayBoot {
public:
    explicit GatewayBoot(BootOptions options, const Clock &clock = SystemClock::instance());
    ~GatewayBoot();

    // Step 1. False with the loader's errors (line and field) in `errors`.
    bool loadConfiguration(std::vector<config::ConfigError> &errors);
    const config::Config &configuration() const { return m_config; }
    // Step 2. False with the reason (the file named, what to do).
    bool openDatabase(QString &error);
    // Step 3. The shared key limits when `redis` is set (a Redis that refuses the credentials
    // stops the start with its own reason; one that cannot be reached only warns, and the
    // `redis_unreachable` setting applies until it answers), then the service listening.
    // False with the raw error; listenFailure() words it.
    bool startService(QString &error);
    // Words a listen failure; any other start failure (Redis) is returned as it is.
    QString listenFailure(const QString &rawError, const QString &whatToDo) const;

    service::GatewayService &gateway() { return *m_gateway; }
    demo::DemoWorkspace *demo() { return m_demo.get(); }
    service::StoreSetup *store() { return m_store.get(); }
    QString databasePath() const { return m_databasePath; }
    bool configurationFromDatabase() const { return m_store && m_store->configFromStore(); }
    // Writes what is still queued for the database (before the program exits).
    void flush();

private:
    void applyListenOverride(config::Config &config) const;
    // Connects the shared key limits of `m_config` to `gateway`; false with the reason.
    bool connectSharedLimits(service::GatewayService &gateway, QString &error);

    BootOptions m_options;
    const Clock &m_clock;
    std::unique_ptr<demo::DemoWorkspace> m_demo;
    config::Config m_config;
    QString m_databasePath;
    std::unique_ptr<service::StoreSetup> m_store;
    std::unique_ptr<limits::RedisKeyLimiter> m_sharedLimits;   // outlives the service's permits
    std::unique_ptr<service::GatewayService> m_gateway;
    bool m_listenFailed = false;
};

} // namespace sy::boot
