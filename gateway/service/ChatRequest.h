#pragma once
// ChatRequest: a client's chat request (Chat Completions or Anthropic Messages), checked and with
// its model chain resolved (SPEC §3 steps 1–2). The routing fields (`model`, `models`,
// `provider`, `stream`, `user`) are read the same way in every format. Pure: no I/O, the date is
// passed in.
#include "api/Translator.h"
#include "routing/ProviderPreferences.h"
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <QJsonObject>
#include <QSet>
#include <QStringList>
#include <variant>

namespace sy::service {

struct ChatRequest {
    api::Format format = api::Format::OpenAiChat;   // the client's wire format
    QByteArray raw;             // the body's bytes as the client sent them
    QJsonObject body;           // the same, parsed
    bool stream = false;
    bool clientWantsUsage = false;   // stream_options.include_usage
    QString primaryModel;
    QStringList chain;          // primary first, then the fallbacks that can be tried, no duplicates
    // Fallbacks left out because they cannot serve this request (SPEC §3.3), with the reason.
    QList<QPair<QString, QString>> incapableFallbacks;

    routing::ProviderPreferences preferences;   // the `provider` object (and :nitro / :floor)
    bool admitPriority = false;                 // :nitro
    bool admitFlex = false;                     // :floor
    QSet<QString> parameters;                   // top-level body fields, for require_parameters
    QString user;                               // the `user` field, a conversation hint
    // The canonical form, when the request may be translated (set by the service).
    std::shared_ptr<const api::CanonicalRequest> canonical;
    api::WireHeaders forwardHeaders;            // client headers a same-format channel gets too

    // What a translator needs of the request.
    api::ClientRequest clientRequest() const
    {
        return {format, raw, body, stream, clientWantsUsage, canonical, forwardHeaders};
    }
};

// Parses and checks `rawBody` against `workspace` on `today`. Errors: 400 (malformed JSON, not an
// object, missing or unknown model, missing messages, a bad `provider` object, a primary that
// cannot serve the request: unsupported_model_api / unsupported_model_input), 503 (primary
// disabled or past sunset). A `:nitro` / `:floor` suffix on the model is stripped and applied.
std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody,
                                                       const Workspace &workspace, const QDate &today,
                                                       api::Format format = api::Format::OpenAiChat);

} // namespace sy::service
