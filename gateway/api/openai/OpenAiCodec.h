#pragma once
// OpenAiCodec: the Chat Completions client format on the canonical model (api/Codec.h). Used when
// an OpenAI client is served by a channel of another format: the request is parsed to canonical
// (OpenAiRequestParser), the answer, stream and gateway errors are written back as
// chat.completion, chat.completion.chunk events and OpenAI error bodies. What is carried and what
// is dropped: docs/formats-openai.md.
//
// Stateless: one instance serves every thread.
#include "api/Codec.h"

namespace sy::api::openai {

class OpenAiCodec final : public IngressCodec {
public:
    Format format() const override { return Format::OpenAiChat; }
    std::variant<CanonicalRequest, ApiError> parse(const QJsonObject &body) const override;
    // chat.completion: id "chatcmpl-…", model = options.publicModel, one choice whose message has
    // the text as `content` (null with only tool calls), `tool_calls`, `reasoning_content` when
    // the answer thought; usage when the upstream gave it (prompt_tokens includes cache tokens).
    QByteArray answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const override;
    std::unique_ptr<StreamWriter> streamWriter(const WriterOptions &options) const override;
    QByteArray errorBody(const ApiError &error) const override;
};

} // namespace sy::api::openai
