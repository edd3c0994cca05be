#pragma once
// GeminiFormat: Gemini generateContent (POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent, GET /v1beta/models) as written by the simulator: GenerateContentResponse
// bodies with text or functionCall parts and usageMetadata; streams as SSE (`?alt=sse`:
// `data: {...}\n\n` per chunk) or, without alt=sse, as one JSON array sent in pieces
// (`[{...}\n,{...}\n]`); `{"error":{"code","message","status"}}` error bodies, also as the last
// element of an interrupted stream. The model comes from the path. A request needs a key
// (x-goog-api-key, ?key= or Authorization: Bearer; any value).
#include "WireFormat.h"

namespace sy::sim {

// "/v1beta/models/m1:generateContent" -> ("m1", "generateContent"). Empty for other paths.
struct GeminiModelCall {
    QString model;
    QByteArray method;
};
std::optional<GeminiModelCall> parseGeminiModelCall(QByteArrayView endpoint);

class GeminiFormat final : public WireFormat {
public:
    RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const override;

    QByteArray completionBody(const ChatReply &reply) const override;
    QByteArray emptyCompletionBody(const ChatReply &reply) const override;
    QByteArray errorBody(int status, const QString &message) const override;
    // `owner` is not part of Gemini's list.
    QByteArray modelList(const QStringList &models, const QString &owner) const override;

    QByteArray streamContentType(const ChatReply &reply) const override;
    QByteArray streamStart(const ChatReply &reply) const override;
    QByteArray streamContent(const ChatReply &reply, qsizetype index) const override;
    QByteArray streamEnd(const ChatReply &reply) const override;
    QByteArray streamEmpty(const ChatReply &reply) const override;
    QByteArray malformedEvent(const ChatReply &reply) const override;
    QByteArray streamError(const ChatReply &reply, qsizetype sentWords, int status,
                           const QString &message) const override;

    // The 403 refusal Google gives a request without a key; empty when it has one.
    static std::optional<RequestParse> checkKey(const http::HttpRequest &request);
    // Google's status name for an HTTP status, e.g. 429 -> RESOURCE_EXHAUSTED.
    static QByteArrayView errorStatus(int status);
};

} // namespace sy::sim
