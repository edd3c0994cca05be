#pragma once
// SpendHistory: charges summed by the 15-minute slot of their booking time (UTC), for the charges
// that no longer sit in the Ledger's in-memory tail (Ledger::kRetainedEntries). It keeps "spend
// since a point in time" exact without keeping every entry: every time zone's midnight (UTC's
// included) is on a 15-minute boundary, so the start of any day is the start of a slot.
//
// Bounded by age, not by traffic: slots more than kKept before the newest recorded slot are
// dropped, so at most kKept / kSlot + 1 slots are held (a wall clock set back can add slots below
// the newest one, which are then dropped by the same rule). "Spend today" never looks more than a
// day back, so two days leave a day of margin for a clock that was set back.
//
// Thread: the owner's (the ledger's); not thread-safe. Amounts in Nanos (Money.h).
#include "billing/Money.h"

#include <QDateTime>

#include <chrono>
#include <map>

namespace sy::billing {

class SpendHistory {
public:
    static constexpr std::chrono::minutes kSlot{15};
    static constexpr std::chrono::hours kKept{48};

    // Adds a charge of `amount` booked at `at`; an invalid `at` or an amount ≤ 0 adds nothing.
    void record(const QDateTime &at, Nanos amount);
    // Sum of the charges in the slots that start at or after `since` (an invalid `since`: every
    // slot kept). Exact for the recorded charges when `since` is on a slot boundary and not
    // before horizon(); a `since` inside a slot leaves that slot's charges out.
    Nanos spentSince(const QDateTime &since) const;
    // The start of the oldest slot that may still be held (invalid before the first record):
    // charges older than it were dropped.
    QDateTime horizon() const;
    std::size_t slotCount() const { return m_slots.size(); }

private:
    std::map<qint64, Nanos> m_slots;  // slot start (ms since the epoch, UTC) → sum of its charges
    qint64 m_newestSlot = 0;
    bool m_recorded = false;
};

} // namespace sy::billing
