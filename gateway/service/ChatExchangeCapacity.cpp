// ChatExchange, the channel capacity part (SPEC §8 capacity queue): a slot on the chosen channel,
// another channel of the same model with room, or a wait at all of them (CapacityWait).
#include "service/ChatExchange.h"

#include "core/SecretRedaction.h"
#include "service/ErrorReply.h"

#include <QJsonArray>
#include <QJsonDocument>

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
    QStringList channels;
    for (size_t i = 0; i < m_plan.attempts.size(); ++i) {
        const PlannedAttempt &a = m_plan.attempts[i];
        if (!m_used[i] && a.kind == PlannedAttempt::Kind::Upstream && a.modelId == modelId && !channels.contains(a.channel->id))
            channels.append(a.channel->id);
    }
    if (!m_capacity)
        m_capacity = std::make_unique<CapacityWait>(m_state.capacity, m_clock);
    m_capacity->wait(channels, std::chrono::seconds(m_workspace->config().settings.capacityWaitS),
                     [this](limits::CapacityQueue::Slot slot) { onCapacityGranted(std::move(slot)); },
                     [this] { onCapacityTimeout(); });
}

void ChatExchange::onCapacityGranted(limits::CapacityQueue::Slot slot)
{
    if (m_finished) {
        slot.release();
        return;
    }
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
    if (m_finished)
        return;
    ++m_state.refusals["capacity_busy"];
    replyError({429, QStringLiteral("All upstream capacity for this model is busy. Retry shortly."), "capacity_busy", {}, 2});
}

} // namespace sy::service
