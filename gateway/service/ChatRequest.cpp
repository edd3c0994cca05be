#include "service/ChatRequest.h"

#include "api/Codec.h"

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

// The member holding the client's turns in each format.
QLatin1String turnsMember(api::Format format)
{
    switch (format) {
    case api::Format::OpenAiResponses: return QLatin1String("input");
    case api::Format::Gemini: return QLatin1String("contents");
    case api::Format::OpenAiChat:
    case api::Format::Anthropic: break;
    }
    return QLatin1String("messages");
}

bool isImagePart(const QJsonObject &part)
{
    const QString type = part.value(u"type").toString();
    if (type == QLatin1String("image_url") || type == QLatin1String("input_image") || type == QLatin1String("image"))
        return true;
    // Gemini: inline bytes or a file reference with an image media type.
    for (const char *member : {"inlineData", "inline_data", "fileData", "file_data"}) {
        const QJsonObject data = part.value(QLatin1String(member)).toObject();
        const QString mime = data.value(u"mimeType").toString(data.value(u"mime_type").toString());
        if (mime.startsWith(QLatin1String("image/")))
            return true;
    }
    return false;
}

Needs needsOf(const QJsonArray &turns)
{
    Needs needs;
    for (const QJsonValue &turn : turns) {
        const QJsonObject object = turn.toObject();
        const QJsonArray parts = object.value(u"content").isArray() ? object.value(u"content").toArray()
                                                                   : object.value(u"parts").toArray();
        for (const QJsonValue &part : parts) {
            if (isImagePart(part.toObject()))
                needs.vision = true;
        }
    }
    return needs;
}

std::optional<ErrorReply> checkTurns(const QJsonObject &body, api::Format format)
{
    const QJsonValue turns = body.value(turnsMember(format));
    switch (format) {
    case api::Format::OpenAiResponses:
        if ((turns.isString() && !turns.toString().isEmpty()) || (turns.isArray() && !turns.toArray().isEmpty()))
            return std::nullopt;
        return badRequest(QStringLiteral("'input' must be a non-empty string or a non-empty array of input items."), {}, "input");
    case api::Format::Gemini:
        if (turns.isArray() && !turns.toArray().isEmpty())
            return std::nullopt;
        return badRequest(QStringLiteral("'contents' must be a non-empty array."), {}, "contents");
    case api::Format::OpenAiChat:
    case api::Format::Anthropic:
        break;
    }
    if (turns.isArray() && !turns.toArray().isEmpty())
        return std::nullopt;
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
                                                       const IngressFacts &facts)
{
    const api::Format format = facts.format;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(rawBody, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return badRequest(QStringLiteral("Request body is not valid JSON: %1 at offset %2.")
                              .arg(parseError.errorString()).arg(parseError.offset), "invalid_json");
    if (!doc.isObject())
        return badRequest(QStringLiteral("Request body must be a JSON object."), "invalid_json");

    ChatRequest request;
    request.format = format;
    request.raw = rawBody;
    request.body = doc.object();
    const QJsonValue modelValue = request.body.value(u"model");
    const QJsonValue modelsValue = request.body.value(u"models");
    if (!modelsValue.isUndefined() && !modelsValue.isArray())
        return badRequest(QStringLiteral("'models' must be an array of model ids."), {}, "models");
    const QJsonArray models = modelsValue.toArray();

    if (!facts.pathModel.isEmpty())
        request.primaryModel = facts.pathModel;
    else if (modelValue.isString() && !modelValue.toString().isEmpty())
        request.primaryModel = modelValue.toString();
    else if (!modelValue.isUndefined() && !modelValue.isNull() && !modelValue.isString())
        return badRequest(QStringLiteral("'model' must be a string."), {}, "model");
    else if (!models.isEmpty() && models.first().isString())
        request.primaryModel = models.first().toString();
    else if (ws.config().defaultModel)
        request.primaryModel = *ws.config().defaultModel;
    else
        return badRequest(QStringLiteral("'model' is required."), {}, "model");

    if (std::optional<ErrorReply> invalid = checkTurns(request.body, format))
        return *invalid;

    const QJsonValue stream = request.body.value(u"stream");
    if (facts.pathStream)
        request.stream = *facts.pathStream;
    else if (!stream.isUndefined() && !stream.isNull() && !stream.isBool())
        return badRequest(QStringLiteral("'stream' must be true or false."), {}, "stream");
    else
        request.stream = stream.toBool(false);
    request.jsonArrayStream = request.stream && facts.jsonArrayStream;
    request.clientWantsUsage = request.body.value(u"stream_options").toObject().value(u"include_usage").toBool(false);
    request.user = request.body.value(u"user").toString();

    auto preferences = routing::parseProviderPreferences(request.body.value(u"provider"));
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
    const Needs needs = needsOf(request.turns());
    const config::VirtualModel *virtualPrimary = ws.findVirtualModel(primary);
    const QString realPrimary = virtualPrimary ? virtualPrimary->primary : primary;
    if (const config::Model *model = ws.findModel(realPrimary)) {
        if (const auto [code, reason] = incapability(*model, needs); !code.isEmpty())
            return badRequest(reason + QLatin1Char('.'), code, "model");
    }

    // Step 2: primary, `models` in order, virtual fallbacks, then the default model.
    ChainBuilder chain{ws, today, needs, request};
    chain.append(realPrimary);
    for (const QJsonValue &m : models) {
        // The primary may itself be models[0]; a virtual primary's fallbacks come after `models`.
        if (!m.isString() || m.toString() == primary)
            continue;
        // A fallback's routing suffix is dropped: sort and tiers are the request's, set by the primary.
        QString id = m.toString();
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
