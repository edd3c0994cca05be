// GatewayService, the admission a chat or embeddings request ends its start with: AdmissionGate
// decides, the client may leave while it waits, and the admitted request's exchange takes over.
#include "service/GatewayService.h"

#include "service/ErrorReply.h"

namespace sy::service {

void GatewayService::admitThenRun(AdmissionRequest admission, ExchangeContext context, api::Format format,
                                  std::shared_ptr<http::ResponseSink> sink, RunAdmitted run)
{
    // The client may leave while admission waits for the key's limits: the request ends there.
    // The context waits in one place shared by both ends, so the record is not copied for the
    // case of a client that leaves.
    struct Pending {
        ExchangeContext context;
        bool waiting = true;
    };
    const quint64 token = admission.token;
    auto pending = std::make_shared<Pending>(Pending{std::move(context), true});
    sink->onClientGone([this, token, pending] {
        if (!std::exchange(pending->waiting, false))
            return;
        m_admission->cancel(token);
        --m_counters.inFlight;
        finishRecord(std::move(pending->context.record), 499, pending->context.arrivedAt,
                     QStringLiteral("client closed the connection while waiting for the key's limits"));
    });
    ++m_counters.inFlight;
    m_admission->admit(std::move(admission),
        [this, pending, format, sink, run = std::move(run)](std::variant<AdmissionTicket, ErrorReply> result) mutable {
            if (!std::exchange(pending->waiting, false))
                return;
            ExchangeContext context = std::move(pending->context);
            if (auto *refusal = std::get_if<ErrorReply>(&result)) {
                --m_counters.inFlight;
                sendErrorReply(*sink, context.requestId, *refusal, format);
                return finishRecord(std::move(context.record), refusal->status, context.arrivedAt, refusal->message,
                                    countsAgainstKey(*refusal));
            }
            AdmissionTicket ticket = std::get<AdmissionTicket>(std::move(result));
            context.record.queueMs = ticket.waitedMs;
            run(std::move(context), std::move(ticket));
        });
}

void GatewayService::onExchangeFinished(const RequestRecord &record)
{
    --m_counters.inFlight;
    recordFinished(record);
}

} // namespace sy::service
