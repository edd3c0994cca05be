#pragma once
// LedgerJournal: where a Ledger makes each booked entry durable before anyone can see it. The
// Ledger submits every entry, in sequence order, and shows the entry (entries(), balance(), a
// key's spend) only once the journal answered that it is committed; so a charge that was shown
// once survives a crash of the process, and a sequence number that was shown is never issued
// again (after a restart the ledger continues from the highest committed sequence).
//
// A journal answers each submit() exactly once, by calling Ledger::journalled() on the ledger's
// thread: either within submit() (a journal that commits synchronously) or later (one that
// commits on a storage thread, several entries in one transaction). Entries may be submitted
// while earlier ones are still unanswered; the ledger publishes them in sequence order whatever
// order the answers come in.
//
// Thread: called on the ledger's thread (the gateway thread). No I/O lives in billing/: the
// service implements this on the Store.
#include "billing/Ledger.h"

namespace sy::billing {

class LedgerJournal {
public:
    virtual ~LedgerJournal() = default;
    // Starts committing `entry`; answered with ledger.journalled(entry.sequence, committed), where
    // committed is true once it is durable (also when the same entry was committed before) and
    // false when it could not be (the ledger keeps it unpublished and submits it again later).
    virtual void submit(Ledger &ledger, const LedgerEntry &entry) = 0;
    // Blocks until every entry submitted so far was answered (the answers are delivered within
    // this call). For callers that must see their own booking at once, e.g. an admin top-up.
    virtual void drain() {}
};

} // namespace sy::billing
