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
// ledger, in booking order, with sequence numbers 1, 2, 3, … A key's spend is its lifetime charges
// in this ledger.
//
// Memory is bounded whatever the traffic and history: entries() keeps only the newest
// kRetainedEntries published entries (the store keeps them all); an older entry leaves it when a
// newer one is published or restored. Every total stays exact, as it is a sum kept on the side:
// balance(), keySpent(), admission, and spentSince() (charges by 15-minute slot for two days,
// SpendHistory.h).
//
// Durability (LedgerJournal.h): with a journal, a booked entry is *unpublished* until the journal
// answered that it is committed; only published entries are in entries(), balance() and
// keySpent(). Each entry is submitted to the journal as it is booked, without waiting for the
// answers to earlier ones (a journal on a storage thread commits them in groups); entries are
// published strictly in sequence order. Unpublished charges still count against admission (like
// reservations), so money cannot be overspent while the disk refuses writes; an entry the journal
// refused is submitted again, in order, on the next booking and on publishPending(). Without a
// journal every entry is published at once.
//
// Thread: one thread (the gateway thread); not thread-safe. Time (entry `at`) from the injected
// Clock's wallNow(); the Clock must outlive the ledger. Amounts in Nanos (Money.h).
#include "billing/Money.h"
#include "billing/SpendHistory.h"
#include "core/Clock.h"

#include <QDateTime>
#include <QHash>
#include <QString>

#include <deque>
#include <functional>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sy::billing {

// Why tryAdmit refused; each maps to one 402 message of SPEC §8.
enum class AdmissionRefusal {
    InsufficientBalance,  // "Insufficient balance. Top up at the dashboard."
    SpendLimitReached,    // "This API key has reached its spend limit."
    MoneyUnavailable,     // shared mode: the shared database did not answer (503, retry shortly)
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
    quint64 reservation = 0;   // stamped by the ledger on a charge: the reservation it ends
};

using ReservationId = quint64;  // 0 is never issued

class LedgerJournal;
class SharedMoney;

class Ledger {
public:
    // How many published entries entries() keeps. Its readers: /admin/ledger and the usage
    // history read the store for anything older (without a store these are all there is), and
    // spentSince() scans them for a `since` they cover. 10,000 is twice the request log's
    // in-memory records (RequestLog's capacity), so a logged request's charge is still here for
    // the usage history without a store, even with a top-up between every two charges; it is a
    // few MB (an entry with its strings is some 300–400 bytes) and, at 1k requests/s, 10 s of
    // traffic — what a reader paging with ?after= every few seconds needs from memory.
    static constexpr std::size_t kRetainedEntries = 10'000;

    // `openingBalance` absent: an unmetered workspace — the balance is kept and may go negative,
    // but admission never refuses for it (spend limits still apply).
    Ledger(const Clock &clock, std::optional<Nanos> openingBalance);
    bool isMetered() const { return m_metered; }

    // The journal that must commit each entry before it is published; null (the default): none.
    // Not owned; it must outlive the ledger or be unset first.
    void setJournal(LedgerJournal *journal) { m_journal = journal; }
    // Submits the unpublished entries the journal refused (or never saw) again, in order; returns
    // how many are still unpublished (0: everything booked is visible).
    int publishPending();
    int unpublishedCount() const { return int(m_unpublished.size()); }
    // The journal's answer to the submit of entry `sequence` (LedgerJournal.h). An answer for an
    // entry that is not waiting for one is ignored.
    void journalled(quint64 sequence, bool committed);
    // Runs `then` once the journal answered entry `sequence` for the first time — committed or
    // refused — or at once when it did already, or when no such entry waits. So an answer can be
    // held until its charge is durable without being held forever by a disk that refuses writes
    // (a refused charge stays unpublished and counts against admission, as above).
    void afterJournal(quint64 sequence, std::function<void()> then);
    // Blocks until the journal answered every entry submitted so far (LedgerJournal::drain).
    void awaitJournal();
    // The sequence of the last entry booked (published or not); 0 before the first.
    quint64 lastBooked() const { return m_lastStamped; }

    // Shared mode (SharedMoney.h): admission is decided by `shared` over every gateway's money,
    // and an entry the journal committed is not applied here at once: the entries of every
    // gateway, this one's included, come back in the database's order through restore(), which
    // then also serves to follow the others' bookings. Not owned; must outlive the ledger or be
    // unset first. Set it before any request is admitted, together with a journal.
    void setShared(SharedMoney *shared) { m_shared = shared; }
    bool isShared() const { return m_shared != nullptr; }

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
    // before any request is admitted: balance and per-key spend follow them, and new entries get
    // sequence numbers above the highest replayed one. Replayed entries are not journalled.
    // Entries at or below lastSequence() are skipped, so a long ledger can be replayed in pages
    // (one call per page), and in shared mode it is called again with what the database booked
    // since (any time, also while requests run). Only the newest kRetainedEntries stay in
    // entries(); the older ones count in the totals only.
    void restore(const std::vector<LedgerEntry> &entries);

