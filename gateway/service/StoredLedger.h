#pragma once
// The ledger's entries as the store keeps them and back: Persistence writes and replays them,
// the admin API lists stored ones that memory no longer holds. `reservation` is written only
// (a replayed entry ends no reservation of this run).
// Thread: free functions without state; any thread.
#include "billing/Ledger.h"
#include "storage/StoredTypes.h"

namespace sy::service {

storage::StoredLedgerEntry toStored(const billing::LedgerEntry &entry);
billing::LedgerEntry fromStored(const storage::StoredLedgerEntry &stored);

} // namespace sy::service
