#pragma once
// CountTokens: `POST /v1/messages/count_tokens` (Anthropic). Passed through to the first enabled
// anthropic-format channel of the model (its own count is exact); when the model has none, or
// that call fails, the gateway estimates: one token per four characters of the system prompt,
// the messages' text and the tool definitions (docs/gateway.md). The answer says which with the
// header `x-switchyard-token-count: upstream | estimate`.
//
// Thread: the gateway thread.
#include "api/Canonical.h"
#include "http/ResponseSink.h"
#include "service/OutageInjector.h"
#include "service/Workspace.h"

#include <QJsonObject>
#include <functional>
#include <memory>

namespace sy::service {

// The estimate for a Messages body (already a JSON object).
qint64 estimateInputTokens(const QJsonObject &body);
// The same estimate for a request in canonical form (Gemini's countTokens).
qint64 estimateInputTokens(const api::CanonicalRequest &request);

// Answers the request on `sink` (200 with {"input_tokens": N}, or an error in Anthropic's shape)
// and calls `finished(status)` once. `body` has been checked to be a JSON object with a model the
// workspace knows.
void countTokens(const QJsonObject &body, const QByteArray &rawBody, const Workspace &workspace,
                 const QByteArray &anthropicVersion, const QByteArray &requestId,
                 std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                 std::function<void(int status)> finished);

} // namespace sy::service
