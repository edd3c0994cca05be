#pragma once
// ResponsesWire: the pieces of the OpenAI Responses wire format that the answer body and the
// stream share — the Response object, its output items and their ids, usage, and the SSE frame.
// Both build the output from the same canonical parts with the same ids, so the items a stream
// announced are the ones its response.completed repeats. Pure functions, any thread.
#include "api/Canonical.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace sy::api::responses {

// What kind of output item a canonical part becomes; None for parts that are not answer output
// (images, tool results).
enum class ItemKind { None, Message, FunctionCall, Reasoning };
ItemKind itemKindOf(ContentPart::Kind kind);

// The id of output item `outputIndex` of response `responseId` ("resp_X"): msg_X_N, fc_X_N, rs_X_N.
QString itemId(ItemKind kind, const QString &responseId, int outputIndex);

// One output item for `part` (whose kind is not None). `status`: "in_progress", "completed" or
// "incomplete". An in-progress item is the empty shell a stream announces first.
QJsonObject outputItem(const ContentPart &part, const QString &id, const QString &status);
// The output items of `parts` in order, numbered as itemId() numbers them.
QJsonArray outputItems(const QList<ContentPart> &parts, const QString &responseId, const QString &status);

// {"input_tokens" (input + cache), "input_tokens_details":{"cached_tokens"}, "output_tokens",
//  "output_tokens_details":{"reasoning_tokens":0}, "total_tokens"}; null when unknown.
QJsonValue usageJson(const TokenUsage &usage);

// "completed", or "incomplete" for a stop on max tokens or a content filter.
QString statusFor(StopReason reason);
// {"reason": "max_output_tokens" | "content_filter"} for an incomplete stop; null otherwise.
QJsonValue incompleteDetailsFor(StopReason reason);

// The Response object. `request` (may be null) gives what the object echoes of the request:
// tools, tool_choice, parallel_tool_calls, text, reasoning, temperature, top_p,
// max_output_tokens, previous_response_id, store.
struct ResponseState {
    QString id;
    qint64 createdAt = 0;         // unix seconds
    QString status;               // in_progress | completed | incomplete | failed
    QString model;                // the public model id
    QJsonArray output;
    QJsonValue usage = QJsonValue::Null;
    QJsonValue error = QJsonValue::Null;
    QJsonValue incompleteDetails = QJsonValue::Null;
};
QJsonObject responseObject(const ResponseState &state, const CanonicalRequest *request);

// "event: <type>\ndata: <json>\n\n" with `type` and `sequence_number` set in the data.
QByteArray sseEvent(const QString &type, QJsonObject data, qint64 sequenceNumber);

} // namespace sy::api::responses
