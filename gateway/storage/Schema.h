#pragma once
// The versioned schema of the SQLite database and the migrations that build it. The version is
// the `schema_version` row of `meta` (0: no such row, e.g. an empty database). A database newer
// than this program is refused, never changed. Internal to SqliteStore.
//
// Thread: the thread that owns the connection passed in (Qt SQL connections are thread-affine).
#include <QSqlDatabase>
#include <QStringList>

#include <optional>
#include <variant>
#include <vector>

namespace sy::storage {

// One step from version-1 to `version`: SQL statements run in order.
struct Migration {
    int version = 0;
    QStringList statements;
};

// The version this program writes; the last entry of schemaMigrations().
inline constexpr int kSchemaVersion = 4;

// Every step from an empty database to kSchemaVersion, in increasing version order. Append a step
// for a schema change; never edit a released one.
const std::vector<Migration> &schemaMigrations();

// The database's schema version, or a message when it cannot be read or is not a number.
std::variant<int, QString> readSchemaVersion(const QSqlDatabase &db);

// `PRAGMA integrity_check`: nullopt when the database is sound, else what is wrong.
std::optional<QString> checkIntegrity(const QSqlDatabase &db);

// Brings the database to the last version of `steps`: applies the steps above its version in one
// transaction, then stores the new version. On any error the transaction is rolled back and the
// message returned. A database already newer than the last step is refused untouched.
std::optional<QString> migrate(QSqlDatabase &db, const std::vector<Migration> &steps);

} // namespace sy::storage
