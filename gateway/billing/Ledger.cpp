#include "billing/Ledger.h"

#include "billing/LedgerJournal.h"
#include "billing/SharedMoney.h"

#include <algorithm>

namespace sy::billing {

Ledger::Ledger(const Clock &clock, std::optional<Nanos> openingBalance)
    : m_clock(clock)
    , m_opening(openingBalance.value_or(0))
    , m_balance(openingBalance.value_or(0))
    , m_metered(openingBalance.has_value())
{
}

std::variant<ReservationId, AdmissionRefusal> Ledger::tryAdmit(const QString &keyName,
                                                               std::optional<Nanos> keySpendLimit, Nanos estimate)
{
    if (m_shared) {
        const ReservationId id = m_lastReservation + 1;
        const std::optional<Nanos> opening = m_metered ? std::optional(m_opening) : std::nullopt;
        switch (m_shared->reserve(id, keyName, keySpendLimit, std::max<Nanos>(estimate, 0), opening)) {
        case SharedMoney::Verdict::Admitted:
            break;
        case SharedMoney::Verdict::InsufficientBalance:
            return AdmissionRefusal::InsufficientBalance;
        case SharedMoney::Verdict::SpendLimitReached:
            return AdmissionRefusal::SpendLimitReached;
        case SharedMoney::Verdict::Unavailable:
            return AdmissionRefusal::MoneyUnavailable;
        }
    }
    // Strictly above zero, after what is already promised to requests in flight.
    else if (m_metered && addSaturating(m_balance, -reservedInFlight()) <= 0)
        return AdmissionRefusal::InsufficientBalance;
    if (keySpendLimit && !m_shared) {
        const Nanos used = addSaturating(keySpent(keyName), keyReservedInFlight(keyName));
        if (addSaturating(*keySpendLimit, -used) <= 0)
            return AdmissionRefusal::SpendLimitReached;
    }

    const Nanos reserved = std::max<Nanos>(estimate, 0);
    const ReservationId id = ++m_lastReservation;
    m_reservations.emplace(id, Reservation{keyName, reserved});
    m_reserved = addSaturating(m_reserved, reserved);
    Nanos &keyReserved = m_keyReserved[keyName];
    keyReserved = addSaturating(keyReserved, reserved);
    return id;
}

std::optional<Ledger::Reservation> Ledger::take(ReservationId id)
{
    const auto it = m_reservations.find(id);
    if (it == m_reservations.end())
        return std::nullopt;
    Reservation reservation = std::move(it->second);
    m_reservations.erase(it);

    m_reserved = std::max<Nanos>(m_reserved - reservation.estimate, 0);
    const auto keyIt = m_keyReserved.find(reservation.keyName);
    if (keyIt != m_keyReserved.end()) {
        *keyIt = std::max<Nanos>(*keyIt - reservation.estimate, 0);
        if (*keyIt == 0)
            m_keyReserved.erase(keyIt);  // zero totals are dropped so the map stays small
    }
    if (m_reservations.empty()) {
        // Totals that saturated (estimates near the Nanos range) cannot be unwound by subtraction;
        // with nothing in flight they are zero by definition.
        m_reserved = 0;
        m_keyReserved.clear();
    }
    return reservation;
}

bool Ledger::settle(ReservationId id, LedgerEntry charge)
{
    std::optional<Reservation> reservation = take(id);
    if (!reservation)
        return false;
    if (charge.amount <= 0) {
        if (m_shared)
            m_shared->release(id);
        return true;  // free: nothing to book
    }

    charge.kind = LedgerEntry::Kind::Charge;
    charge.keyName = reservation->keyName;
    charge.reservation = id;
    book(std::move(charge));
    return true;
}

bool Ledger::release(ReservationId id)
{
    if (!take(id))
        return false;
    if (m_shared)
        m_shared->release(id);
    return true;
}

bool Ledger::topUp(Nanos amount, const QString &note)
{
    if (amount <= 0)
        return false;
    LedgerEntry entry;
    entry.kind = LedgerEntry::Kind::TopUp;
    entry.amount = amount;
    entry.note = note;
    book(std::move(entry));
    return true;
}

void Ledger::restore(const std::vector<LedgerEntry> &entries)
{
    for (const LedgerEntry &entry : entries) {
        if (entry.sequence <= lastSequence())
            continue;  // already known: replays are idempotent
        apply(entry);
        m_lastStamped = std::max(m_lastStamped, entry.sequence);
    }
}

void Ledger::book(LedgerEntry entry)
{
    entry.sequence = ++m_lastStamped;
    entry.at = m_clock.wallNow();
    if (entry.kind == LedgerEntry::Kind::Charge) {
        m_unpublishedCharges = addSaturating(m_unpublishedCharges, entry.amount);
        Nanos &keyUnpublished = m_keyUnpublished[entry.keyName];
        keyUnpublished = addSaturating(keyUnpublished, entry.amount);
    }
    m_unpublished.push_back(Pending{std::move(entry)});
    if (!m_journal) {
        m_unpublished.back().state = Pending::State::Committed;
        m_unpublished.back().answered = true;
        publishCommitted();
        return;
    }
    submitUnsent();
}

int Ledger::publishPending()
{
    submitUnsent();
    return int(m_unpublished.size());
}

void Ledger::submitUnsent()
{
    if (m_submitting || !m_journal)
        return;  // re-entered from an answer within submit(): the outer loop goes on
    m_submitting = true;
    m_refusedInSubmit = false;
    // By sequence, not by position: an answer within submit() may publish (pop) entries.
    quint64 after = 0;
    while (!m_refusedInSubmit) {
        const auto next = std::find_if(m_unpublished.begin(), m_unpublished.end(), [after](const Pending &p) {
            return p.entry.sequence > after && p.state == Pending::State::Unsent;
        });
        if (next == m_unpublished.end())
            break;
        next->state = Pending::State::Submitted;
        const LedgerEntry entry = next->entry;  // a copy: `next` may be gone when submit() returns
        after = entry.sequence;
        m_journal->submit(*this, entry);
    }
    m_submitting = false;
}

Ledger::Pending *Ledger::findPending(quint64 sequence)
{
    const auto it = std::lower_bound(m_unpublished.begin(), m_unpublished.end(), sequence,
                                     [](const Pending &p, quint64 s) { return p.entry.sequence < s; });
    return it != m_unpublished.end() && it->entry.sequence == sequence ? &*it : nullptr;
}

void Ledger::journalled(quint64 sequence, bool committed)
{
    Pending *pending = findPending(sequence);
    if (!pending || pending->state != Pending::State::Submitted)
        return;
    pending->answered = true;
    if (committed) {
        pending->state = Pending::State::Committed;
        publishCommitted();
    } else {
        pending->state = Pending::State::Unsent;
        if (m_submitting)
            m_refusedInSubmit = true;  // later entries wait behind it, in order
    }
    runAfterJournal();
}

void Ledger::publishCommitted()
{
    // Strictly in sequence order: a later entry never becomes visible before an earlier one, so
    // a reader paging with entriesAfter(sequence) cannot skip one.
    while (!m_unpublished.empty() && m_unpublished.front().state == Pending::State::Committed) {
        const LedgerEntry &next = m_unpublished.front().entry;
        if (next.kind == LedgerEntry::Kind::Charge) {
            m_unpublishedCharges = std::max<Nanos>(m_unpublishedCharges - next.amount, 0);
            const auto it = m_keyUnpublished.find(next.keyName);
            if (it != m_keyUnpublished.end() && (*it = std::max<Nanos>(*it - next.amount, 0)) == 0)
                m_keyUnpublished.erase(it);
        }
        if (!m_shared)
            apply(next);  // shared: it comes back from the database with its sequence (restore)
        m_unpublished.pop_front();
    }
    if (m_unpublished.empty()) {
        // As for reservations: saturated totals cannot be unwound; with nothing left they are zero.
        m_unpublishedCharges = 0;
        m_keyUnpublished.clear();
    }
}

void Ledger::afterJournal(quint64 sequence, std::function<void()> then)
{
    const Pending *pending = findPending(sequence);
    if (!pending || pending->answered)
        return then();
    m_afterJournal.emplace_back(sequence, std::move(then));
}

void Ledger::runAfterJournal()
{
    if (m_afterJournal.empty())
        return;
    std::vector<std::function<void()>> ready;
    const auto waiting = std::remove_if(m_afterJournal.begin(), m_afterJournal.end(), [&](auto &waiter) {
        const Pending *pending = findPending(waiter.first);
        if (pending && !pending->answered)
            return false;
        ready.push_back(std::move(waiter.second));
        return true;
    });
    m_afterJournal.erase(waiting, m_afterJournal.end());
    for (std::function<void()> &then : ready)
        then();  // may book or answer again: the list is consistent by now
}

void Ledger::awaitJournal()
{
    const bool submitted = std::any_of(m_unpublished.begin(), m_unpublished.end(),
                                       [](const Pending &p) { return p.state == Pending::State::Submitted; });
    if (m_journal && submitted)
        m_journal->drain();
}

void Ledger::apply(const LedgerEntry &entry)
{
    if (entry.kind == LedgerEntry::Kind::Charge) {
        m_balance = addSaturating(m_balance, -entry.amount);
        Nanos &spent = m_keySpent[entry.keyName];
        spent = addSaturating(spent, entry.amount);
    } else {
        m_balance = addSaturating(m_balance, entry.amount);
    }
    m_entries.push_back(entry);
    dropOldest();
}

void Ledger::dropOldest()
{
    SpentSince &cache = m_spentSince;
    while (m_entries.size() > kRetainedEntries) {
        const LedgerEntry &oldest = m_entries.front();
        if (oldest.kind == LedgerEntry::Kind::Charge) {
            // spentSince's running sum counts the entry before it goes, if it had not yet: its
            // `since` may be inside a slot, where the history's sums cannot say.
            if (cache.valid && oldest.sequence > cache.countedThrough && oldest.at >= cache.since)
                cache.spent = addSaturating(cache.spent, oldest.amount);
            m_spendHistory.record(oldest.at, oldest.amount);
        }
        if (cache.valid)
            cache.countedThrough = std::max(cache.countedThrough, oldest.sequence);
        m_droppedThrough = oldest.sequence;
        if (m_onDropped)
            m_onDropped(oldest);
        m_entries.pop_front();
    }
}

Nanos Ledger::spentSince(const QDateTime &since) const
{
    // Every entry is looked at once, not a search from the end: the wall clock may have been set
    // back between bookings. Entries are only ever appended, so the sum carries on from the last
    // entry counted; what left entries() is in the history's sums (SpendHistory.h).
    SpentSince &cache = m_spentSince;
    if (!cache.valid || cache.since != since)
        cache = SpentSince{true, since, m_droppedThrough, m_spendHistory.spentSince(since)};
    const auto first = std::upper_bound(m_entries.begin(), m_entries.end(), cache.countedThrough,
                                        [](quint64 s, const LedgerEntry &entry) { return s < entry.sequence; });
    for (auto it = first; it != m_entries.end(); ++it) {
        if (it->kind == LedgerEntry::Kind::Charge && it->at >= since)
            cache.spent = addSaturating(cache.spent, it->amount);
        cache.countedThrough = it->sequence;
    }
    return cache.spent;
}

std::vector<LedgerEntry> Ledger::entriesAfter(quint64 sequence, std::size_t limit) const
{
    const auto first = std::upper_bound(m_entries.begin(), m_entries.end(), sequence,
                                        [](quint64 s, const LedgerEntry &entry) { return s < entry.sequence; });
    const auto count = std::min<std::size_t>(limit, std::size_t(m_entries.end() - first));
    return {first, first + std::ptrdiff_t(count)};
}

} // namespace sy::billing
