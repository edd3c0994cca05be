#include "service/ChatRequest.h"

#include "api/Codec.h"
#include "service/BodyFacts.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace sy::service {

namespace {

ErrorReply badRequest(const QString &message, const QByteArray &code = {}, const QString &param = {})
{
    return ErrorReply{400, message, code, param};
}

// What the request needs from a model beyond plain chat.
struct Needs {
    bool vision = false;
};

// The error for a body whose turns member is missing or empty (BodyFacts::turnsUsable false).
ErrorReply badTurns(api::Format format)
{
    switch (format) {
    case api::Format::OpenAiResponses:
        return badRequest(QStringLiteral("'input' must be a non-empty string or a non-empty array of input items."), {}, "input");
    case api::Format::Gemini:
        return badRequest(QStringLiteral("'contents' must be a non-empty array."), {}, "contents");
    case api::Format::OpenAiChat:
    case api::Format::Anthropic:
        break;
    }
    return badRequest(QStringLiteral("'messages' must be a non-empty array."), {}, "messages");
}

// The canonical form of a request in a format other than Chat Completions (its codec validates
// the body), with the routing facts the body may not hold.
std::optional<ErrorReply> parseCanonical(ChatRequest &request)
{
    const api::IngressCodec *codec = api::ingressCodec(request.format);
    if (!codec)
        return ErrorReply{501, QStringLiteral("This gateway does not serve the %1 format yet.").arg(QLatin1String(api::formatName(request.format))), "unsupported_format"};
    auto parsed = codec->parse(request.body);
    if (auto *error = std::get_if<api::ApiError>(&parsed))
        return *error;
    api::CanonicalRequest canonical = std::get<api::CanonicalRequest>(std::move(parsed));
    canonical.model = request.primaryModel;
    canonical.stream = request.stream;
    request.canonical = std::make_shared<const api::CanonicalRequest>(std::move(canonical));
    return std::nullopt;
}

// Why `model` cannot serve a chat request with `needs`, as {code, reason}; empty when it can.
QPair<QByteArray, QString> incapability(const config::Model &model, const Needs &needs)
{
    if (!model.capabilities.contains(QLatin1String("chat")))
        return {"unsupported_model_api", QStringLiteral("model '%1' does not serve chat completions").arg(model.id)};
    if (needs.vision && !model.capabilities.contains(QLatin1String("vision")))
        return {"unsupported_model_input", QStringLiteral("model '%1' does not accept image input").arg(model.id)};
    return {};
}

struct ChainBuilder {
    const Workspace &ws;
    const QDate &today;
    Needs needs;
    ChatRequest &request;

    // Adds `id` (or what a virtual model expands to) to the chain when usable; unknown, disabled
    // and duplicate fallbacks are skipped silently (SPEC §3.2), incapable ones with a record (§3.3).
    void append(const QString &id)
    {
        if (const config::VirtualModel *vm = ws.findVirtualModel(id)) {
            append(vm->primary);
            for (const QString &fallback : vm->fallbacks)
                append(fallback);
            return;
        }
        if (ws.modelState(id, today) != ModelState::Available || request.chain.contains(id))
            return;
        if (const auto [code, reason] = incapability(*ws.findModel(id), needs); !code.isEmpty()) {
            request.incapableFallbacks.append({id, reason});
            return;
        }
        request.chain.append(id);
    }
};

// Strips a routing suffix from `id` and applies it (SPEC §3.5: :nitro, :floor).
QString applySuffix(const QString &id, ChatRequest &request)
{
    if (id.endsWith(QLatin1String(":nitro"))) {
        request.admitPriority = true;
        if (!request.preferences.sort)
            request.preferences.sort = routing::SortSpec{routing::SortBy::Throughput};
        return id.chopped(6);
    }
    if (id.endsWith(QLatin1String(":floor"))) {
        request.admitFlex = true;
        if (!request.preferences.sort)
            request.preferences.sort = routing::SortSpec{routing::SortBy::Price};
        return id.chopped(6);
    }
    return id;
}

} // namespace

QJsonArray ChatRequest::turns() const
{
    return body.value(turnsMember(format)).toArray();
}

