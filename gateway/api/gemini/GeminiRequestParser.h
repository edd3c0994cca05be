#pragma once
// GeminiRequestParser: a GenerateContentRequest body (POST /v1beta/models/{model}:generateContent)
// in canonical form, or a 400 whose `param` is the path of the field at fault in Gemini's own
// spelling (`contents[2].parts[0].functionResponse`). Members are read in camelCase or snake_case.
// The model and the stream flag come from the path: the caller sets them. Any thread.
#include "api/ApiError.h"
#include "api/Canonical.h"

#include <QJsonObject>
#include <variant>

namespace sy::api::gemini {

std::variant<CanonicalRequest, ApiError> parseRequest(const QJsonObject &body);

// JSON Schema of an OpenAPI-style Gemini `Schema` (`"type":"OBJECT"`): every `type` written in
// lower case, the rest kept.
QJsonObject jsonSchemaOf(const QJsonObject &geminiSchema);

} // namespace sy::api::gemini
