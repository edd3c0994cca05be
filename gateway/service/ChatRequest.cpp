#include "service/ChatRequest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace sy::service {

namespace {

ErrorReply badRequest(const QString &message, const QByteArray &code = {}, const QString &param = {})
{
    return ErrorReply{400, message, code, param};
}

// Adds `id` (or what a virtual model expands to) to the chain when usable; the primary's
// problems are errors, a fallback's are skipped silently (SPEC §3.2).
void appendModel(const Workspace &ws, const QString &id, const QDate &today, QStringList &chain)
{
    if (const config::VirtualModel *vm = ws.findVirtualModel(id)) {
        appendModel(ws, vm->primary, today, chain);
        for (const QString &fallback : vm->fallbacks)
            appendModel(ws, fallback, today, chain);
        return;
    }
    if (ws.modelState(id, today) == ModelState::Available && !chain.contains(id))
        chain.append(id);
}

} // namespace

std::variant<ChatRequest, ErrorReply> parseChatRequest(const QByteArray &rawBody,
                                                       const Workspace &ws, const QDate &today)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(rawBody, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return badRequest(QStringLiteral("Request body is not valid JSON: %1 at offset %2.")
                              .arg(parseError.errorString()).arg(parseError.offset), "invalid_json");
    if (!doc.isObject())
        return badRequest(QStringLiteral("Request body must be a JSON object."), "invalid_json");

    ChatRequest request;
    request.body = doc.object();
    const QJsonValue modelValue = request.body.value("model");
    const QJsonValue modelsValue = request.body.value("models");
    if (!modelsValue.isUndefined() && !modelsValue.isArray())
        return badRequest(QStringLiteral("'models' must be an array of model ids."), {}, "models");
    const QJsonArray models = modelsValue.toArray();

    if (modelValue.isString() && !modelValue.toString().isEmpty())
        request.primaryModel = modelValue.toString();
    else if (!modelValue.isUndefined() && !modelValue.isNull())
        return badRequest(QStringLiteral("'model' must be a string."), {}, "model");
    else if (!models.isEmpty() && models.first().isString())
        request.primaryModel = models.first().toString();
    else if (ws.config().defaultModel)
        request.primaryModel = *ws.config().defaultModel;
    else
        return badRequest(QStringLiteral("'model' is required."), {}, "model");

    const QJsonValue messages = request.body.value("messages");
    if (!messages.isArray() || messages.toArray().isEmpty())
        return badRequest(QStringLiteral("'messages' must be a non-empty array."), {}, "messages");

    const QJsonValue stream = request.body.value("stream");
    if (!stream.isUndefined() && !stream.isNull() && !stream.isBool())
        return badRequest(QStringLiteral("'stream' must be true or false."), {}, "stream");
    request.stream = stream.toBool(false);
    request.clientWantsUsage = request.body.value("stream_options").toObject().value("include_usage").toBool(false);

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

    // Step 2: primary, `models` in order, virtual fallbacks, then the default model.
    appendModel(ws, primary, today, request.chain);
    for (const QJsonValue &m : models) {
        if (m.isString())
            appendModel(ws, m.toString(), today, request.chain);
    }
    if (ws.config().defaultModel)
        appendModel(ws, *ws.config().defaultModel, today, request.chain);
    if (request.chain.isEmpty())
        return ErrorReply{503, QStringLiteral("No model of the request is available."), "model_unavailable", "model", 60};
    return request;
}

} // namespace sy::service
