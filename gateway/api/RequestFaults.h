#pragma once
// RequestFaults: how the request parsers (api/<format>/*RequestParser.cpp) stop at the first
// fault they meet. A parser throws a Fault inside itself only; its public function catches it and
// returns the ApiError as a value, so nothing is thrown past a parser. Pure; any thread.
#include "api/ApiError.h"

#include <QJsonValue>
#include <QString>

namespace sy::api::parsing {

struct Fault {
    ApiError error;
};

// A 400 naming `param`, worded "<param>: <what>" (the Anthropic and Gemini parsers).
[[noreturn]] inline void fail(const QString &param, const QString &what)
{
    throw Fault{ApiError{400, QStringLiteral("%1: %2").arg(param, what), {}, param}};
}

// A 400 with the parser's own message, coded "invalid_request" or "unsupported_content" (the
// OpenAI Chat Completions and Responses parsers).
[[noreturn]] inline void invalid(const QString &param, const QString &message)
{
    throw Fault{ApiError{400, message, "invalid_request", param}};
}

[[noreturn]] inline void unsupported(const QString &param, const QString &message)
{
    throw Fault{ApiError{400, message, "unsupported_content", param}};
}

// A member that is missing or null: both mean "not given".
inline bool absent(const QJsonValue &v)
{
    return v.isUndefined() || v.isNull();
}

} // namespace sy::api::parsing
