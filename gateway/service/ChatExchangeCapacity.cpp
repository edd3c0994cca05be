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
    // The chosen channel first; when it is full, any other channel of the same model with room.
    std::optional<TakenSlot> taken = takeChannelWithRoom(m_plan, m_used, index, m_state.capacity);
    if (!taken)
        return false;
    m_used[taken->index] = true;
    m_slot = std::move(taken->slot);
    ++m_upstreamAttempts;
    sendAttempt(m_plan.attempts[taken->index]);
    return true;
}

void ChatExchange::queueForCapacity(const QString &modelId)
{
    if (!m_capacity)
        m_capacity = std::make_unique<CapacityWait>(m_state.capacity, m_clock);
    m_capacity->wait(channelsToWaitAt(m_plan, m_used, modelId), std::chrono::seconds(m_workspace->config().settings.capacityWaitS),
                     [this](limits::CapacityQueue::Slot slot) { onCapacityGranted(std::move(slot)); },
                     [this] { onCapacityTimeout(); });
}

void ChatExchange::onCapacityGranted(limits::CapacityQueue::Slot slot)
{
    if (m_finished) {
        slot.release();
        return;
    }
    if (const std::optional<size_t> i = attemptOnChannel(m_plan, m_used, slot.channelId())) {
        const PlannedAttempt &a = m_plan.attempts[*i];
        m_used[*i] = true;
        m_current = &a;
        m_retriedCurrent = false;
        m_slot.emplace(std::move(slot));
        ++m_upstreamAttempts;
        sendAttempt(a);
        return;
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
