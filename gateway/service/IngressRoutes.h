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

// The client format of a gateway path (/v1/messages… → Anthropic; everything else OpenAI).
api::Format formatForPath(QByteArrayView path);

// Fills what translators need: the canonical request — always for a format whose codec validates
// the body (Anthropic), and for an OpenAI request when a channel of its chain speaks another
// format — and the headers a same-format channel gets too. A body the codec refuses: its 400.
std::optional<ErrorReply> prepareTranslation(ChatRequest &chat, const Workspace &workspace,
                                             const http::HttpRequest &request);

} // namespace sy::service
