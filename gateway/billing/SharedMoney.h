#pragma once
// SharedMoney: where a Ledger decides admission when several gateways spend one balance (shared
// mode, SPEC §11). With it set, tryAdmit asks it instead of the ledger's own totals — it counts
// every gateway's charges and reservations — and release() hands the end of a reservation to it;
// a charge ends its reservation through the journal (LedgerJournal), which then carries the
// reservation id (LedgerEntry::reservation).
//
// Thread: called on the ledger's thread, synchronously; reserve() may block for one round trip to
// the shared database. No I/O lives in billing/: the service implements this on the Store.
#include "billing/Money.h"

#include <QString>
#include <optional>

namespace sy::billing {

class SharedMoney {
public:
    enum class Verdict { Admitted, InsufficientBalance, SpendLimitReached, Unavailable };

    virtual ~SharedMoney() = default;
    // Reserves `estimate` for reservation `id` of `keyName` when the shared balance (opening
    // balance `openingBalance`, nullopt: unmetered) and the key's `keySpendLimit` admit it.
    virtual Verdict reserve(quint64 id, const QString &keyName, std::optional<Nanos> keySpendLimit, Nanos estimate,
                            std::optional<Nanos> openingBalance) = 0;
    // Ends reservation `id` without a charge (returns at once; the implementation retries).
    virtual void release(quint64 id) = 0;
};

} // namespace sy::billing
