#pragma once
// AnthropicRequestParser: a Messages request body (POST /v1/messages) in canonical form, or a 400
// whose `param` is the path of the field at fault (e.g. `messages.1.content.0.type`), the way
// Anthropic's own validation names it. Any thread.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QJsonObject>
#include <variant>

namespace sy::api::anthropic {

std::variant<CanonicalRequest, ApiError> parseRequest(const QJsonObject &body);

} // namespace sy::api::anthropic
