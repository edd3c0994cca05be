#pragma once
// LedgerJournal: where a Ledger makes each booked entry durable before anyone can see it. The
// Ledger calls commit() for every entry, in sequence order, and shows the entry (entries(),
// balance(), a key's spend) only after commit() returned true; so a charge that was shown once
// survives a crash of the process, and a sequence number that was shown is never issued again
// (after a restart the ledger continues from the highest committed sequence).
//
// Thread: called on the ledger's thread (the gateway thread), synchronously; it may block for one
// database commit. No I/O lives in billing/: the service implements this on the Store.
#include "billing/Ledger.h"

namespace sy::billing {

class LedgerJournal {
public:
    virtual ~LedgerJournal() = default;
    // True once `entry` is committed durably (also when that same entry was committed before);
    // false when it could not be (the ledger keeps it unpublished and offers it again later).
    virtual bool commit(const LedgerEntry &entry) = 0;
};

} // namespace sy::billing
