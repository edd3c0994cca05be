// switchyard-gateway: the gateway without a display. Wires options, configuration and the
// service; all behaviour lives in the libraries.
#include "cli/ConnectCommand.h"
#include "cli/GatewayOptions.h"
#include "boot/GatewayBoot.h"
#include "core/EpollEventDispatcher.h"

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
    // The event loop: epoll (core/EpollEventDispatcher.h), whose cost per wake-up follows the
    // ready descriptors, not the open ones (Qt's poll() loop hands the kernel every socket on
    // every wake-up: a core's worth at 9,000 streams). SWITCHYARD_EVENT_DISPATCHER=qt keeps Qt's,
    // then its own poll() loop rather than GLib's, whose watch list is walked on every add and
    // remove (seconds of delay at 2,000 streams). Both must precede the application.
    if (QAbstractEventDispatcher *dispatcher = sy::createGatewayEventDispatcher())
        QCoreApplication::setEventDispatcher(dispatcher);
    else if (!qEnvironmentVariableIsSet("QT_NO_GLIB"))
        qputenv("QT_NO_GLIB", "1");
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchyard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHYARD_VERSION));
    std::signal(SIGPIPE, SIG_IGN);

    if (const std::optional<sy::cli::CommandResult> connect = sy::cli::runConnectCommand(app.arguments())) {
        std::fputs(qPrintable(connect->out), stdout);
        std::fputs(qPrintable(connect->err), stderr);
        return connect->exitCode;
    }

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

    sy::boot::BootOptions bootOptions;
    bootOptions.configPath = options.configPath;
    bootOptions.demo = options.demo;
    bootOptions.databasePath = options.databasePath;
    if (options.listen) {
        QString host;
        quint16 port = 0;
        sy::cli::splitHostPort(*options.listen, host, port);
        bootOptions.listenHost = host;
        bootOptions.listenPort = port;
    }
    sy::boot::GatewayBoot boot(bootOptions);
    std::vector<sy::config::ConfigError> errors;
    if (!boot.loadConfiguration(errors)) {
        printErrors(errors);
        return 1;
    }
    if (options.checkOnly) {
        const sy::config::Config &config = boot.configuration();
        std::printf("configuration OK: %d channels, %d models, %d keys\n", int(config.channels.size()),
                    int(config.models.size()), int(config.keys.size()));
        return 0;
    }
    // The database: configuration edits, the ledger and the request log survive restarts. The
    // demo workspace keeps nothing unless a database is named; with one, its edits are kept too
    // and its channels follow the simulator to its new port.
    QString error;
    if (!boot.openDatabase(error)) {
        std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(error));
        return 1;
    }
    if (boot.configurationFromDatabase())
        std::printf("configuration from the database %s (the file only seeds the first start)\n", qPrintable(boot.databasePath()));
    if (!boot.startService(error)) {
        const QString message = boot.listenFailure(error,
            QStringLiteral("Stop the other program, or start with --listen HOST:PORT (port 0 = any free port)."));
        std::fprintf(stderr, "switchyard-gateway: %s\n", qPrintable(message));
        return 1;
    }
    sy::service::GatewayService &gateway = boot.gateway();
    std::printf("switchyard-gateway listening on %s\n", qPrintable(gateway.listenAddress()));
    if (!gateway.generatedAdminToken().isEmpty())
        std::printf("admin token (shown once; set admin_token in the configuration to choose one): %s\n",
                    gateway.generatedAdminToken().constData());
    if (options.demo) {
        std::printf("demo workspace: simulated providers at %s\n", qPrintable(boot.demo()->simulatorUrl()));
        std::printf("demo key: %s\n", sy::demo::kDemoKey);
        std::printf("try: curl %s/v1/chat/completions -H 'Authorization: Bearer %s' "
                    "-H 'Content-Type: application/json' "
                    "-d '{\"model\":\"deepseek/deepseek-v4-flash\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}'\n",
                    qPrintable(gateway.listenAddress()), sy::demo::kDemoKey);
    }
    std::fflush(stdout);
    quitOnSignals(app);
    const int status = app.exec();
    boot.flush();
    return status;
}
