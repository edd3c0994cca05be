#pragma once
// ChatRequest: a client's Chat Completions body, checked and with its model chain resolved
// (SPEC §3 steps 1–2). Pure: no I/O, the date is passed in.
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <QJsonObject>
#include <QStringList>
#include <variant>

namespace sy::service {

struct ChatRequest {
    QJsonObject body;           // as the client sent it
    bool stream = false;
    bool clientWantsUsage = false;   // stream_options.include_usage
    QString primaryModel;
    QStringList chain;          // primary first, then the fallbacks that can be tried, no duplicates
};

// Parses and checks `rawBody` against `workspace` on `today`. Errors: 400 (malformed JSON, not an
// object, missing or unknown model, missing messages), 503 (primary disabled or past sunset).
std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody,
                                                       const Workspace &workspace, const QDate &today);

} // namespace sy::service
