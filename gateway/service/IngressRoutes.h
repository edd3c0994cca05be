#pragma once
// IngressRoutes: what the service decides about a chat request from its route before routing —
// which client format a path speaks, and the canonical form a translation will need.
// Pure: no I/O.
#include "api/Canonical.h"
#include "http/HttpTypes.h"
#include "service/ChatRequest.h"
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <optional>

namespace sy::service {

// The client format of a gateway path (/v1/messages… → Anthropic, /v1/responses… → Responses,
// /v1beta/… → Gemini; everything else OpenAI Chat Completions).
api::Format formatForPath(QByteArrayView path);

// A Gemini model route: /v1beta/models/{model}:{method}. The model is everything between
// "models/" and the last ':' of the (percent-decoded) path, so ids with '/' work written plainly
// or as %2F, and a routing suffix (":nitro") stays part of the model.
struct GeminiTarget {
    QString model;
    QByteArray method;   // generateContent, streamGenerateContent, countTokens, …
};
std::optional<GeminiTarget> geminiTarget(QByteArrayView path);

// Fills what translators need for a Chat Completions request: the canonical form when a channel
// of its chain speaks another format (other formats have it from parseChatRequest), and for every
// format the headers a same-format channel gets too. A body the codec refuses: its 400.
std::optional<ErrorReply> prepareTranslation(ChatRequest &chat, const Workspace &workspace,
                                             const http::HttpRequest &request);

} // namespace sy::service
