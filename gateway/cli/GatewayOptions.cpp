#include "cli/GatewayOptions.h"

#include <QCommandLineParser>

namespace sy::cli {

ParsedOptions parseGatewayOptions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Switchyard gateway: a local LLM router without a display."));
    const QCommandLineOption help(QStringList{"h", "help"}, QStringLiteral("Show this help."));
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("Show the version."));
    const QCommandLineOption config(QStringList{"c", "config"}, QStringLiteral("Configuration file (YAML or JSON)."), QStringLiteral("FILE"));
    const QCommandLineOption demo(QStringLiteral("demo"), QStringLiteral("Run the demo workspace on the built-in simulator."));
    const QCommandLineOption listen(QStringLiteral("listen"), QStringLiteral("Listen on HOST:PORT (overrides the file)."), QStringLiteral("HOST:PORT"));
    const QCommandLineOption check(QStringLiteral("check"), QStringLiteral("Validate the configuration and exit."));
    const QCommandLineOption database(QStringLiteral("database"), QStringLiteral("SQLite database file (overrides the configuration's `database`)."), QStringLiteral("FILE"));
    parser.addOptions({help, version, config, demo, listen, check, database});

    ParsedOptions result;
    if (!parser.parse(arguments)) {
        result.error = parser.errorText();
        return result;
    }
    if (parser.isSet(help)) {
        result.output = parser.helpText();
        return result;
    }
    if (parser.isSet(version)) {
        result.output = QStringLiteral("switchyard-gateway " SWITCHYARD_VERSION "\n");
        return result;
    }
    if (!parser.positionalArguments().isEmpty()) {
        result.error = QStringLiteral("unexpected argument: %1").arg(parser.positionalArguments().first());
        return result;
    }
    GatewayOptions options;
    options.configPath = parser.value(config);
    options.demo = parser.isSet(demo);
    options.checkOnly = parser.isSet(check);
    options.databasePath = parser.value(database);
    if (parser.isSet(listen)) {
        QString host;
        quint16 port = 0;
        if (!splitHostPort(parser.value(listen), host, port)) {
            result.error = QStringLiteral("--listen expects HOST:PORT, got '%1'").arg(parser.value(listen));
            return result;
        }
        options.listen = parser.value(listen);
    }
    if (options.demo == !options.configPath.isEmpty()) {
        result.error = QStringLiteral("give exactly one of --config FILE or --demo");
        return result;
    }
    result.options = options;
    return result;
}

bool splitHostPort(const QString &text, QString &host, quint16 &port)
{
    qsizetype colon = text.lastIndexOf(':');
    if (colon <= 0)
        return false;
    host = text.left(colon);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint value = text.mid(colon + 1).toUInt(&ok);
    if (!ok || value > 65535 || host.isEmpty())
        return false;
    port = quint16(value);
    return true;
}

} // namespace sy::cli
