#pragma once
// EmbeddingsCall: a `POST /v1/embeddings` request checked against the workspace (SPEC §3 for
// embeddings): one model and never another — `models`, a virtual model's fallbacks and the
// default model do not apply; a virtual model stands for its primary. `provider` preferences
// order and filter the model's channels as on chat routes. Pure: no I/O, the date is passed in.
#include "api/embeddings/EmbeddingsRequest.h"
#include "billing/Money.h"
#include "routing/ChannelSelector.h"
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <QDate>
#include <variant>

namespace sy::service {

struct EmbeddingsCall {
    api::embeddings::EmbeddingsRequest request;
    QString model;                           // the model that serves: `model`, or a virtual model's primary
    routing::ProviderPreferences preferences;
    QSet<QString> parameters;                // top-level body fields, for provider.require_parameters
};

// Errors: every 400 of parseEmbeddingsRequest(); 400 `model_not_found` (unknown model),
// 400 `unsupported_model_api` (a model without the `embeddings` capability), 400 for a bad
// `provider` object; 503 for a disabled model or one past its sunset date.
std::variant<EmbeddingsCall, ErrorReply> parseEmbeddingsCall(const QByteArray &rawBody, const Workspace &workspace,
                                                             const QDate &today);

// The channels to plan from: the one model, the request's preferences.
routing::SelectionRequest selectionFor(const EmbeddingsCall &call);

// What admission reserves: the input's estimated tokens at the highest prompt price of the
// model's channels (embeddings have no output side); nothing for a free model.
billing::Nanos estimateEmbeddingsCharge(const Workspace &workspace, const EmbeddingsCall &call);

} // namespace sy::service
