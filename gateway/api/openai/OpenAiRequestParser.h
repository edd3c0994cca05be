#pragma once
// OpenAiRequestParser: a Chat Completions request body in canonical form, for when it must be
// translated to another channel format (a same-format request passes through unparsed). Lenient
// where OpenAI's API is (null content beside tool_calls, null optional fields), a 400 naming the
// field where a translation would silently lose meaning (audio and file parts, unknown part
// types, n > 1, audio output). Pure, any thread.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QJsonObject>
#include <variant>

namespace sy::api::openai {

// Errors are 400s with `param` the path of the field at fault (e.g. "messages.2.content.0.type")
// and code "invalid_request" for a malformed field or "unsupported_content" for what the
// gateway cannot carry to another format.
std::variant<CanonicalRequest, ApiError> parseChatRequest(const QJsonObject &body);

} // namespace sy::api::openai
