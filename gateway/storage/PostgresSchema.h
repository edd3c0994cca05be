#pragma once
// The versioned schema of a shared PostgreSQL database and its migrations. The version is the
// `schema_version` row of `meta` (0: no such table or row: an empty database); it counts
// independently of the SQLite schema's. A database newer than this program is refused, never
// changed. Besides the tables of the SQLite store it holds the money that several gateways share:
// `money` (the running totals and the ledger's last sequence: one row, the lock every booking and
// admission takes), `key_spend`, and `reservations` (the estimates of requests in flight, each
// under a lease), with the functions that decide on them in one statement each:
//
//   sy_reserve(id, instance, key, estimate, metered, opening, spend_limit, lease_ms) → 'admitted'
//       | 'insufficient_balance' | 'spend_limit_reached'   (SPEC §8's admission, counting every
//       instance's unexpired reservations)
//   sy_book(origin, at, kind, request_id, key, model, channel, prompt, completion, amount, note,
//           reservation) → the entry's sequence, or 0 when it was booked before (same origin, or
//           a charge for the same request id); ends the reservation either way.
//
// Internal to PostgresStore. Thread: the thread that owns the connection passed in.
#include <QSqlDatabase>
#include <QStringList>

#include <optional>
#include <variant>
#include <vector>

namespace sy::storage {

struct Migration;

// The version this program writes; the last entry of postgresMigrations().
inline constexpr int kPostgresSchemaVersion = 2;

const std::vector<Migration> &postgresMigrations();

// Brings the database to the last version of `steps` in one transaction under an advisory lock
// (gateways starting together migrate once: the others wait for the lock, then find the new
// version), with no statement timeout. A newer database is refused untouched, with a message
// naming both versions. A gateway of the previous version that runs meanwhile waits for the
// transaction where it touches a table the migration changes (version 2: the request log's
// reads and writes) and then goes on; it refuses to start again on the newer database.
std::optional<QString> migratePostgres(QSqlDatabase &db, const std::vector<Migration> &steps);

} // namespace sy::storage
