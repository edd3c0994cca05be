#include "billing/SpendHistory.h"

namespace sy::billing {

namespace {

constexpr qint64 kSlotMs = std::chrono::milliseconds(SpendHistory::kSlot).count();
constexpr qint64 kKeptMs = std::chrono::milliseconds(SpendHistory::kKept).count();

// The start of the slot holding `ms` (floor division: times before 1970 are negative).
qint64 slotStart(qint64 ms)
{
    const qint64 rest = ms % kSlotMs;
    return rest < 0 ? ms - rest - kSlotMs : ms - rest;
}

} // namespace

void SpendHistory::record(const QDateTime &at, Nanos amount)
{
    if (!at.isValid() || amount <= 0)
        return;
    const qint64 slot = slotStart(at.toMSecsSinceEpoch());
    if (!m_recorded || slot > m_newestSlot) {
        m_newestSlot = slot;
        m_recorded = true;
        m_slots.erase(m_slots.begin(), m_slots.lower_bound(m_newestSlot - kKeptMs));
    }
    if (slot < m_newestSlot - kKeptMs)
        return;  // older than what is kept (the clock was set back by more than kKept)
    Nanos &sum = m_slots[slot];
    sum = addSaturating(sum, amount);
}

Nanos SpendHistory::spentSince(const QDateTime &since) const
{
    auto first = m_slots.begin();
    if (since.isValid())
        first = m_slots.lower_bound(since.toMSecsSinceEpoch());
    Nanos spent = 0;
    for (auto it = first; it != m_slots.end(); ++it)
        spent = addSaturating(spent, it->second);
    return spent;
}

QDateTime SpendHistory::horizon() const
{
    if (!m_recorded)
        return {};
    return QDateTime::fromMSecsSinceEpoch(m_newestSlot - kKeptMs, Qt::UTC);
}

} // namespace sy::billing
