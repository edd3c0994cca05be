#pragma once
// AnthropicWire: the pieces of the Anthropic Messages wire format that the codec (client side),
// the dialect (channel side) and the pass-through share: stop reasons, usage, content blocks,
// error bodies and SSE framing. Pure functions, any thread.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace sy::api::anthropic {

// The anthropic-version header value the gateway speaks when the client named none.
inline constexpr const char *kApiVersion = "2023-06-01";

// end_turn, max_tokens, tool_use, stop_sequence, refusal; Unknown and Error write end_turn.
QString stopReasonName(StopReason reason);
// The inverse; null, pause_turn and anything unknown read as Unknown.
StopReason stopReasonFromName(const QString &name);

// {input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens}.
QJsonObject usageJson(const TokenUsage &usage);
// Merges the fields present in `usage` (an Anthropic usage object) into `into`; `known` is set
// when the object has any of them.
void mergeUsage(const QJsonObject &usage, TokenUsage &into);

// One canonical part as an Anthropic content block (text, image, tool_use, tool_result, thinking,
// redacted_thinking), cache_control kept. A ToolCall whose arguments are not a JSON object writes
// an empty input.
QJsonObject blockFromPart(const ContentPart &part);
// An answer's content block as a part. Types the canonical model has no place for (server tool
// blocks, citations-only blocks, ...) become the text `[unsupported block: TYPE]`, never dropped.
ContentPart partFromAnswerBlock(const QJsonObject &block);

// A tool call's arguments as the object Anthropic's `input` wants ({} when empty or not an object).
QJsonObject argumentsObject(const QByteArray &argumentsJson);

// Anthropic's error.type for an HTTP status the gateway produces (SPEC §9).
QByteArray errorTypeForStatus(int status);
// {"type":"error","error":{"type","message"[,"code"][,"metadata"]}}.
QByteArray errorBody(const ApiError &error);

// `event: NAME\ndata: JSON\n\n` with compact JSON.
QByteArray sseEvent(QByteArrayView name, const QJsonObject &data);
// SPEC §5 interrupted-stream signal: an `error` event of type api_error carrying `reason`.
QByteArray interruptedEvent(const QString &reason);

} // namespace sy::api::anthropic
