#pragma once
// RequestLogBacklog: the bound on the request-log rows a store's write queue holds. When the
// database falls behind (a slow disk, a lock held elsewhere, a PostgreSQL outage) rows would
// otherwise wait in memory without limit; past the bound new request-log rows are dropped and
// counted instead. Only request-log rows: ledger entries, the configuration and meta values are
// never dropped. Internal to the stores' workers.
//
// Thread: not synchronised; the owning worker calls it under its queue's mutex.
#include <QtGlobal>

#include <chrono>
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>

namespace sy::storage {

class RequestLogBacklog {
public:
    using Clock = std::chrono::steady_clock;
    // At most one warning per this interval, naming the rows dropped since the last one.
    static constexpr std::chrono::seconds kWarningInterval{10};

    // `bound` ≤ 0: no bound.
    explicit RequestLogBacklog(int bound) : m_bound(bound) {}

    // A row is about to be queued: true when it may (it is then counted as queued), false when
    // the queue holds its bound (the row is counted as dropped). When a warning is due,
    // `warnDropped` is set to the rows dropped since the last one (left at 0 otherwise).
    bool admit(Clock::time_point now, quint64 &warnDropped)
    {
        if (m_bound <= 0 || m_queued < std::size_t(m_bound)) {
            ++m_queued;
            return true;
        }
        ++m_dropped;
        ++m_droppedSinceWarning;
        if (!m_lastWarning || now - *m_lastWarning >= kWarningInterval) {
            m_lastWarning = now;
            warnDropped = std::exchange(m_droppedSinceWarning, 0);
        }
        return false;
    }
    // `rows` queued rows were committed (or rejected): they leave the queue.
    void left(std::size_t rows) { m_queued -= std::min(rows, m_queued); }

    std::size_t queued() const { return m_queued; }  // waiting, the running commit's included
    quint64 dropped() const { return m_dropped; }    // since the store was opened
    int bound() const { return m_bound; }

private:
    const int m_bound;
    std::size_t m_queued = 0;
    quint64 m_dropped = 0;
    quint64 m_droppedSinceWarning = 0;
    std::optional<Clock::time_point> m_lastWarning;
};

} // namespace sy::storage
