#pragma once
// SimServer: the simulated upstream providers behind one HTTP listener. Under each provider
// prefix (/<provider>/...; none for the provider "default"):
//   POST v1/chat/completions, v1/embeddings, GET v1/models                  (OpenAI)
//   POST v1/messages, v1/messages/count_tokens, GET v1/models + anthropic-version (Anthropic)
//   POST v1beta/models/M:generateContent, :streamGenerateContent, :countTokens,
//        :embedContent, :batchEmbedContents, GET v1beta/models              (Gemini)
//   /_sim/rules, /_sim/stats, /_sim/reset                                   (ControlApi)
// Behaviour per (provider, model) comes from the rules in SimState; see docs/sim.md.
//
// Thread: create, configure and use on one thread; handlers and timers run there.
#include "AnthropicFormat.h"
#include "Embeddings.h"
#include "GeminiFormat.h"
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
    // Chat and embedding requests of every format: parsed by `format`, planned, played.
    void handleChat(const ProviderPath &target, const WireFormat &format, http::HttpRequest &&request,
                    std::shared_ptr<http::ResponseSink> sink);
    // Token counts (Anthropic count_tokens, Gemini :countTokens): no rules, not counted in stats.
    void handleCountTokens(const ProviderPath &target, const WireFormat &format, http::HttpRequest &&request,
                           std::shared_ptr<http::ResponseSink> sink);
    void handleModels(const ProviderPath &target, const WireFormat &format, std::shared_ptr<http::ResponseSink> sink);
    void handleProviderPath(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink);
    // The format whose error shape answers a request on `path` that no route takes.
    const WireFormat &errorFormatFor(QByteArrayView path) const;
    static void respondError(http::ResponseSink &sink, const WireFormat &format, int status, const QString &message);

    SimState m_state;
    OpenAiFormat m_openAi;
    OpenAiEmbeddingFormat m_openAiEmbeddings;
    AnthropicFormat m_anthropic;
    GeminiFormat m_gemini;
    GeminiEmbeddingFormat m_geminiEmbedding{false};
    GeminiEmbeddingFormat m_geminiBatchEmbedding{true};
    // Parent of unfinished ChatExchanges; deleted before the state they count in.
    QObject *m_exchanges;
    http::HttpFront *m_front;
};

} // namespace sy::sim