    Nanos balance() const { return m_balance; }
    // Reservations of requests in flight plus charges booked but not yet published.
    Nanos reservedInFlight() const { return addSaturating(m_reserved, m_unpublishedCharges); }
    Nanos keyReservedInFlight(const QString &keyName) const
    {
        return addSaturating(m_keyReserved.value(keyName), m_keyUnpublished.value(keyName));
    }
    int reservationsInFlight() const { return int(m_reservations.size()); }
    Nanos keySpent(const QString &keyName) const { return m_keySpent.value(keyName); }

    // Sum of charges booked at or after `since` (e.g. the start of today, for "spend today").
    // Exact for a `since` that entries() covers (after the booking time of every entry that left
    // it), and for a `since` on a 15-minute boundary (any time zone's midnight) within two
    // days of the newest charge that left entries() (SpendHistory.h); an older `since` counts only
    // those two days and entries(). Asked again with the same `since` (every dashboard frame,
    // every /metrics scrape), it looks only at the entries published since the last call, and
    // stays exact for that `since` however many entries left entries() in between; a new `since`
    // scans entries() once.
    Nanos spentSince(const QDateTime &since) const;

    // The newest published entries (at most kRetainedEntries), in booking order (sequence
    // increasing; by one from 1 in a ledger of one gateway).
    const std::deque<LedgerEntry> &entries() const { return m_entries; }
    // The published entries in entries() with a sequence above `sequence`, in booking order, at
    // most `limit` of them. Complete only for sequence ≥ droppedThrough(): the entries between
    // are in the store only.
    std::vector<LedgerEntry> entriesAfter(quint64 sequence, std::size_t limit = kRetainedEntries) const;
    // The sequence of the last published entry; 0 before the first.
    quint64 lastSequence() const { return m_entries.empty() ? 0 : m_entries.back().sequence; }
    // The sequence of the newest entry that left entries() (0: none did yet).
    quint64 droppedThrough() const { return m_droppedThrough; }
    // Called with each entry as it leaves entries(), within the booking or restore that pushed it
    // out; empty (the default): nothing is called. It must not call back into the ledger.
    void setOnDropped(std::function<void(const LedgerEntry &)> onDropped) { m_onDropped = std::move(onDropped); }

private:
    struct Reservation {
        QString keyName;
        Nanos estimate = 0;
    };
    // Removes reservation `id` from the totals; nullopt when there is none.
    std::optional<Reservation> take(ReservationId id);
    // An entry booked and not yet published.
    struct Pending {
        enum class State { Unsent, Submitted, Committed };
        LedgerEntry entry;
        State state = State::Unsent;
        bool answered = false;  // the journal answered it at least once
    };
    // Stamps `entry` and queues it for publication, then submits it to the journal.
    void book(LedgerEntry entry);
    // Submits the Unsent entries in sequence order; stops at a refusal answered within submit().
    void submitUnsent();
    // Publishes the committed entries at the front of the queue, in order.
    void publishCommitted();
    Pending *findPending(quint64 sequence);
    void runAfterJournal();
    // Moves a committed entry into the balance, the key's spend and entries().
    void apply(const LedgerEntry &entry);
    // Drops the oldest entries past kRetainedEntries, keeping their charges in m_spendHistory
    // and in spentSince's running sum.
    void dropOldest();

    const Clock &m_clock;
    Nanos m_opening;   // the opening balance (0 when unmetered)
    Nanos m_balance;
    bool m_metered = true;
    Nanos m_reserved = 0;
    ReservationId m_lastReservation = 0;
    std::unordered_map<ReservationId, Reservation> m_reservations;
    QHash<QString, Nanos> m_keyReserved;
    QHash<QString, Nanos> m_keySpent;
    std::deque<LedgerEntry> m_entries;           // the newest published entries (kRetainedEntries)
    quint64 m_droppedThrough = 0;
    std::function<void(const LedgerEntry &)> m_onDropped;
    SpendHistory m_spendHistory;                 // the charges of the entries that left m_entries
    // spentSince's last answer: its `since`, the sequence of the last entry counted, their sum.
    struct SpentSince {
        bool valid = false;
        QDateTime since;
        quint64 countedThrough = 0;
        Nanos spent = 0;
    };
    mutable SpentSince m_spentSince;
    LedgerJournal *m_journal = nullptr;
    SharedMoney *m_shared = nullptr;
    quint64 m_lastStamped = 0;                 // the highest sequence issued, published or not
    std::deque<Pending> m_unpublished;          // stamped, not yet published; in sequence order
    std::vector<std::pair<quint64, std::function<void()>>> m_afterJournal;  // waiting for a first answer
    bool m_submitting = false;                  // inside submitUnsent()
    bool m_refusedInSubmit = false;             // a refusal was answered within the current submit()
    Nanos m_unpublishedCharges = 0;             // sum of the unpublished charges
    QHash<QString, Nanos> m_keyUnpublished;     // the same per key
};

} // namespace sy::billing
