// switchyard-gateway: the gateway without a display. Wires options, configuration and the
// service; all behaviour lives in the libraries.
#include "cli/GatewayOptions.h"
#include "config/ConfigLoader.h"
#include "demo/DemoWorkspace.h"
#include "service/GatewayService.h"
#include "service/StartFailure.h"
#include "service/StoreSetup.h"

#include <QCoreApplication>
#include <QFileInfo>
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

    // The user service's usual first failure: say what to create, not only that it is missing.
    if (!options.demo && !QFileInfo::exists(options.configPath)) {
        std::fprintf(stderr,
                     "switchyard-gateway: no configuration file %s\n"
                     "Create it, e.g. from the example in /usr/share/doc/switchyard/examples/switchyard.yaml, and "
                     "test it with: switchyard-gateway --check --config %s\n",
                     qPrintable(options.configPath), qPrintable(options.configPath));
        return 1;
    }

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
    // demo workspace keeps nothing unless a database is named; with one, its edits are kept too
    // and its channels follow the simulator to its new port.
    std::unique_ptr<sy::service::StoreSetup> storeSetup;
    if (!options.demo || !options.databasePath.isEmpty()) {
        const QString path = sy::service::chooseDatabasePath(options.databasePath, config.database, QStringLiteral("switchyard.db"));
        auto opened = sy::service::StoreSetup::open({path, options.demo ? demo.simulatorUrl() : QString()}, std::move(config));
        if (auto *message = std::get_if<QString>(&opened)) {
            std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(*message));
            return 1;
        }
        storeSetup = std::get<std::unique_ptr<sy::service::StoreSetup>>(std::move(opened));
        config = storeSetup->takeConfig();
        if (options.listen)
            sy::cli::splitHostPort(*options.listen, config.listenHost, config.listenPort);
        if (storeSetup->configFromStore())
            std::printf("configuration from the database %s (the file only seeds the first start)\n", qPrintable(path));
    }

    sy::service::GatewayService gateway(std::move(config));
    if (storeSetup)
        storeSetup->attach(gateway);
    QString error;
    if (!gateway.start(&error)) {
        const sy::config::Config &running = gateway.workspace()->config();
        const QString message = sy::service::listenFailureMessage(running.listenHost, running.listenPort, error,
            QStringLiteral("Stop the other program, or start with --listen HOST:PORT (port 0 = any free port)."));
        std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(message));
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
    if (storeSetup)
        storeSetup->flush();
    return status;
}
