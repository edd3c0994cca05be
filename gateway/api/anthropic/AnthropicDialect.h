#pragma once
// AnthropicDialect: the Anthropic Messages channel format — the canonical request as a POST
// {base}/messages, and the channel's answer and stream events back to canonical.
// Stateless; any thread. What is translated, dropped and refused: docs/formats-anthropic.md.
#include "api/Codec.h"

namespace sy::api::anthropic {

// max_tokens sent when the client gave none (Anthropic requires it).
inline constexpr qint64 kDefaultMaxTokens = 4096;

// Thinking budgets written for an OpenAI-style reasoning effort.
qint64 budgetForEffort(const QString &effort);

class AnthropicDialect final : public UpstreamDialect {
public:
    Format format() const override { return Format::Anthropic; }
    // Headers: content-type, accept (text/event-stream when streaming), x-api-key (when the
    // credential is not empty), anthropic-version.
    WireRequest request(const CanonicalRequest &request, const QString &upstreamModel,
                        const QString &credential) const override;
    // A problem when the body is not a JSON object, is an error object, or has no content blocks.
    DecodedAnswer decodeAnswer(QByteArrayView body) const override;
    std::unique_ptr<StreamDecoder> streamDecoder() const override;
};

// The request body alone (what request() sends).
QJsonObject requestBody(const CanonicalRequest &request, const QString &upstreamModel);

} // namespace sy::api::anthropic
