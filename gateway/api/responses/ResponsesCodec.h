#pragma once
// ResponsesCodec: the OpenAI Responses client format (POST /v1/responses) on the canonical model.
// There is no Responses channel format: every Responses request is parsed to canonical and served
// through the canonical bridge by the channel's own dialect (an openai channel through Chat
// Completions). The answer is a Response object whose id is responseIdFor(options.requestId) —
// the id the service stores the answer under for previous_response_id. What is carried, dropped
// and refused: docs/formats-responses.md.
//
// Stateless: one instance serves every thread.
#include "api/Codec.h"

namespace sy::api::responses {

class ResponsesCodec final : public IngressCodec {
public:
    Format format() const override { return Format::OpenAiResponses; }
    std::variant<CanonicalRequest, ApiError> parse(const QJsonObject &body) const override;
    // {id: resp_…, object: response, created_at, status: completed | incomplete (max tokens,
    // content filter, with incomplete_details.reason), model: options.publicModel, output items
    // (reasoning, message, function_call, in the answer's order), output_text, usage (null when
    // the upstream gave none), and what it echoes of options.request}.
    QByteArray answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const override;
    std::unique_ptr<StreamWriter> streamWriter(const WriterOptions &options) const override;
    // OpenAI's error shape (SPEC §9).
    QByteArray errorBody(const ApiError &error) const override;
};

} // namespace sy::api::responses
