#pragma once
// CapacityQueue: concurrency slots per upstream channel and the FIFO queue of requests waiting for
// one (SPEC §8, "Capacity queue").
//  - Each channel has `maxConcurrent` slots; 0 (and any channel never configured) is unlimited.
//  - The attempt loop asks for a slot on the channel it is about to try (tryAcquire). A full
//    channel just says no; trying the model's other channels is the caller's job.
//  - When every candidate channel is full, the caller queues the request (enqueue) at the channel
//    expected to free first (channelExpectedToFreeFirst). A slot freed at that channel is handed
//    straight to its first waiter, so a newcomer can never take it from under the queue.
//  - The capacity wait (`capacity_wait_s`, 10 s) is the caller's timer, which calls cancel(); a
//    client that disconnects while queued is cancelled the same way.
//  - The time a waiter spent queued is passed to it when it is granted, so the gateway can send
//    `x-lovely-queued-ms` and keep queue time out of upstream latency metrics.
//
// Thread: one thread (the gateway thread); no event loop, no I/O. Time from the injected Clock.
// Ownership: the queue owns the waiters' callbacks until they are granted or cancelled; each Slot
// is owned by whoever holds it.
#include "core/Clock.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sy::limits {

class CapacityQueue {
public:
    // One concurrency slot on one channel (RAII, move-only). Releasing it (release(), destruction,
    // or being move-assigned over) frees the slot, which goes straight to the channel's first
    // waiter if there is one. A moved-from or released Slot holds nothing.
    // Lifetime: the queue should outlive its slots. A slot released after its queue is gone does
    // nothing (it holds only a weak reference to the queue), so a late release is safe, not a crash.
    class Slot {
    public:
        Slot(Slot &&other) noexcept;
        Slot &operator=(Slot &&other) noexcept;
        Slot(const Slot &) = delete;
        Slot &operator=(const Slot &) = delete;
        ~Slot();

        bool isHeld() const { return m_queue != nullptr; }
        // Empty when the slot holds nothing.
        const QString &channelId() const { return m_channelId; }
        // Frees the slot now; a no-op when it holds nothing. May grant waiters synchronously.
        void release();

    private:
        friend class CapacityQueue;
        Slot(CapacityQueue *queue, std::weak_ptr<const bool> queueAlive, QString channelId, quint64 id);

        CapacityQueue *m_queue = nullptr;
        std::weak_ptr<const bool> m_queueAlive;
        QString m_channelId;
        quint64 m_id = 0;
    };

    using WaiterId = quint64;
    // Called once when a queued request gets its slot, with the time it waited in the queue.
    using GrantedCallback = std::function<void(Slot slot, std::chrono::milliseconds waited)>;

    explicit CapacityQueue(const Clock &clock);
    // Waiters still queued are dropped without a call; slots still held become no-ops.
    ~CapacityQueue();
    CapacityQueue(const CapacityQueue &) = delete;
    CapacityQueue &operator=(const CapacityQueue &) = delete;

    // Sets a channel's concurrent-request limit; 0 (or less) is unlimited. May change at any time:
    // lowering it never revokes held slots (the channel just grants nothing until enough of them
    // are released); raising it grants waiters synchronously, from inside this call.
    void setCapacity(const QString &channelId, int maxConcurrent);

    // A slot now, or nothing when the channel is full or anyone is queued at it (FIFO fairness:
    // a newcomer never overtakes a waiter). Never queues.
    std::optional<Slot> tryAcquire(const QString &channelId);

    // Of `channelIds`, the full channel expected to free a slot for a newcomer first; empty when
    // none of them is full (the caller should tryAcquire instead). Unlimited channels are never full.
    // Heuristic, in order:
    //  1. fewest (waiters + 1) per slot of capacity: the newcomer's place in line divided by the
    //     number of slots that free in parallel (compared exactly, by cross-multiplication);
    //  2. then the channel whose oldest held slot was taken earliest: the longest-running request
    //     is taken to be the closest to finishing;
    //  3. then the order of `channelIds` (the caller's preference).
    QString channelExpectedToFreeFirst(const QStringList &channelIds) const;

    // Queues a request at `channelId` behind its current waiters and returns an id for cancel().
    // `granted` is called exactly once unless cancelled first; the waited time is measured from
    // this call with the Clock. It is called synchronously from inside the call that made room:
    // a Slot release, setCapacity raising the limit, or this very call when the channel has room
    // and nobody queued (waited 0 ms). When room is made from inside another `granted` callback,
    // the grant runs right after that callback returns, still inside the outermost call.
    // What `granted` may do: keep, move or release the slot (releasing hands it to the next
    // waiter), acquire, enqueue, cancel, and setCapacity. It must not destroy the queue.
    WaiterId enqueue(const QString &channelId, GrantedCallback granted);

    // Removes a waiter at once; it is never called. False if the id is unknown, already granted
    // or already cancelled.
    bool cancel(WaiterId id);

    int inUse(const QString &channelId) const;
    // The configured limit; 0 = unlimited.
    int capacity(const QString &channelId) const;
    int queued(const QString &channelId) const;
    int totalQueued() const;

private:
    struct Waiter {
        WaiterId id = 0;
        Clock::TimePoint enqueuedAt{};
        GrantedCallback granted;
    };
    struct Channel {
        int maxConcurrent = 0;
        // Held slots by id, with the time each was taken. Ids grow with time, so begin() is the
        // slot held longest.
        std::map<quint64, Clock::TimePoint> held;
        std::deque<Waiter> waiters;
    };

    const Channel *findChannel(const QString &channelId) const;
    static bool hasRoom(const Channel &channel);
    static bool isFull(const Channel &channel);
    Slot takeSlot(const QString &channelId, Channel &channel);
    void releaseSlot(const QString &channelId, quint64 slotId);
    void grantWaiters(const QString &channelId);

    const Clock &m_clock;
    // Slots hold a weak reference to this; it dies with the queue.
    std::shared_ptr<const bool> m_alive = std::make_shared<const bool>(true);
    // Node-based, so a reference to a Channel survives inserting other channels.
    std::unordered_map<QString, Channel> m_channels;
    std::unordered_map<WaiterId, QString> m_waiterChannel;  // queued waiters only
    WaiterId m_nextWaiterId = 1;
    quint64 m_nextSlotId = 1;
    // Re-entrancy guard of grantWaiters(): channels that gained room while callbacks were running.
    bool m_granting = false;
    std::vector<QString> m_pendingGrants;
};

} // namespace sy::limits
