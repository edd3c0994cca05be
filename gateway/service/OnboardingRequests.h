#pragma once
// The upstream requests of onboarding — a provider's model list and a channel test's one-token
// chat — for a saved channel or for settings not saved yet, and the readable error text of
// their answers. Pure; any thread.
#include "config/Config.h"
#include "service/UpstreamFetch.h"
#include "upstream/UpstreamClient.h"

namespace sy::service {

// Where and how to reach an upstream.
struct UpstreamTarget {
    QString format = QStringLiteral("openai");   // openai | anthropic | gemini
    QString baseUrl;                             // without trailing slash
    QString credential;                          // empty: none sent
    QString auth;                                // override of the format's way (ChannelTransport.h)
    QString modelsPath = QStringLiteral("/models");
    config::Tls tls;
    QString proxy;
    config::Timeouts timeouts;
};

// A saved channel's target: its base URL, format, auth, TLS, proxy, timeouts, first credential.
UpstreamTarget targetOf(const config::Channel &channel);

// GET {base}{modelsPath}, authenticated the format's way (Anthropic: x-api-key and
// anthropic-version; Gemini: x-goog-api-key).
upstream::UpstreamRequest modelListRequest(const UpstreamTarget &target);
// Ollama's own list, GET {server}/api/tags, where {server} is the base URL without a trailing
// "/v1": the fallback when an OpenAI-style list is not answered.
upstream::UpstreamRequest ollamaTagsRequest(const UpstreamTarget &target);
// One chat request with max_tokens 1 in the target's format for `upstreamModel`.
upstream::UpstreamRequest tinyChatRequest(const UpstreamTarget &target, const QString &upstreamModel);

// Empty for a 2xx answer; otherwise what went wrong, in one line: the transport error, or
// "HTTP <status>: <the upstream's error message>", with `secrets` and key-shaped text redacted.
QString fetchProblem(const FetchResult &result, const QStringList &secrets);

} // namespace sy::service
