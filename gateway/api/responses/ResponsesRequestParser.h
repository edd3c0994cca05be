#pragma once
// ResponsesRequestParser: an OpenAI Responses request body (POST /v1/responses) in canonical form.
// There is no Responses channel format: every request is translated, so the parser is the whole
// ingress check — lenient where OpenAI's API is (null optional fields, a message item without
// `type`), a 400 naming the field where the answer would silently mean something else (file ids,
// built-in tools, unknown item or content types, a function output with no call). Pure, any
// thread. What is carried and what is dropped: docs/formats-responses.md.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QJsonObject>
#include <variant>

namespace sy::api::responses {

// Errors are 400s with `param` the path of the field at fault as OpenAI writes it
// ("input[3].content[0].type", "tools[1].type") and code "invalid_request" for a malformed
// field, "unsupported_content" for what this gateway cannot serve.
std::variant<CanonicalRequest, ApiError> parseResponsesRequest(const QJsonObject &body);

} // namespace sy::api::responses
