#pragma once
// Ledger: the workspace balance, the reservations of requests in flight and the booked charges and
// top-ups (SPEC §8). A request is admitted at its start (tryAdmit), reserves an estimate of its
// cost while it runs, and ends in exactly one settle (book the actual charge) or release (no
// charge: failed, simulated, rejected); whatever comes second for the same reservation is ignored.
//
// Admission counts what is in flight: admitted while balance − reservations in flight > 0 and,
// when the key has a spend limit, while limit − the key's spend − the key's reservations > 0.
// So a lone request with budget left is never refused, and concurrent requests cannot together
// overdraw by more than the last admitted one's estimate (plus any actual charge above its
// estimate: a request that started always completes, so the balance may go below zero).
//
// balance() == opening balance + top-ups − charges. Entries hold only the movements booked by this
// ledger, in booking order, with sequence numbers 1, 2, 3, … They are all kept in memory and never
// dropped; persistence (Store) will take them over with entriesAfter() and bound this copy.
// A key's spend is its lifetime charges in this ledger.
//
// Thread: one thread (the gateway thread); not thread-safe. Time (entry `at`) from the injected
// Clock's wallNow(); the Clock must outlive the ledger. Amounts in Nanos (Money.h).
#include "billing/Money.h"
#include "core/Clock.h"

#include <QDateTime>
#include <QHash>
#include <QString>

#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sy::billing {

// Why tryAdmit refused; each maps to one 402 message of SPEC §8.
enum class AdmissionRefusal {
    InsufficientBalance,  // "Insufficient balance. Top up at the dashboard."
    SpendLimitReached,    // "This API key has reached its spend limit."
};

struct LedgerEntry {
    enum class Kind { Charge, TopUp };

    quint64 sequence = 0;      // stamped by the ledger
    QDateTime at;              // stamped by the ledger: wall time of booking (UTC)
    Kind kind = Kind::Charge;  // stamped by the ledger
    QString requestId;
    QString keyName;           // charges: stamped by the ledger with the admitted key
    QString modelId;           // the answering model
    QString channelId;         // the answering channel
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    Nanos amount = 0;          // ≥ 0 for both kinds: a charge lowers the balance, a top-up raises it
    QString note;
};

using ReservationId = quint64;  // 0 is never issued

class Ledger {
public:
    // `openingBalance` absent: an unmetered workspace — the balance is kept and may go negative,
    // but admission never refuses for it (spend limits still apply).
    Ledger(const Clock &clock, std::optional<Nanos> openingBalance);
    bool isMetered() const { return m_metered; }

    // At a request's start. Checks the balance first, then the key's spend limit (nullopt: none).
    // Admitted → a new reservation of `estimate` nanos (negative counts as 0) for `keyName`.
    std::variant<ReservationId, AdmissionRefusal> tryAdmit(const QString &keyName,
                                                           std::optional<Nanos> keySpendLimit, Nanos estimate);

    // Ends reservation `id` by booking `charge` (the actual usage × the answering channel's price).
    // The ledger stamps sequence, at, kind (Charge) and keyName (the admitted key); the caller
    // fills the rest. amount 0 (free primary) books nothing but still ends the reservation;
    // a negative amount counts as 0. The charge may exceed the estimate and the balance may go
    // below zero. Returns false, booking nothing, when `id` is unknown or already ended.
    bool settle(ReservationId id, LedgerEntry charge);

    // Ends reservation `id` without a charge. False when `id` is unknown or already ended.
    bool release(ReservationId id);

    // Books a top-up of `amount` (> 0) with `note`. False, booking nothing, when amount ≤ 0.
    bool topUp(Nanos amount, const QString &note);
    // Replays entries booked by an earlier run (from persistent storage), in sequence order,
    // before any request is admitted: balance and per-key spend follow them.
    void restore(const std::vector<LedgerEntry> &entries);

    Nanos balance() const { return m_balance; }
    Nanos reservedInFlight() const { return m_reserved; }
    Nanos keyReservedInFlight(const QString &keyName) const { return m_keyReserved.value(keyName); }
    int reservationsInFlight() const { return int(m_reservations.size()); }
    Nanos keySpent(const QString &keyName) const { return m_keySpent.value(keyName); }

    // Sum of charges booked at or after `since` (e.g. the start of today, for "spend today").
    // Scans the entries: O(entries).
    Nanos spentSince(const QDateTime &since) const;

    // All entries, in booking order (sequence increasing by one from 1).
    const std::vector<LedgerEntry> &entries() const { return m_entries; }
    // The entries with a sequence above `sequence` (for persistence), in booking order.
    std::vector<LedgerEntry> entriesAfter(quint64 sequence) const;
    quint64 lastSequence() const { return m_entries.empty() ? 0 : m_entries.back().sequence; }

private:
    struct Reservation {
        QString keyName;
        Nanos estimate = 0;
    };
    // Removes reservation `id` from the totals; nullopt when there is none.
    std::optional<Reservation> take(ReservationId id);
    void book(LedgerEntry entry);

    const Clock &m_clock;
    Nanos m_balance;
    bool m_metered = true;
    Nanos m_reserved = 0;
    ReservationId m_lastReservation = 0;
    std::unordered_map<ReservationId, Reservation> m_reservations;
    QHash<QString, Nanos> m_keyReserved;
    QHash<QString, Nanos> m_keySpent;
    std::vector<LedgerEntry> m_entries;
};

} // namespace sy::billing
