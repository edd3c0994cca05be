#pragma once
// The statements PostgresWorker runs on its connection (the batch of queued writes is
// PostgresBatch.h's): an admission through sy_reserve, the end and the
// renewal of reservations, the configuration's version, and the retention of the request log
// (PostgresSchema.h has the functions and tables). Each returns its result or the server's reason;
// none keeps a statement or a transaction open past its return, so a connection dropped after a
// failure leaves nothing behind. Internal to PostgresStore.
//
// Thread: the thread that owns the connection passed in (the storage thread).
#include "storage/SqliteWrites.h"
#include "storage/StoredTypes.h"

#include <QSqlDatabase>
#include <QStringList>

#include <chrono>
#include <optional>
#include <variant>
#include <vector>

namespace sy::storage {

// Names this gateway's rows in the shared tables: `instanceId`:number.
struct PostgresIdentity {
    QString instanceId;
    QString reservationKey(quint64 id) const { return instanceId + QLatin1Char(':') + QString::number(id); }
};

// sy_reserve for `reservation` under a lease of `lease`; the verdict (never Unavailable) or the error.
std::variant<SharedAdmission, QString> reserveShared(QSqlDatabase &db, const PostgresIdentity &self,
                                                     const StoredReservation &reservation, std::chrono::milliseconds lease);

// Deletes the reservations `ids` of this gateway (ended without a charge).
std::optional<QString> deleteReservations(QSqlDatabase &db, const PostgresIdentity &self, const std::vector<quint64> &ids);

// Extends the lease of the reservations `ids` to now + `lease`, then deletes every gateway's
// reservations that expired more than a minute ago (those of gateways that died).
std::optional<QString> renewReservations(QSqlDatabase &db, const PostgresIdentity &self, const QList<quint64> &ids,
                                         std::chrono::milliseconds lease);

// The stored configuration's version and whether this gateway wrote it.
std::variant<StoredConfigVersion, QString> readConfigVersion(QSqlDatabase &db, const PostgresIdentity &self);

// Deletes the requests older than `maxAgeDays` and all but the `maxCount` newest (by `at`, then
// `id`), in one transaction: how many, or the error (nothing deleted).
std::variant<int, QString> trimSharedRequestLog(QSqlDatabase &db, RetentionPolicy policy, const QDateTime &nowUtc);

} // namespace sy::storage
