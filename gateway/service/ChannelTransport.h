#pragma once
// The per-channel transport settings of an upstream request (SPEC §12, docs/configuration.md):
// TLS trust (system store, a CA file, or the opt-in `insecure`), the channel's proxy, and how
// its credential is sent when the channel's `auth` overrides its format's own way (Azure
// OpenAI's `api-key` header). Every request to a channel — client traffic, channel tests,
// probes, discovery — goes through this, so they all reach the upstream the same way.
// Pure; any thread.
#include "config/Config.h"
#include "upstream/UpstreamClient.h"

namespace sy::service {

// Sets `request`'s TLS and proxy options from `channel`.
void applyChannelTransport(const config::Channel &channel, upstream::UpstreamRequest &request);

// Rewrites the credential header the format's dialect wrote (`authorization: Bearer …` or
// `x-api-key`) into the header `auth` names: "bearer", "x-api-key", "api-key", or "none" (no
// credential header). Empty `auth`: unchanged. `credential` is the key the dialect was given.
void applyAuthStyle(const QString &auth, const QString &credential, http::HeaderList &headers);

// Both of the above for `channel`.
inline void applyChannel(const config::Channel &channel, const QString &credential,
                         upstream::UpstreamRequest &request)
{
    applyChannelTransport(channel, request);
    applyAuthStyle(channel.auth, credential, request.headers);
}

} // namespace sy::service
