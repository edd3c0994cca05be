// ChatExchange, part two: channel capacity (SPEC §8 capacity queue) and money (settlement).
#include "service/ChatExchange.h"

#include "billing/Pricing.h"

namespace sy::service {

bool ChatExchange::startWithCapacity(size_t index)
{
    const PlannedAttempt &attempt = m_plan.attempts[index];
    // The chosen channel first; when it is full, any other channel of the same model with room.
    for (size_t i = index; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &candidate = m_plan.attempts[i];
        if (m_used[i] || candidate.kind != PlannedAttempt::Kind::Upstream || candidate.modelId != attempt.modelId)
            continue;
        if (auto slot = m_state.capacity.tryAcquire(candidate.channel->id)) {
            m_used[i] = true;
            m_slot = std::move(slot);
            ++m_upstreamAttempts;
            sendAttempt(candidate);
            return true;
        }
    }
    return false;
}

void ChatExchange::queueForCapacity(const QString &modelId)
{
    const auto now = m_clock.now();
    if (!m_queueStartedAt)
        m_queueStartedAt = now;
    const auto deadline = *m_queueStartedAt + std::chrono::seconds(m_workspace->config().settings.capacityWaitS);
    if (now >= deadline)
        return onCapacityTimeout();

    QStringList channels;
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &a = m_plan.attempts[i];
        if (!m_used[i] && a.kind == PlannedAttempt::Kind::Upstream && a.modelId == modelId && !channels.contains(a.channel->id))
            channels.append(a.channel->id);
    }
    // Waiting at every full channel of the model: the first slot freed anywhere is ours (a guess
    // of which channel frees first would leave the request waiting while another sits idle).
    m_waitStartedAt = now;
    QPointer<ChatExchange> self(this);
    for (const QString &channel : std::as_const(channels)) {
        m_capacityWaiters.push_back(m_state.capacity.enqueue(channel, [self](limits::CapacityQueue::Slot slot, std::chrono::milliseconds waited) {
            // The grant arrives inside another request's slot release: continue from the event
            // loop, holding the slot meanwhile (if this exchange is gone by then, it is released).
            auto held = std::make_shared<limits::CapacityQueue::Slot>(std::move(slot));
            QMetaObject::invokeMethod(self.data(), [self, held, waited] {
                if (self)
                    self->onCapacityGranted(std::move(*held), waited);
            }, Qt::QueuedConnection);
        }));
    }
    m_capacityTimer.start(int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()), this);
}

void ChatExchange::onCapacityGranted(limits::CapacityQueue::Slot slot, std::chrono::milliseconds)
{
    if (m_capacityWaiters.empty() || m_finished) {
        slot.release();  // a second grant, or too late: pass the slot on to the channel's next waiter
        return;
    }
    leaveCapacityQueue();  // the other channels' places in line
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &a = m_plan.attempts[i];
        if (!m_used[i] && a.kind == PlannedAttempt::Kind::Upstream && a.channel->id == slot.channelId()) {
            m_used[i] = true;
            m_current = &a;
            m_retriedCurrent = false;
            m_slot.emplace(std::move(slot));
            ++m_upstreamAttempts;
            sendAttempt(a);
            return;
        }
    }
    slot.release();
    tryNext();
}

void ChatExchange::onCapacityTimeout()
{
    leaveCapacityQueue();
    if (m_finished)
        return;
    ++m_state.refusals["capacity_busy"];
    ErrorReply reply{429, QStringLiteral("All upstream capacity for this model is busy. Retry shortly."), "capacity_busy", {}, 2};
    sendErrorReply(*m_sink, m_context.requestId, reply);
    done(429, reply.message);
}

void ChatExchange::leaveCapacityQueue()
{
    m_capacityTimer.stop();
    if (m_capacityWaiters.empty())
        return;
    for (const limits::CapacityQueue::WaiterId id : std::exchange(m_capacityWaiters, {}))
        m_state.capacity.cancel(id);
    m_queued += std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - m_waitStartedAt);
}

void ChatExchange::settleMoney(int status)
{
    const billing::ReservationId reservation = std::exchange(m_ticket.reservation, 0);
    if (!reservation)
        return;
    // Charged: an answered request, at the answering channel's price; a free primary costs nothing.
    const config::Model *primary = m_workspace->findModel(m_request.chain.value(0));
    const bool answered = status >= 200 && status < 300 && m_current && m_usage.known;
    if (!answered || (primary && primary->free)) {
        m_state.ledger.release(reservation);
        return;
    }
    billing::LedgerEntry charge;
    charge.requestId = QString::fromLatin1(m_context.requestId);
    charge.modelId = m_current->modelId;
    charge.channelId = m_current->channel->id;
    charge.promptTokens = m_usage.promptTokens;
    charge.completionTokens = m_usage.completionTokens;
    charge.amount = billing::chargeFor(m_usage.promptTokens, m_usage.completionTokens, m_current->served->price);
    m_context.record.costNanos = charge.amount;
    m_state.ledger.settle(reservation, std::move(charge));
}

} // namespace sy::service
