#pragma once
// DemoWorkspace: the workspace a new user sees with no configuration and no API keys. It starts
// switchyard-sim in-process on a free loopback port (six simulated providers, in the OpenAI,
// Anthropic and Gemini formats) and loads the demo configuration (resources/demo/demo.yaml)
// pointed at it.
//
// Thread: create and use on the gateway thread; the simulator shares its event loop.
#include "config/ConfigLoader.h"

#include <QObject>
#include <memory>

namespace sy::sim { class SimServer; }

namespace sy::demo {

// The demo key's secret. It only opens the local demo gateway; it is not a provider credential.
inline constexpr char kDemoKey[] = "sk-switchyard-demo";

class DemoWorkspace : public QObject {
    Q_OBJECT
public:
    explicit DemoWorkspace(QObject *parent = nullptr);
    ~DemoWorkspace() override;

    // Starts the simulator and loads the demo configuration with the gateway on `gatewayPort`
    // (0 = any free port). Returns errors on failure.
    config::LoadResult start(quint16 gatewayPort);
    QString simulatorUrl() const;
    sim::SimServer *simulator() const { return m_sim.get(); }

private:
    std::unique_ptr<sim::SimServer> m_sim;
    quint16 m_simPort = 0;
};

} // namespace sy::demo
