#include "limits/CapacityQueue.h"

#include <algorithm>
#include <utility>

namespace sy::limits {

using std::chrono::milliseconds;

// --- Slot ---------------------------------------------------------------------------------------

CapacityQueue::Slot::Slot(CapacityQueue *queue, std::weak_ptr<const bool> queueAlive, QString channelId, quint64 id)
    : m_queue(queue)
    , m_queueAlive(std::move(queueAlive))
    , m_channelId(std::move(channelId))
    , m_id(id)
{
}

CapacityQueue::Slot::Slot(Slot &&other) noexcept
    : m_queue(std::exchange(other.m_queue, nullptr))
    , m_queueAlive(std::move(other.m_queueAlive))
    , m_channelId(std::exchange(other.m_channelId, QString()))
    , m_id(std::exchange(other.m_id, 0))
{
}

CapacityQueue::Slot &CapacityQueue::Slot::operator=(Slot &&other) noexcept
{
    if (this != &other) {
        release();
        m_queue = std::exchange(other.m_queue, nullptr);
        m_queueAlive = std::move(other.m_queueAlive);
        m_channelId = std::exchange(other.m_channelId, QString());
        m_id = std::exchange(other.m_id, 0);
    }
    return *this;
}

CapacityQueue::Slot::~Slot()
{
    release();
}

void CapacityQueue::Slot::release()
{
    if (!m_queue)
        return;
    // Empty this slot before calling into the queue: the release may run granted callbacks, and
    // those must see this slot as already free.
    CapacityQueue *queue = std::exchange(m_queue, nullptr);
    const bool queueAlive = !m_queueAlive.expired();
    m_queueAlive.reset();
    const QString channelId = std::exchange(m_channelId, QString());
    const quint64 id = std::exchange(m_id, 0);
    if (queueAlive)
        queue->releaseSlot(channelId, id);
}

// --- CapacityQueue ------------------------------------------------------------------------------

CapacityQueue::CapacityQueue(const Clock &clock)
    : m_clock(clock)
{
}

CapacityQueue::~CapacityQueue()
{
    // First, so that a Slot destroyed together with a waiter's callback (e.g. captured through a
    // shared_ptr) does not call back into a queue that is being torn down.
    m_alive.reset();
}

const CapacityQueue::Channel *CapacityQueue::findChannel(const QString &channelId) const
{
    const auto it = m_channels.find(channelId);
    return it == m_channels.end() ? nullptr : &it->second;
}

bool CapacityQueue::hasRoom(const Channel &channel)
{
    return channel.maxConcurrent <= 0 || qsizetype(channel.held.size()) < channel.maxConcurrent;
}

bool CapacityQueue::isFull(const Channel &channel)
{
    // Waiters with room left only exist while grants are in progress; a newcomer would still be
    // behind them, so such a channel counts as full.
    return channel.maxConcurrent > 0 && (!hasRoom(channel) || !channel.waiters.empty());
}

CapacityQueue::Slot CapacityQueue::takeSlot(const QString &channelId, Channel &channel)
{
    const quint64 id = m_nextSlotId++;
    channel.held.emplace(id, m_clock.now());
    return Slot(this, m_alive, channelId, id);
}

void CapacityQueue::setCapacity(const QString &channelId, int maxConcurrent)
{
    m_channels[channelId].maxConcurrent = std::max(0, maxConcurrent);
    grantWaiters(channelId);
}

std::optional<CapacityQueue::Slot> CapacityQueue::tryAcquire(const QString &channelId)
{
    Channel &channel = m_channels[channelId];
    if (!hasRoom(channel) || !channel.waiters.empty())
        return std::nullopt;
    return takeSlot(channelId, channel);
}

QString CapacityQueue::channelExpectedToFreeFirst(const QStringList &channelIds) const
{
    const auto oldestHeld = [](const Channel &channel) {
        // No held slot (only possible transiently, see isFull): nothing has been running long.
        return channel.held.empty() ? Clock::TimePoint::max() : channel.held.begin()->second;
    };
    const Channel *best = nullptr;
    QString bestId;
    for (const QString &channelId : channelIds) {
        const Channel *channel = findChannel(channelId);
        if (!channel || !isFull(*channel))
            continue;
        bool better = !best;
        if (best) {
            // (waiters + 1) / capacity, compared without division.
            const qint64 mine = qint64(channel->waiters.size() + 1) * best->maxConcurrent;
            const qint64 theirs = qint64(best->waiters.size() + 1) * channel->maxConcurrent;
            better = mine != theirs ? mine < theirs : oldestHeld(*channel) < oldestHeld(*best);
        }
        if (better) {
            best = channel;
            bestId = channelId;
        }
    }
    return bestId;
}

CapacityQueue::WaiterId CapacityQueue::enqueue(const QString &channelId, GrantedCallback granted)
{
    Q_ASSERT_X(granted, "CapacityQueue::enqueue", "a waiter needs a granted callback");
    const WaiterId id = m_nextWaiterId++;
    m_channels[channelId].waiters.push_back(Waiter{id, m_clock.now(), std::move(granted)});
    m_waiterChannel.emplace(id, channelId);
    grantWaiters(channelId);  // grants at once when the channel has room and nobody is ahead
    return id;
}

bool CapacityQueue::cancel(WaiterId id)
{
    const auto indexed = m_waiterChannel.find(id);
    if (indexed == m_waiterChannel.end())
        return false;
    const auto channel = m_channels.find(indexed->second);
    m_waiterChannel.erase(indexed);
    if (channel == m_channels.end())
        return false;
    auto &waiters = channel->second.waiters;
    const auto it = std::find_if(waiters.begin(), waiters.end(), [id](const Waiter &w) { return w.id == id; });
    if (it == waiters.end())
        return false;
    // A cancelled waiter never had a slot, so nothing is freed and nobody else is granted here.
    waiters.erase(it);
    return true;
}

void CapacityQueue::releaseSlot(const QString &channelId, quint64 slotId)
{
    const auto channel = m_channels.find(channelId);
    if (channel == m_channels.end())
        return;
    channel->second.held.erase(slotId);
    grantWaiters(channelId);
}

void CapacityQueue::grantWaiters(const QString &channelId)
{
    if (std::find(m_pendingGrants.begin(), m_pendingGrants.end(), channelId) == m_pendingGrants.end())
        m_pendingGrants.push_back(channelId);
    // Re-entered from a granted callback (it released, enqueued or raised a capacity): the loop
    // below picks the channel up after that callback returns. Running grants here instead would
    // nest one stack frame per waiter whose callback releases at once.
    if (m_granting)
        return;
    m_granting = true;
    struct Reset {
        bool &flag;
        ~Reset() { flag = false; }
    } reset{m_granting};

    while (!m_pendingGrants.empty()) {
        const QString current = m_pendingGrants.front();
        m_pendingGrants.erase(m_pendingGrants.begin());
        for (;;) {
            // Looked up again on every turn: the previous callback may have changed anything.
            const auto it = m_channels.find(current);
            if (it == m_channels.end())
                break;
            Channel &channel = it->second;
            if (channel.waiters.empty() || !hasRoom(channel))
                break;
            // Out of the queue before the call, so the callback sees a consistent queue and a
            // cancel() of its own id returns false.
            Waiter waiter = std::move(channel.waiters.front());
            channel.waiters.pop_front();
            m_waiterChannel.erase(waiter.id);
            Slot slot = takeSlot(current, channel);
            const auto waited = std::chrono::duration_cast<milliseconds>(m_clock.now() - waiter.enqueuedAt);
            waiter.granted(std::move(slot), waited);
        }
    }
}

int CapacityQueue::inUse(const QString &channelId) const
{
    const Channel *channel = findChannel(channelId);
    return channel ? int(channel->held.size()) : 0;
}

int CapacityQueue::capacity(const QString &channelId) const
{
    const Channel *channel = findChannel(channelId);
    return channel ? channel->maxConcurrent : 0;
}

int CapacityQueue::queued(const QString &channelId) const
{
    const Channel *channel = findChannel(channelId);
    return channel ? int(channel->waiters.size()) : 0;
}

int CapacityQueue::totalQueued() const
{
    return int(m_waiterChannel.size());
}

} // namespace sy::limits
