// switchyard-gateway: the gateway without a display. Wires options, configuration and the
// service; all behaviour lives in the libraries.
#include "cli/GatewayOptions.h"
#include "config/ConfigLoader.h"
#include "demo/DemoWorkspace.h"
#include "service/GatewayService.h"
#include "service/Persistence.h"
#include "storage/SqliteStore.h"

#include <QStandardPaths>

#include <QCoreApplication>
#include <QSocketNotifier>
#include <csignal>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

namespace {

int g_signalPipe[2] = {-1, -1};

void onSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(g_signalPipe[1], &byte, 1);
}

// SIGINT/SIGTERM end the event loop cleanly (self-pipe: a signal handler may only write()).
void quitOnSignals(QCoreApplication &app)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app, [&app] { app.quit(); });
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

void printErrors(const std::vector<sy::config::ConfigError> &errors)
{
    for (const auto &error : errors)
        std::fprintf(stderr, "%s\n", qPrintable(error.toString()));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchyard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHYARD_VERSION));
    std::signal(SIGPIPE, SIG_IGN);

    const sy::cli::ParsedOptions parsed = sy::cli::parseGatewayOptions(app.arguments());
    if (!parsed.options) {
        if (!parsed.output.isEmpty()) {
            std::fputs(qPrintable(parsed.output), stdout);
            return 0;
        }
        std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(parsed.error));
        return 2;
    }
    const sy::cli::GatewayOptions &options = *parsed.options;

    sy::demo::DemoWorkspace demo;
    sy::config::LoadResult loaded = options.demo ? demo.start(8080) : sy::config::loadConfigFile(options.configPath);
    if (!loaded.config) {
        printErrors(loaded.errors);
        return 1;
    }
    sy::config::Config config = std::move(*loaded.config);
    if (options.listen)
        sy::cli::splitHostPort(*options.listen, config.listenHost, config.listenPort);
    if (options.checkOnly) {
        std::printf("configuration OK: %d channels, %d models, %d keys\n", int(config.channels.size()),
                    int(config.models.size()), int(config.keys.size()));
        return 0;
    }

    // The database: configuration edits, the ledger and the request log survive restarts. The
    // demo workspace keeps nothing unless a database is named.
    QString databasePath = options.databasePath.isEmpty() ? config.database : options.databasePath;
    if (databasePath.isEmpty() && !options.demo)
        databasePath = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/switchyard.db");
    std::unique_ptr<sy::storage::SqliteStore> store;
    if (!databasePath.isEmpty()) {
        if (databasePath.startsWith(QLatin1String("postgres"))) {
            std::fprintf(stderr, "switchyard-gateway: PostgreSQL databases are not supported yet; use a file path\n");
            return 1;
        }
        auto opened = sy::storage::SqliteStore::open(databasePath);
        if (auto *message = std::get_if<QString>(&opened)) {
            std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(*message));
            return 1;
        }
        store = std::get<std::unique_ptr<sy::storage::SqliteStore>>(std::move(opened));
        bool fromStore = false;
        const std::optional<QString> listenOverride = options.listen;
        // The demo's simulator gets a new port each start: its configuration is always the fresh one.
        auto chosen = options.demo ? std::variant<sy::config::Config, QString>(std::move(config))
                                   : sy::service::configurationFromStore(*store, std::move(config), &fromStore);
        if (auto *message = std::get_if<QString>(&chosen)) {
            std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(*message));
            return 1;
        }
        config = std::get<sy::config::Config>(std::move(chosen));
        if (listenOverride)
            sy::cli::splitHostPort(*listenOverride, config.listenHost, config.listenPort);
        if (fromStore)
            std::printf("configuration from the database %s (the file only seeds the first start)\n", qPrintable(databasePath));
    }

    sy::service::GatewayService gateway(std::move(config));
    std::unique_ptr<sy::service::Persistence> persistence;
    if (store) {
        persistence = std::make_unique<sy::service::Persistence>(gateway, *store);
        persistence->restoreLedger();
    }
    QString error;
    if (!gateway.start(&error)) {
        std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("switchyard-gateway listening on %s\n", qPrintable(gateway.listenAddress()));
    if (!gateway.generatedAdminToken().isEmpty())
        std::printf("admin token (shown once; set admin_token in the configuration to choose one): %s\n",
                    gateway.generatedAdminToken().constData());
    if (options.demo) {
        std::printf("demo workspace: simulated providers at %s\n", qPrintable(demo.simulatorUrl()));
        std::printf("demo key: %s\n", sy::demo::kDemoKey);
        std::printf("try: curl %s/v1/chat/completions -H 'Authorization: Bearer %s' "
                    "-H 'Content-Type: application/json' "
                    "-d '{\"model\":\"deepseek/deepseek-v4-flash\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}'\n",
                    qPrintable(gateway.listenAddress()), sy::demo::kDemoKey);
    }
    std::fflush(stdout);
    quitOnSignals(app);
    const int status = app.exec();
    if (persistence)
        persistence->flush();
    return status;
}
