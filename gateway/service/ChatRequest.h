#pragma once
// ChatRequest: a client's chat request (any ingress format), checked and with
// its model chain resolved (SPEC §3 steps 1–2). The routing fields (`model`, `models`,
// `provider`, `stream`, `user`) are read the same way in every format. Pure: no I/O, the date is
// passed in.
#include "api/JsonBody.h"
#include "api/Translator.h"
#include "routing/ProviderPreferences.h"
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <QJsonArray>
#include <QJsonObject>
#include <functional>
#include <optional>
#include <QSet>
#include <QStringList>
#include <variant>

namespace sy::service {

struct ChatRequest {
    api::Format format = api::Format::OpenAiChat;   // the client's wire format
    QByteArray raw;             // the body's bytes as the client sent them
    api::JsonBody body;         // the same, parsed (for Chat Completions: when first asked for)
    bool stream = false;
    bool clientWantsUsage = false;   // stream_options.include_usage
    bool jsonArrayStream = false;    // Gemini without alt=sse (api::WriterOptions::jsonArrayStream)
    QString primaryModel;
    QStringList chain;          // primary first, then the fallbacks that can be tried, no duplicates
    // Fallbacks left out because they cannot serve this request (SPEC §3.3), with the reason.
    QList<QPair<QString, QString>> incapableFallbacks;

    routing::ProviderPreferences preferences;   // the `provider` object (and :nitro / :floor)
    bool admitPriority = false;                 // :nitro
    bool admitFlex = false;                     // :floor
    QSet<QString> parameters;                   // top-level body fields; filled only with require_parameters
    QString user;                               // the `user` field, a conversation hint
    // What the cost estimate is made of (ExchangeMoney::estimateCharge), read with the body.
    qint64 promptCharacters = 0;
    std::optional<qint64> maxOutputTokens;
    // routing::leadingTurnsDigest() of the turns; empty when `user` is set (the key uses that).
    QByteArray turnsDigest;
    // The canonical form, when the request may be translated (set by the service).
    std::shared_ptr<const api::CanonicalRequest> canonical;
    api::WireHeaders forwardHeaders;            // client headers a same-format channel gets too
    // What to do with the whole answer once it ended cleanly (the Responses route stores it for
    // previous_response_id); empty for most requests. Gateway thread.
    std::function<void(const api::CanonicalAnswer &)> onAnswer;

    // The client's turns as they came (messages, Responses `input` items, Gemini `contents`): what
    // a conversation is recognised by.
    QJsonArray turns() const;

    // What a translator needs of the request.
    api::ClientRequest clientRequest() const
    {
        return {format, raw, body, stream, clientWantsUsage, canonical, forwardHeaders};
    }
};

// What the route says about a request beyond its body.
struct IngressFacts {
    api::Format format = api::Format::OpenAiChat;
    QString pathModel;                 // Gemini: the model named in the path (its body has none)
    std::optional<bool> pathStream;    // Gemini: :streamGenerateContent (the body has no `stream`)
    bool jsonArrayStream = false;      // Gemini :streamGenerateContent without alt=sse
};

// Parses and checks `rawBody` against `workspace` on `today`. Errors: 400 (malformed JSON, not an
// object, missing or unknown model, missing messages, a bad `provider` object, a primary that
// cannot serve the request: unsupported_model_api / unsupported_model_input), 503 (primary
// disabled or past sunset). A `:nitro` / `:floor` suffix on the model is stripped and applied.
// Formats other than Chat Completions are validated through their codec, which also gives the
// canonical form (`canonical` set); its 400 names the field.
std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody,
                                                       const Workspace &workspace, const QDate &today,
                                                       const IngressFacts &facts);
inline std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody, const Workspace &workspace,
                                                              const QDate &today,
                                                              api::Format format = api::Format::OpenAiChat)
{
    return parseChatRequest(rawBody, workspace, today, IngressFacts{format, {}, std::nullopt, false});
}

} // namespace sy::service
