#include "cli/ConnectCommand.h"

#include "config/ConfigLoader.h"
#include "onboarding/ConnectGuide.h"

namespace sy::cli {

namespace {

constexpr char kUsage[] = "usage: switchyard-gateway connect [CLIENT] [--key SECRET] [--model MODEL] [--config FILE]\n";

QString gatewayUrl(const QString &host, quint16 port)
{
    return QStringLiteral("http://%1:%2").arg(host.contains(u':') ? u'[' + host + u']' : host).arg(port);
}

} // namespace

std::optional<CommandResult> runConnectCommand(const QStringList &arguments)
{
    if (arguments.size() < 2 || arguments[1] != u"connect")
        return std::nullopt;
    QString client;
    QString key;
    QString model;
    QString configPath;
    for (int i = 2; i < arguments.size(); ++i) {
        const QString &arg = arguments[i];
        auto value = [&](QString &out) {
            if (i + 1 >= arguments.size())
                return false;
            out = arguments[++i];
            return true;
        };
        bool ok = true;
        if (arg == u"--key")
            ok = value(key);
        else if (arg == u"--model")
            ok = value(model);
        else if (arg == u"--config")
            ok = value(configPath);
        else if (arg == u"--help" || arg == u"-h")
            return CommandResult{0, QString::fromLatin1(kUsage), {}};
        else if (arg.startsWith(u'-') || !client.isEmpty())
            ok = false;
        else
            client = arg;
        if (!ok)
            return CommandResult{2, {}, QStringLiteral("switchyard-gateway connect: unexpected '%1'\n%2").arg(arg, QString::fromLatin1(kUsage))};
    }

    if (client.isEmpty()) {
        QString out = QStringLiteral("Clients (switchyard-gateway connect CLIENT):\n");
        for (const onboarding::ConnectClient &c : onboarding::connectClients())
            out += QStringLiteral("  %1  %2\n").arg(c.id, -14).arg(c.title);
        return CommandResult{0, out, {}};
    }

    onboarding::ConnectRequest request;
    request.gatewayUrl = gatewayUrl(QStringLiteral("127.0.0.1"), 8080);
    if (!configPath.isEmpty()) {
        const config::LoadResult loaded = config::loadConfigFile(configPath);
        if (!loaded.config) {
            QString err;
            for (const config::ConfigError &e : loaded.errors)
                err += e.toString() + u'\n';
            return CommandResult{1, {}, err};
        }
        request.gatewayUrl = gatewayUrl(loaded.config->listenHost, loaded.config->listenPort);
    }
    request.secret = key;
    request.model = model;
    const std::optional<onboarding::ConnectText> text = onboarding::connectText(client, request);
    if (!text)
        return CommandResult{2, {}, QStringLiteral("switchyard-gateway connect: unknown client '%1' (run `switchyard-gateway connect` for the list)\n").arg(client)};
    return CommandResult{0, text->text, {}};
}

} // namespace sy::cli
