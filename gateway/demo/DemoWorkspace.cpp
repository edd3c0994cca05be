#include "demo/DemoWorkspace.h"

#include "SimScript.h"
#include "SimServer.h"

#include <QFile>

namespace sy::demo {

namespace {

QByteArray readResource(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

config::LoadResult failure(const QString &message)
{
    config::LoadResult result;
    result.errors.push_back({QStringLiteral("<demo>"), 0, 0, {}, message});
    return result;
}

} // namespace

DemoWorkspace::DemoWorkspace(QObject *parent)
    : QObject(parent)
{
}

DemoWorkspace::~DemoWorkspace() = default;

config::LoadResult DemoWorkspace::start(quint16 gatewayPort)
{
    const sim::ScriptParse script = sim::parseScript(readResource(QStringLiteral(":/switchyard/demo/sim-script.json")));
    if (!script.script)
        return failure(QStringLiteral("demo simulator script: %1").arg(script.error));
    m_sim = std::make_unique<sim::SimServer>();
    m_sim->applyScript(*script.script);
    m_simPort = m_sim->listen(QHostAddress::LocalHost, 0);
    if (m_simPort == 0)
        return failure(QStringLiteral("demo simulator cannot listen: %1").arg(m_sim->errorString()));

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SWITCHYARD_SIM_URL"), simulatorUrl());
    env.insert(QStringLiteral("SWITCHYARD_DEMO_KEY"), QString::fromLatin1(kDemoKey));
    config::LoadResult result = config::loadConfigText(readResource(QStringLiteral(":/switchyard/demo/demo.yaml")),
                                                       QStringLiteral("demo.yaml"), env);
    if (result.config)
        result.config->listenPort = gatewayPort;
    return result;
}

QString DemoWorkspace::simulatorUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_simPort);
}

} // namespace sy::demo
