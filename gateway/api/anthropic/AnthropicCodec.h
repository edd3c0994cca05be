#pragma once
// AnthropicCodec: the Anthropic Messages client format (POST /v1/messages) — a request body to
// canonical, and a canonical answer, stream and error back in the shapes Anthropic's SDKs read.
// Stateless; any thread. What is translated, dropped and refused: docs/formats-anthropic.md.
#include "api/Codec.h"

namespace sy::api::anthropic {

class AnthropicCodec final : public IngressCodec {
public:
    Format format() const override { return Format::Anthropic; }
    std::variant<CanonicalRequest, ApiError> parse(const QJsonObject &body) const override;
    // {id, type: message, role, model: options.publicModel, content, stop_reason, stop_sequence, usage}.
    QByteArray answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const override;
    std::unique_ptr<StreamWriter> streamWriter(const WriterOptions &options) const override;
    QByteArray errorBody(const ApiError &error) const override;
};

// `msg_…`: the answer's id when it is one already, else msg_ + the answer id (or the request id
// when the answer has none).
QString messageId(const QString &answerId, const QByteArray &requestId);

} // namespace sy::api::anthropic
