#pragma once
// OpenAiDialect: the Chat Completions channel format on the canonical model (api/Codec.h). Used
// when a client of another format is served by an OpenAI-format channel: the canonical request is
// written as a /chat/completions body, the answer and each stream chunk come back as canonical
// (OpenAiStreamDecoder). What is carried and what is dropped: docs/formats-openai.md.
//
// Stateless: one instance serves every thread.
#include "api/Codec.h"

namespace sy::api::openai {

class OpenAiDialect final : public UpstreamDialect {
public:
    Format format() const override { return Format::OpenAiChat; }
    // POST {base}/chat/completions; `authorization: Bearer <credential>` unless it is empty.
    // Streams always ask for the final usage chunk (stream_options.include_usage): billing needs it.
    WireRequest request(const CanonicalRequest &request, const QString &upstreamModel,
                        const QString &credential) const override;
    // A chat.completion; a problem for a body that is not one (no choices, no message, an error).
    DecodedAnswer decodeAnswer(QByteArrayView body) const override;
    std::unique_ptr<StreamDecoder> streamDecoder() const override;
};

// The request body alone (what request() sends), for tests and logging.
QJsonObject chatRequestBody(const CanonicalRequest &request, const QString &upstreamModel);

} // namespace sy::api::openai
