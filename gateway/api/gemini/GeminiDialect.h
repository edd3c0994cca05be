#pragma once
// GeminiDialect: the Gemini channel format — the canonical request as a POST
// {base}/models/{upstream}:generateContent (or :streamGenerateContent?alt=sse), and the channel's
// answer and stream chunks back to canonical. Stateless; any thread. What is translated, dropped
// and refused: docs/formats-gemini.md.
#include "api/Codec.h"

namespace sy::api::gemini {

// Thinking budgets written for an OpenAI-style reasoning effort ("none" is 0: no thinking).
qint64 thinkingBudgetForEffort(const QString &effort);

// "/models/{upstream}:generateContent", or ":streamGenerateContent?alt=sse" when `stream`. A
// leading "models/" of the upstream name is not doubled; characters a path cannot hold are
// percent-encoded ('/' is kept).
QByteArray modelPath(const QString &upstreamModel, bool stream);

class GeminiDialect final : public UpstreamDialect {
public:
    Format format() const override { return Format::Gemini; }
    // Headers: content-type, accept (text/event-stream when streaming), x-goog-api-key (when the
    // credential is not empty).
    WireRequest request(const CanonicalRequest &request, const QString &upstreamModel,
                        const QString &credential) const override;
    // candidates[0] and usageMetadata; a problem when the body is not a JSON object, is an error
    // object, has no candidate (promptFeedback.blockReason named) or a candidate without parts.
    DecodedAnswer decodeAnswer(QByteArrayView body) const override;
    std::unique_ptr<StreamDecoder> streamDecoder() const override;
};

// The request body alone (what request() sends).
QJsonObject requestBody(const CanonicalRequest &request);

// A candidate's part as a canonical part: text, thought, functionCall (its id, or `fallbackId`
// when it has none); nullopt for kinds the canonical model has no place for, which the caller
// writes as `[unsupported part: KIND]`.
std::optional<ContentPart> partFromAnswer(const QJsonObject &part, const QString &fallbackId);
// The kind of an answer part (its first member that is not a modifier), for the text above.
QString partKind(const QJsonObject &part);

} // namespace sy::api::gemini
