// switchyard-sim: simulated upstream LLM providers on loopback. See docs/sim.md.
#include "QuitOnSignal.h"
#include "SimScript.h"
#include "SimServer.h"
#include "core/EpollEventDispatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QHostAddress>
#include <cstdio>

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "switchyard-sim: %s\n", qPrintable(message));
    return 2;
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
    QCoreApplication::setApplicationName(QStringLiteral("switchyard-sim"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Simulated LLM providers (OpenAI, Anthropic and Gemini formats) for tests and demos."));
    parser.addHelpOption();
    const QCommandLineOption hostOption(QStringLiteral("host"), QStringLiteral("Address to listen on."),
                                        QStringLiteral("address"), QStringLiteral("127.0.0.1"));
    const QCommandLineOption portOption(QStringLiteral("port"), QStringLiteral("Port (0 = any free port)."),
                                        QStringLiteral("port"), QStringLiteral("0"));
    const QCommandLineOption scriptOption(QStringLiteral("script"), QStringLiteral("JSON script of models and rules."),
                                          QStringLiteral("file"));
    const QCommandLineOption seedOption(QStringLiteral("seed"), QStringLiteral("Seed of every random decision."),
                                        QStringLiteral("n"), QStringLiteral("1"));
    parser.addOptions({hostOption, portOption, scriptOption, seedOption});
    parser.process(app);

    const QString host = parser.value(hostOption);
    const QHostAddress address = host == u"localhost" ? QHostAddress(QHostAddress::LocalHost) : QHostAddress(host);
    if (address.isNull())
        return fail(QStringLiteral("--host: not an IP address: %1").arg(host));
    bool portOk = false;
    const uint port = parser.value(portOption).toUInt(&portOk);
    if (!portOk || port > 65535)
        return fail(QStringLiteral("--port: expected 0..65535"));
    bool seedOk = false;
    const quint32 seed = parser.value(seedOption).toUInt(&seedOk);
    if (!seedOk)
        return fail(QStringLiteral("--seed: expected an unsigned integer"));

    sy::sim::SimServer server({seed, !address.isLoopback()});
    if (parser.isSet(scriptOption)) {
        QFile file(parser.value(scriptOption));
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("--script: cannot read %1: %2").arg(file.fileName(), file.errorString()));
        const sy::sim::ScriptParse parsed = sy::sim::parseScript(file.readAll());
        if (!parsed.script)
            return fail(QStringLiteral("--script %1: %2").arg(file.fileName(), parsed.error));
        server.applyScript(*parsed.script);
    }

    const quint16 bound = server.listen(address, quint16(port));
    if (bound == 0)
        return fail(QStringLiteral("cannot listen on %1:%2: %3").arg(host).arg(port).arg(server.errorString()));
    if (!sy::sim::quitOnTerminationSignals())
        return fail(QStringLiteral("cannot install signal handlers"));

    std::printf("switchyard-sim listening on http://%s:%u\n", qPrintable(host), unsigned(bound));
    std::fflush(stdout);
    return app.exec();
}
