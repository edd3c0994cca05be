#include "service/EmbeddingsCall.h"

#include "api/embeddings/EmbeddingsDialect.h"
#include "billing/Pricing.h"

namespace sy::service {

std::variant<EmbeddingsCall, ErrorReply> parseEmbeddingsCall(const QByteArray &rawBody, const Workspace &workspace,
                                                             const QDate &today)
{
    auto parsed = api::embeddings::parseEmbeddingsRequest(rawBody);
    if (auto *error = std::get_if<api::ApiError>(&parsed))
        return *error;
    EmbeddingsCall call;
    call.request = std::get<api::embeddings::EmbeddingsRequest>(std::move(parsed));
    const QString &requested = call.request.model;
    const config::VirtualModel *virtualModel = workspace.findVirtualModel(requested);
    call.model = virtualModel ? virtualModel->primary : requested;

    switch (workspace.modelState(call.model, today)) {
    case ModelState::Unknown:
        return ErrorReply{400, QStringLiteral("The model '%1' does not exist.").arg(requested), "model_not_found", "model"};
    case ModelState::Disabled:
        return ErrorReply{503, QStringLiteral("The model '%1' is disabled.").arg(call.model), "model_disabled", "model", 60};
    case ModelState::PastSunset:
        return ErrorReply{503, QStringLiteral("The model '%1' was retired on %2.")
                                   .arg(call.model, workspace.findModel(call.model)->deprecated->toString(Qt::ISODate)),
                          "model_retired", "model", 3600};
    case ModelState::Available:
        break;
    }
    if (!workspace.findModel(call.model)->capabilities.contains(QLatin1String("embeddings")))
        return ErrorReply{400, QStringLiteral("model '%1' does not serve embeddings.").arg(call.model),
                          "unsupported_model_api", "model"};

    auto preferences = routing::parseProviderPreferences(call.request.body.value("provider"));
    if (const auto *error = std::get_if<routing::PreferencesError>(&preferences))
        return ErrorReply{400, error->message, "invalid_provider_preferences", error->param};
    call.preferences = std::get<routing::ProviderPreferences>(std::move(preferences));
    for (auto it = call.request.body.constBegin(); it != call.request.body.constEnd(); ++it)
        call.parameters.insert(it.key());
    return call;
}

routing::SelectionRequest selectionFor(const EmbeddingsCall &call)
{
    routing::SelectionRequest selection;
    selection.chain = {call.model};
    selection.preferences = call.preferences;
    selection.requestParameters = call.parameters;
    return selection;
}

billing::Nanos estimateEmbeddingsCharge(const Workspace &workspace, const EmbeddingsCall &call)
{
    if (const config::Model *model = workspace.findModel(call.model); model && model->free)
        return 0;
    double highestPrompt = 0;
    for (const ChannelRoute &route : workspace.routesFor(call.model))
        highestPrompt = std::max(highestPrompt, route.model->price.prompt);
    return billing::chargeForTokens(api::embeddings::estimatedPromptTokens(call.request), highestPrompt);
}

} // namespace sy::service
