#pragma once
// SimServer: the simulated upstream providers behind one HTTP listener.
//   POST /<provider>/v1/chat/completions, GET /<provider>/v1/models   (OpenAI format)
//   POST /v1/chat/completions, GET /v1/models                          (provider "default")
//   /_sim/rules, /_sim/stats, /_sim/reset                              (ControlApi)
// Behaviour per (provider, model) comes from the rules in SimState; see docs/sim.md.
//
// Thread: create, configure and use on one thread; handlers and timers run there.
#include "OpenAiFormat.h"
#include "ProviderPath.h"
#include "SimState.h"
#include "http/HttpFront.h"

#include <QObject>

namespace sy::sim {

struct SimOptions {
    quint32 seed = 1;  // of every random decision (failure draws, words)
    // Accept requests whose Host header is not loopback (only when listening on another address).
    bool allowRemoteHosts = false;
};

class SimServer : public QObject {
    Q_OBJECT
public:
    explicit SimServer(SimOptions options = {}, QObject *parent = nullptr);
    ~SimServer() override;

    // Replaces the rules, and the model lists when the script names them.
    void applyScript(const SimScript &script) { m_state.apply(script); }

    // Listens on address:port (0 = any free port). Returns the bound port, or 0 with
    // errorString() set.
    quint16 listen(const QHostAddress &address, quint16 port);
    QString errorString() const { return m_front->errorString(); }

    SimState &state() { return m_state; }
    const SimStats &stats() const { return m_state.stats; }

private:
    void handleChat(const ProviderPath &target, http::HttpRequest &&request,
                    std::shared_ptr<http::ResponseSink> sink);
    void handleModels(const ProviderPath &target, std::shared_ptr<http::ResponseSink> sink);
    void handleProviderPath(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    void respondError(http::ResponseSink &sink, int status, const QString &message);

    SimState m_state;
    OpenAiFormat m_openAi;
    // Parent of unfinished ChatExchanges; deleted before the state they count in.
    QObject *m_exchanges;
    http::HttpFront *m_front;
};

} // namespace sy::sim
