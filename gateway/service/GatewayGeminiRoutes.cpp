// The Gemini routes of GatewayService: POST /v1beta/models/{model}:{method} and the model list.
#include "service/GatewayService.h"

#include "api/Codec.h"
#include "service/CountTokens.h"
#include "service/ErrorReply.h"
#include "service/IngressRoutes.h"
#include "service/ModelList.h"

#include <QJsonDocument>

namespace sy::service {

namespace {

constexpr api::Format kGemini = api::Format::Gemini;

} // namespace

void GatewayService::handleGeminiModelCall(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    const std::optional<GeminiTarget> target = geminiTarget(request.path);
    if (target && target->method == "generateContent")
        return handleChat({kGemini, target->model, false, false}, "gemini.generateContent", std::move(request), std::move(sink));
    if (target && target->method == "streamGenerateContent") {
        // Without alt=sse Gemini streams one JSON array; with it, server-sent events.
        const bool sse = request.query.queryItemValue(QStringLiteral("alt")) == QLatin1String("sse");
        return handleChat({kGemini, target->model, true, !sse}, "gemini.streamGenerateContent", std::move(request),
                          std::move(sink));
    }
    if (target && target->method == "countTokens")
        return handleGeminiCountTokens(target->model, std::move(request), std::move(sink));
    handleUnknownV1(std::move(request), std::move(sink));
}

void GatewayService::handleGeminiCountTokens(const QString &model, http::HttpRequest &&request,
                                             std::shared_ptr<http::ResponseSink> sink)
{
    std::optional<KeyedRequest> begun = beginKeyedRequest("gemini.countTokens", request, *sink, kGemini);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    record.requestedModel = model;
    const auto refuse = [&](const ErrorReply &reply) {
        sendErrorReply(*sink, requestId, reply, kGemini);
        finishRecord(std::move(record), reply.status, arrivedAt, reply.message);
    };
    if (!workspace->findModel(model) && !workspace->findVirtualModel(model))
        return refuse({404, QStringLiteral("The model '%1' does not exist.").arg(model), "model_not_found", "model"});
    if (!key->allowedModels.isEmpty() && !key->allowedModels.contains(model))
        return refuse({403, QStringLiteral("Request blocked by guardrail policy"), "guardrail_blocked", "model"});
    QJsonObject body = QJsonDocument::fromJson(request.body).object();
    // countTokens takes either `contents` or a whole `generateContentRequest`.
    if (body.value("generateContentRequest").isObject())
        body = body.value("generateContentRequest").toObject();
    const api::IngressCodec *codec = api::ingressCodec(kGemini);
    if (!codec)
        return refuse({501, QStringLiteral("This gateway does not serve the gemini format yet."), "unsupported_format"});
    auto parsed = codec->parse(body);
    if (auto *error = std::get_if<api::ApiError>(&parsed))
        return refuse(*error);
    const qint64 tokens = estimateInputTokens(std::get<api::CanonicalRequest>(parsed));
    sink->respond(200, {{"Content-Type", "application/json"}, {"x-request-id", requestId}, {"x-switchyard-token-count", "estimate"}},
                  QJsonDocument(QJsonObject{{"totalTokens", double(tokens)}}).toJson(QJsonDocument::Compact));
    finishRecord(std::move(record), 200, arrivedAt);
}

void GatewayService::handleGeminiModels(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    std::optional<KeyedRequest> begun = beginKeyedRequest("gemini.models", request, *sink, kGemini);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    const QDate today = m_clock.wallNow().date();
    constexpr QByteArrayView prefix = "/v1beta/models/";
    QJsonObject body;
    if (request.path.startsWith(prefix)) {
        const QString id = QString::fromUtf8(request.path.mid(prefix.size()));
        const std::optional<QJsonObject> model = geminiModel(*workspace, *key, today, id);
        if (!model) {
            const ErrorReply reply{404, QStringLiteral("The model '%1' does not exist.").arg(id), "model_not_found", "model"};
            sendErrorReply(*sink, requestId, reply, kGemini);
            return finishRecord(std::move(record), reply.status, arrivedAt, reply.message);
        }
        body = *model;
    } else {
        body = modelList(*workspace, *key, today, ModelListShape::Gemini);
    }
    sink->respond(200, {{"Content-Type", "application/json"}, {"x-request-id", requestId}},
                  QJsonDocument(body).toJson(QJsonDocument::Compact));
    finishRecord(std::move(record), 200, arrivedAt);
}

} // namespace sy::service
