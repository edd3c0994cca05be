#pragma once
// OpenAiWire: the small pieces of the Chat Completions wire format that both directions share —
// finish reasons, usage objects, data: URLs of images and the reasoning effort. Pure functions,
// any thread.
#include "api/Canonical.h"

#include <QJsonObject>
#include <QString>

namespace sy::api::openai {

// finish_reason for a canonical stop (SPEC: stop, length, tool_calls, content_filter). An
// Unknown or Error stop becomes `tool_calls` when the answer called a tool, else `stop`.
QString finishReasonFor(StopReason reason, bool calledTools);
// The canonical stop of an upstream finish_reason (`function_call` is the legacy tool call);
// Unknown for null or anything else.
StopReason stopReasonFrom(const QString &finishReason);

// {"prompt_tokens" (input + cache), "completion_tokens", "total_tokens",
//  "prompt_tokens_details": {"cached_tokens": cache read}}.
QJsonObject usageJson(const TokenUsage &usage);
// The canonical usage of an upstream usage object; unknown when `usage` is empty. Cached tokens
// come from prompt_tokens_details.cached_tokens (or DeepSeek's prompt_cache_hit_tokens) and are
// taken out of inputTokens.
TokenUsage usageFrom(const QJsonObject &usage);

// Splits "data:<media type>;base64,<data>" into `part`'s mediaType and base64Data; any other URL
// stays imageUrl. Returns false for a data: URL that is not base64 (it cannot be carried over).
bool setImageFromUrl(const QString &url, ContentPart &part);
// The URL to send for an image part: imageUrl, or a data: URL made of mediaType and base64Data.
QString imageUrlOf(const ContentPart &part);

// reasoning_effort for a canonical reasoning: the effort when given, else from the budget:
// low (< 2048), medium (< 8192), high. Empty when neither is set.
QString effortFor(const Reasoning &reasoning);

// "data: <json>\n\n": one server-sent event as Chat Completions streams frame them.
QByteArray sseData(const QJsonObject &object);

// The answer id as OpenAI clients expect it ("chatcmpl-…"): `id` when it already is one, else
// "chatcmpl-" + id, or + `fallback` when id is empty.
QString chatCompletionId(const QString &id, const QByteArray &fallback);

} // namespace sy::api::openai
