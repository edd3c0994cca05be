#include "service/EmbeddingsExchange.h"

namespace sy::service {

EmbeddingsExchange::EmbeddingsExchange(ExchangeContext context, WorkspacePtr workspace, EmbeddingsCall call,
                                       AdmissionTicket ticket, std::shared_ptr<http::ResponseSink> sink,
                                       OutageInjector &upstream, GatewayState &state, const Clock &clock, QObject *parent)
    : AttemptLoop(std::move(context), std::move(workspace), {QStringList{call.model}, false, api::Format::OpenAiChat},
                  std::move(ticket), std::move(sink), upstream, state, clock, parent)
    , m_call(std::move(call))
{
}

void EmbeddingsExchange::start()
{
    setPlan(planAttempts(*m_workspace, selectionFor(m_call), m_state, m_context.simulateFail));
    skipIncapableChannels();
    run();
}

void EmbeddingsExchange::skipIncapableChannels()
{
    // Passed over before anything is tried, so a capacity wait never queues at them either; one
    // trace entry per channel (not per credential).
    QSet<QString> traced;
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &attempt = m_plan.attempts[i];
        const QString &format = attempt.channel->format;
        const std::optional<api::Format> channelFormat = api::channelFormatFromName(format);
        const api::embeddings::EmbeddingsDialect *dialect = channelFormat ? api::embeddings::embeddingsDialect(*channelFormat) : nullptr;
        const QString reason = dialect ? dialect->cannotServe(m_call.request)
                                       : QStringLiteral("%1 channels serve no embeddings").arg(format);
        if (reason.isEmpty())
            continue;
        m_used[i] = true;
        if (!traced.contains(attempt.channel->id)) {
            traced.insert(attempt.channel->id);
            m_trace.add({m_workspace->channelLabel(*attempt.channel), attempt.modelId, QStringLiteral("skipped"), std::nullopt, reason});
        }
    }
}

void EmbeddingsExchange::sendAttempt(const PlannedAttempt &attempt)
{
    // skipIncapableChannels() left only channels whose format has a dialect.
    m_dialect = api::embeddings::embeddingsDialect(*api::channelFormatFromName(attempt.channel->format));
    const QString credential = credentialOf(attempt);
    sendWire(attempt, credential, m_dialect->request(m_call.request, upstreamModelOf(attempt), credential));
}

void EmbeddingsExchange::answerBody()
{
    api::embeddings::EmbeddingsAnswer embeddings = m_dialect->answer(m_body, m_call.request, m_current->modelId);
    if (!embeddings.problem.isEmpty())
        return answerUnusable(embeddings.problem);
    // Charged as on the chat routes: prompt tokens at the serving channel's prompt price (there
    // is no completion side).
    m_usage.known = true;
    m_usage.inputTokens = embeddings.promptTokens;
    answer("application/json", embeddings.body);
}

} // namespace sy::service
