#pragma once
// ConnectGuide: ready-to-paste setup for the coding tools and SDKs a user points at the gateway
// (docs/providers.md, "Connect a client"): Claude Code, Codex CLI, Gemini CLI, Cursor, Continue,
// Aider, the OpenAI / Anthropic / Gemini SDKs and curl. Each text names this gateway's URL, a
// key (or the placeholder `<your Switchyard key>`) and a model. Pure; any thread.
#include <QString>
#include <optional>
#include <vector>

namespace sy::onboarding {

inline constexpr char kKeyPlaceholder[] = "<your Switchyard key>";

struct ConnectClient {
    QString id;      // "claude-code"
    QString title;   // "Claude Code"
};

struct ConnectRequest {
    QString gatewayUrl;   // "http://127.0.0.1:8080", no trailing slash
    QString secret;       // empty: the placeholder
    QString model;        // empty: a placeholder model id
};

struct ConnectText {
    QString client;
    QString title;
    bool supported = true;   // false: the gateway does not serve the API this client speaks
    QString text;
};

const std::vector<ConnectClient> &connectClients();
// The setup for `clientId`; nothing for an unknown client.
std::optional<ConnectText> connectText(const QString &clientId, const ConnectRequest &request);

} // namespace sy::onboarding
