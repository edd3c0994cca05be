#pragma once
// `switchyard-gateway connect [CLIENT] [--key SECRET] [--model M] [--config FILE]`: prints the
// ready-to-paste setup of a coding tool or SDK for this gateway (onboarding/ConnectGuide.h).
// Without CLIENT it lists the clients. The gateway's URL comes from the configuration's
// `listen` (--config), else the default 127.0.0.1:8080. Pure apart from reading FILE.
#include <QString>
#include <QStringList>
#include <optional>

namespace sy::cli {

struct CommandResult {
    int exitCode = 0;
    QString out;   // for stdout
    QString err;   // for stderr
};

// Runs the command when `arguments` (argv, program name first) start with "connect"; nothing
// otherwise.
std::optional<CommandResult> runConnectCommand(const QStringList &arguments);

} // namespace sy::cli
