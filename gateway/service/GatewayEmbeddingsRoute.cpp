// GatewayService, the embeddings route: POST /v1/embeddings in OpenAI's format. The same start
// as the chat routes (key, breaker, guardrail, admission with the key's limits, balance and
// spend), then an EmbeddingsExchange over the one model's channels.
#include "service/GatewayService.h"

#include "service/EmbeddingsCall.h"
#include "service/EmbeddingsExchange.h"
#include "service/ErrorReply.h"

namespace sy::service {

void GatewayService::handleEmbeddings(http::HttpRequest &&request, std::shared_ptr<http::ResponseSink> sink)
{
    constexpr api::Format format = api::Format::OpenAiChat;
    std::optional<KeyedRequest> begun = beginKeyedRequest("embeddings", request, *sink, format);
    if (!begun)
        return;
    auto &[arrivedAt, requestId, record, workspace, key] = *begun;
    record.authMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - arrivedAt).count();
    const auto refuse = [&](const ErrorReply &reply) {
        sendErrorReply(*sink, requestId, reply, format);
        finishRecord(std::move(record), reply.status, arrivedAt, reply.message);
    };
    if (const std::optional<ErrorReply> refusal = breakerRefusal(*m_state, key->name))
        return refuse(*refusal);

    auto parsed = parseEmbeddingsCall(request.body, *workspace, m_clock.wallNow().date());
    if (auto *error = std::get_if<ErrorReply>(&parsed))
        return refuse(*error);
    EmbeddingsCall call = std::get<EmbeddingsCall>(std::move(parsed));
    record.requestedModel = call.request.model;
    if (!key->allowedModels.isEmpty() && !key->allowedModels.contains(call.model))
        return refuse({403, QStringLiteral("Request blocked by guardrail policy"), "guardrail_blocked", "model"});

    ExchangeContext context;
    context.requestId = requestId;
    context.record = std::move(record);
    context.arrivedAt = arrivedAt;
    context.simulateFail = parseSimulateFail(request.header("x-simulate-fail"));

    AdmissionRequest admission;
    admission.token = ++m_admissionTokens;
    admission.key = *key;
    admission.primaryModel = call.model;
    if (const config::Model *model = workspace->findModel(call.model))
        admission.modelRequestsPerMinute = model->rpmPerKey;
    admission.estimate = estimateEmbeddingsCharge(*workspace, call);
    admission.keyWait = std::chrono::seconds(workspace->config().settings.keyLimitWaitS);

    // The client may leave while admission waits for the key's limits: the request ends there.
    const quint64 token = admission.token;
    auto pending = std::make_shared<bool>(true);
    sink->onClientGone([this, token, pending, goneRecord = context.record, arrivedAt]() mutable {
        if (!std::exchange(*pending, false))
            return;
        m_admission->cancel(token);
        --m_counters.inFlight;
        finishRecord(std::move(goneRecord), 499, arrivedAt,
                     QStringLiteral("client closed the connection while waiting for the key's limits"));
    });
    ++m_counters.inFlight;
    m_admission->admit(std::move(admission),
        [this, pending, context = std::move(context), workspace, call = std::move(call), sink](
            std::variant<AdmissionTicket, ErrorReply> result) mutable {
            if (!std::exchange(*pending, false))
                return;
            if (auto *refusal = std::get_if<ErrorReply>(&result)) {
                --m_counters.inFlight;
                sendErrorReply(*sink, context.requestId, *refusal, format);
                return finishRecord(std::move(context.record), refusal->status, context.arrivedAt, refusal->message,
                                    countsAgainstKey(*refusal));
            }
            AdmissionTicket ticket = std::get<AdmissionTicket>(std::move(result));
            context.record.queueMs = ticket.waitedMs;
            auto *exchange = new EmbeddingsExchange(std::move(context), std::move(workspace), std::move(call),
                                                    std::move(ticket), std::move(sink), *m_injector, *m_state, m_clock, this);
            connect(exchange, &EmbeddingsExchange::finished, this, [this](const RequestRecord &finished) {
                --m_counters.inFlight;
                recordFinished(finished);
            });
            exchange->start();
        });
}

} // namespace sy::service