std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody,
                                                       const Workspace &ws, const QDate &today,
                                                       const IngressFacts &ingress)
{
    const api::Format format = ingress.format;
    ChatRequest request;
    request.format = format;
    request.raw = rawBody;
    // Chat Completions bodies are read from their bytes; the QJsonObject is built only if a
    // later step asks for it (a translation, the codecs, content logging).
    std::optional<BodyFacts> scanned = format == api::Format::OpenAiChat ? scanChatFacts(rawBody) : std::nullopt;
    if (scanned) {
        request.body = api::JsonBody::fromRaw(rawBody);
    } else {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(rawBody, &parseError);
        if (parseError.error != QJsonParseError::NoError)
            return badRequest(QStringLiteral("Request body is not valid JSON: %1 at offset %2.")
                                  .arg(parseError.errorString()).arg(parseError.offset), "invalid_json");
        if (!doc.isObject())
            return badRequest(QStringLiteral("Request body must be a JSON object."), "invalid_json");
        request.body = doc.object();
        scanned = factsOf(request.body, format);
    }
    const BodyFacts &facts = *scanned;

    if (facts.models != BodyFacts::Kind::Absent && facts.models != BodyFacts::Kind::Wanted)
        return badRequest(QStringLiteral("'models' must be an array of model ids."), {}, "models");

    if (!ingress.pathModel.isEmpty())
        request.primaryModel = ingress.pathModel;
    else if (facts.model == BodyFacts::Kind::Wanted && !facts.modelText.isEmpty())
        request.primaryModel = facts.modelText;
    else if (facts.model == BodyFacts::Kind::Other)
        return badRequest(QStringLiteral("'model' must be a string."), {}, "model");
    else if (!facts.modelsItems.empty() && facts.modelsItems.front())
        request.primaryModel = *facts.modelsItems.front();
    else if (ws.config().defaultModel)
        request.primaryModel = *ws.config().defaultModel;
    else
        return badRequest(QStringLiteral("'model' is required."), {}, "model");

    if (!facts.turnsUsable)
        return badTurns(format);

    if (ingress.pathStream)
        request.stream = *ingress.pathStream;
    else if (facts.stream == BodyFacts::Kind::Other)
        return badRequest(QStringLiteral("'stream' must be true or false."), {}, "stream");
    else
        request.stream = facts.stream == BodyFacts::Kind::Wanted && facts.streamValue;
    request.jsonArrayStream = request.stream && ingress.jsonArrayStream;
    request.clientWantsUsage = facts.includeUsage;
    request.user = facts.user;
    request.promptCharacters = facts.promptCharacters ? *facts.promptCharacters : promptCharactersOf(request.body);
    request.maxOutputTokens = facts.maxOutputTokens;
    request.turnsDigest = facts.turnsDigest;

    auto preferences = routing::parseProviderPreferences(facts.hasProvider ? request.body.value(u"provider")
                                                                           : QJsonValue(QJsonValue::Undefined));
    if (const auto *error = std::get_if<routing::PreferencesError>(&preferences))
        return badRequest(error->message, "invalid_provider_preferences", error->param);
    request.preferences = std::get<routing::ProviderPreferences>(std::move(preferences));
    // Only provider.require_parameters reads them (a set of the body's keys: a hash per key).
    if (request.preferences.requireParameters) {
        for (auto it = request.body.constBegin(); it != request.body.constEnd(); ++it)
            request.parameters.insert(it.key());
    }
    request.primaryModel = applySuffix(request.primaryModel, request);

    // Step 1: the primary decides the request's fate.
    const QString &primary = request.primaryModel;
    if (!ws.findVirtualModel(primary)) {
        switch (ws.modelState(primary, today)) {
        case ModelState::Unknown:
            return badRequest(QStringLiteral("The model '%1' does not exist.").arg(primary), "model_not_found", "model");
        case ModelState::Disabled:
            return ErrorReply{503, QStringLiteral("The model '%1' is disabled.").arg(primary), "model_disabled", "model", 60};
        case ModelState::PastSunset:
            return ErrorReply{503, QStringLiteral("The model '%1' was retired on %2.")
                                       .arg(primary, ws.findModel(primary)->deprecated->toString(Qt::ISODate)),
                              "model_retired", "model", 3600};
        case ModelState::Available:
            break;
        }
    }

    // Step 3 for the primary: a model that cannot serve the request is the client's error.
    const Needs needs{facts.needsVision};
    const config::VirtualModel *virtualPrimary = ws.findVirtualModel(primary);
    const QString realPrimary = virtualPrimary ? virtualPrimary->primary : primary;
    if (const config::Model *model = ws.findModel(realPrimary)) {
        if (const auto [code, reason] = incapability(*model, needs); !code.isEmpty())
            return badRequest(reason + QLatin1Char('.'), code, "model");
    }

    // Step 2: primary, `models` in order, virtual fallbacks, then the default model.
    ChainBuilder chain{ws, today, needs, request};
    chain.append(realPrimary);
    for (const std::optional<QString> &m : facts.modelsItems) {
        // The primary may itself be models[0]; a virtual primary's fallbacks come after `models`.
        if (!m || *m == primary)
            continue;
        // A fallback's routing suffix is dropped: sort and tiers are the request's, set by the primary.
        QString id = *m;
        if (id.endsWith(QLatin1String(":nitro")) || id.endsWith(QLatin1String(":floor")))
            id.chop(6);
        chain.append(id);
    }
    if (virtualPrimary) {
        for (const QString &fallback : virtualPrimary->fallbacks)
            chain.append(fallback);
    }
    if (ws.config().defaultModel)
        chain.append(*ws.config().defaultModel);
    if (request.chain.isEmpty())
        return ErrorReply{503, QStringLiteral("No model of the request is available."), "model_unavailable", "model", 60};
    if (format != api::Format::OpenAiChat) {
        if (std::optional<ErrorReply> invalid = parseCanonical(request))
            return *invalid;
    }
    return request;
}

} // namespace sy::service
