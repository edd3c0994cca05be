#pragma once
// EmbeddingsRequest: a client's OpenAI `POST /v1/embeddings` body, checked field by field. The
// texts are kept for channels that need them (Gemini) and for the estimate; token arrays are
// only counted (only OpenAI-format channels take them). Pure: no I/O; any thread.
#include "api/ApiError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>
#include <optional>
#include <variant>

namespace sy::api::embeddings {

struct EmbeddingsRequest {
    QByteArray raw;                  // the body as the client sent it
    QJsonObject body;                // the same, parsed
    QString model;                   // `model` as given
    QStringList texts;               // one per input when the input is text; empty for token arrays
    bool tokenInput = false;         // `input` is a token array or a list of them
    int inputCount = 0;              // inputs (texts or token arrays)
    qint64 inputTokens = 0;          // tokens of the token arrays (token input only)
    qint64 inputCharacters = 0;      // characters of the texts (text input only)
    std::optional<int> dimensions;   // `dimensions`, a positive integer
    bool base64 = false;             // `encoding_format: "base64"`
    QString user;
};

// `raw` checked as OpenAI checks it: a JSON object; `model` a non-empty string; `input` a
// non-empty string, a non-empty list of non-empty strings, a non-empty token array (integers ≥ 0)
// or a non-empty list of them; `dimensions` a positive integer; `encoding_format` "float" or
// "base64"; `user` a string. Refusals: 400 `invalid_request_error` naming the field in `param`.
// Other members are not looked at (they travel on to OpenAI-format channels).
std::variant<EmbeddingsRequest, ApiError> parseEmbeddingsRequest(const QByteArray &raw);

} // namespace sy::api::embeddings
