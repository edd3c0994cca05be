#pragma once
// RequestLogBacklog: the bounds on the request-log rows a store's write queue holds while the
// database falls behind (a slow disk, a lock held elsewhere, a PostgreSQL outage). Every answered
// request is to be logged (SPEC §10), so the gateway stops admitting new requests once the rows
// waiting reach the soft bound (full()); rows still come from the requests already admitted and
// from the refusals themselves, and are queued up to the hard bound, twice the soft one. Only
// past that are rows dropped and counted. Only request-log rows: ledger entries, the
// configuration and meta values are never dropped. Internal to the stores' workers.
//
// Thread: admit(), left() and the other accessors are not synchronised — the owning worker calls
// them under its queue's mutex; full() may be called from any thread without that mutex.
#include <QtGlobal>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

namespace sy::storage {

class RequestLogBacklog {
public:
    using Clock = std::chrono::steady_clock;
    // At most one warning of each kind per this interval.
    static constexpr std::chrono::seconds kWarningInterval{10};

    // `softBound` ≤ 0: no bound (nothing is refused, nothing dropped).
    explicit RequestLogBacklog(int softBound)
        : m_softBound(softBound > 0 ? std::size_t(softBound) : 0), m_hardBound(2 * m_softBound)
    {
    }
    RequestLogBacklog(const RequestLogBacklog &) = delete;
    RequestLogBacklog &operator=(const RequestLogBacklog &) = delete;

    // What admit() has to say besides its verdict; both 0 when nothing is due.
    struct Warnings {
        quint64 dropped = 0;      // rows dropped since the last such warning
        std::size_t full = 0;     // the rows waiting, the soft bound just reached
    };

    // A row is about to be queued: true when it may (it is then counted as queued), false when
    // the queue holds its hard bound (the row is counted as dropped). Warnings are due at most
    // once per kWarningInterval each.
    bool admit(Clock::time_point now, Warnings &warnings)
    {
        if (m_softBound == 0 || m_queued < m_hardBound) {
            setQueued(m_queued + 1);
            if (m_queued == m_softBound && due(m_lastFullWarning, now))
                warnings.full = m_queued;
            return true;
        }
        ++m_dropped;
        ++m_droppedSinceWarning;
        if (due(m_lastDropWarning, now))
            warnings.dropped = std::exchange(m_droppedSinceWarning, 0);
        return false;
    }
    // `rows` queued rows were committed (or rejected): they leave the queue.
    void left(std::size_t rows) { setQueued(m_queued - std::min(rows, m_queued)); }

    // Any thread, lock-free: the rows waiting while they are at the soft bound or above (new
    // requests are then to be refused); nothing below it or without a bound.
    std::optional<quint64> full() const
    {
        const std::size_t queued = m_queuedNow.load(std::memory_order_relaxed);
        if (m_softBound == 0 || queued < m_softBound)
            return std::nullopt;
        return quint64(queued);
    }

    std::size_t queued() const { return m_queued; }  // waiting, the running commit's included
    quint64 dropped() const { return m_dropped; }    // since the store was opened
    std::size_t softBound() const { return m_softBound; }
    std::size_t hardBound() const { return m_hardBound; }

private:
    void setQueued(std::size_t queued)
    {
        m_queued = queued;
        m_queuedNow.store(queued, std::memory_order_relaxed);
    }
    static bool due(std::optional<Clock::time_point> &last, Clock::time_point now)
    {
        if (last && now - *last < kWarningInterval)
            return false;
        last = now;
        return true;
    }

    const std::size_t m_softBound;
    const std::size_t m_hardBound;
    std::size_t m_queued = 0;
    std::atomic<std::size_t> m_queuedNow{0};  // m_queued, for full() outside the mutex
    quint64 m_dropped = 0;
    quint64 m_droppedSinceWarning = 0;
    std::optional<Clock::time_point> m_lastDropWarning;
    std::optional<Clock::time_point> m_lastFullWarning;
};

} // namespace sy::storage
