#pragma once
// Gateway-produced error responses in the client's format, with `x-request-id` and, for 429/503,
// `retry-after` (SPEC §6, §9).
#include "api/ApiError.h"
#include "api/Canonical.h"
#include "http/ResponseSink.h"

namespace sy::service {

using ErrorReply = api::ApiError;

// Writes `reply` to `sink` in `format` (no-op when the client is gone). Gateway thread.
void sendErrorReply(http::ResponseSink &sink, const QByteArray &requestId, const ErrorReply &reply,
                    api::Format format = api::Format::OpenAiChat);

// The upstream's own error message when `body` is an error object of any format (OpenAI,
// Anthropic, Gemini), else the start of the body; at most 200 characters, not yet redacted.
QString upstreamErrorMessage(const QByteArray &body);

// The body of `reply` in `format`.
QByteArray errorBodyIn(api::Format format, const ErrorReply &reply);

} // namespace sy::service
