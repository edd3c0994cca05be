#pragma once
// GeminiWire: the pieces of the Gemini generateContent wire format that the codec (client side),
// the dialect (channel side) and the pass-through share: member names in both spellings, finish
// reasons, usage, parts, error bodies and the two stream framings. Pure functions, any thread.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sy::api::gemini {

// The member `camelName` of `object`, or its snake_case spelling (the REST API takes both:
// `maxOutputTokens` / `max_output_tokens`); undefined when neither is there.
QJsonValue member(const QJsonObject &object, const char *camelName);

// STOP, MAX_TOKENS, SAFETY; EndTurn, ToolUse, StopSequence, Unknown and Error write STOP.
QString finishReasonName(StopReason reason);
// The inverse: STOP → EndTurn (ToolUse when `hasToolCall`), MAX_TOKENS → MaxTokens, the safety
// family (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY) → ContentFilter,
// anything else Unknown.
StopReason stopReasonFromFinish(const QString &finishReason, bool hasToolCall);

// usageMetadata for canonical usage: promptTokenCount counts every prompt token (cached ones
// included, as Gemini does), cachedContentTokenCount only when there are cached tokens.
QJsonObject usageMetadataJson(const TokenUsage &usage);
// Canonical usage of a usageMetadata object: inputTokens = prompt − cached (+ tool-use prompt),
// cacheReadTokens = cached, outputTokens = candidates + thoughts. Not `known` when the object has
// no counts.
TokenUsage usageFromMetadata(const QJsonObject &usageMetadata);

// One answer part as Gemini writes it: {text}, {text, thought: true}, {functionCall: {name, args,
// id}}, a thoughtSignature when the part carries one. nullopt for parts an answer has no place for.
std::optional<QJsonObject> answerPartJson(const ContentPart &part);
// A tool call's arguments as the object Gemini's `args` wants ({} when empty or not an object).
QJsonObject argumentsObject(const QByteArray &argumentsJson);

// google.rpc status name for an HTTP status (SPEC §9): 400/413 INVALID_ARGUMENT, 401
// UNAUTHENTICATED, 402/429 RESOURCE_EXHAUSTED, 403 PERMISSION_DENIED, 404 NOT_FOUND, …
QByteArray statusForHttp(int status);
// {"error":{"code","message","status","details":[ErrorInfo{reason, domain}, BadRequest when a
// field is named]}}; `reason` is error.code, or the status name in lower case when it has none.
QByteArray errorBody(const ApiError &error);
// SPEC §5: the error object a broken stream ends with (500 INTERNAL carrying `reason`).
QByteArray interruptedObject(const QString &reason);

// The framing of a Gemini stream for a client: server-sent events (`data: JSON\r\n\r\n`, as Gemini
// writes them) or, with `jsonArray`, one JSON array written element by element
// (`[{...}\n,{...}\n]`). One per stream; the gateway thread.
class ChunkFramer {
public:
    explicit ChunkFramer(bool jsonArray) : m_jsonArray(jsonArray) {}
    // One chunk (a JSON object's text) framed; the bytes may span lines (SSE: one data line each).
    QByteArray element(const QByteArray &json);
    // What closes the stream: `]` (or `[]` when nothing was written) for an array; nothing for SSE.
    QByteArray close();
    bool jsonArray() const { return m_jsonArray; }

private:
    bool m_jsonArray = false;
    bool m_wroteAny = false;
    bool m_closed = false;
};

} // namespace sy::api::gemini
