#pragma once
// A batch of queued writes on the PostgreSQL server in one round trip. Internal to PostgresStore.
//
// Thread: the thread that owns the connection passed in (the storage thread).
#include "storage/PostgresStatements.h"

namespace sy::storage {

// Writes `batch` in one transaction and one round trip: one statement whose WITH clause holds
// the configuration and meta writes and one INSERT of every request-log row (of several writes
// of one id, key or of the configuration, the last: it replaces the others anyway), and whose
// main query books every ledger entry through sy_book in queue order (its answers, 0 for an
// entry already booked, are read back). Values are literals formatted by the driver, as QPSQL
// itself sends the parameters of a prepared statement. On success `ended` holds the reservations
// the charges ended; on an error nothing of `batch` was written.
std::optional<QString> writePostgresBatch(QSqlDatabase &db, const PostgresIdentity &self, const std::vector<WriteOp> &batch,
                                          BatchOutcome &outcome, std::vector<quint64> &ended);

} // namespace sy::storage
