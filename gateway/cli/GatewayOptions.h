#pragma once
// Command line of switchyard-gateway.
#include <QString>
#include <QStringList>
#include <optional>

namespace sy::cli {

struct GatewayOptions {
    QString configPath;             // --config FILE
    bool demo = false;              // --demo: the demo workspace on the in-process simulator
    std::optional<QString> listen;  // --listen HOST:PORT, overrides the file's `listen`
    bool checkOnly = false;         // --check: validate the configuration and exit
    QString databasePath;           // --database FILE, overrides the file's `database`
};

struct ParsedOptions {
    std::optional<GatewayOptions> options;
    QString error;     // set when options is empty and the program must exit with an error
    QString output;    // --help / --version text: print and exit 0
};

ParsedOptions parseGatewayOptions(const QStringList &arguments);

// Splits "host:port" / "[v6]:port". Returns false when malformed.
bool splitHostPort(const QString &text, QString &host, quint16 &port);

} // namespace sy::cli
