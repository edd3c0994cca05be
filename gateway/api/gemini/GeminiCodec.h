#pragma once
// GeminiCodec: the Gemini client format (POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent) — a request body to canonical, and a canonical answer, stream and error
// back in the shapes Google's SDKs read. Stateless; any thread. What is translated, dropped and
// refused: docs/formats-gemini.md.
#include "api/Codec.h"

namespace sy::api::gemini {

class GeminiCodec final : public IngressCodec {
public:
    Format format() const override { return Format::Gemini; }
    std::variant<CanonicalRequest, ApiError> parse(const QJsonObject &body) const override;
    // {candidates: [{content: {role: model, parts}, finishReason, index: 0}], usageMetadata,
    //  modelVersion: options.publicModel, responseId}.
    QByteArray answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const override;
    // SSE, or a JSON array with options.jsonArrayStream.
    std::unique_ptr<StreamWriter> streamWriter(const WriterOptions &options) const override;
    // {"error":{code, message, status, details: [ErrorInfo{reason: error.code, domain}]}}.
    QByteArray errorBody(const ApiError &error) const override;
};

// The answer's id, or the request id when the answer has none.
QString responseId(const QString &answerId, const QByteArray &requestId);

} // namespace sy::api::gemini
