#include "storage/PostgresStatements.h"

#include "storage/PostgresConnection.h"
#include "storage/PostgresLiterals.h"
#include "storage/Schema.h"
#include "storage/SqlValues.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

Q_DECLARE_LOGGING_CATEGORY(lcPostgres)

namespace sy::storage {

namespace {

// A PostgreSQL array literal of reservation keys (no quoting needed: they are uuid:number).
QString textArray(const QStringList &items)
{
    return QLatin1Char('{') + items.join(QLatin1Char(',')) + QLatin1Char('}');
}

// Deletes all but the `maxCount` newest requests (by `at`, then `id`, both descending). The
// newest row past the cap is entry `maxCount` of request_log_at, which holds (at, id), read from
// its new end without the table (an index-only scan); the rows up to it in that order are the
// ones to go, found on the same index from its old end. The statement this replaces (`DELETE …
// WHERE id IN (SELECT id … ORDER BY at DESC, id DESC OFFSET cap)`) read every row of the table on
// each pass, also when nothing was past the cap. Counting first (count(*), then the boundary from
// the old end) measured the same: count(*) reads a whole index too, and both look up in the table
// the entries the visibility map does not vouch for (the rows written since the last vacuum: the
// newest). docs/benchmarks/storage.md, "2026-12-02, the PostgreSQL request log", has the figures.
//
// Two statements, each with its own snapshot: a row written between them by another gateway
// only moves the rows up to the boundary further past the cap, so they are still the ones to go.
std::variant<int, QString> trimToNewest(QSqlDatabase &db, int maxCount)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT at, id FROM request_log ORDER BY at DESC, id DESC OFFSET ? LIMIT 1"));
    query.addBindValue(maxCount);
    if (!query.exec())
        return reasonOf(query.lastError());
    if (!query.next()) {
        if (query.lastError().isValid())
            return reasonOf(query.lastError());
        return 0;  // not past the cap
    }
    const QString at = query.value(0).toString();
    const QString id = query.value(1).toString();
    query.finish();
    // A bound (at, id) rather than a subquery: the planner then knows how many rows it leaves
    // and walks the index (a subquery's row, unknown when planning, made it scan the table).
    query.prepare(QStringLiteral("DELETE FROM request_log WHERE (at, id) <= (?, ?)"));
    query.addBindValue(at);
    query.addBindValue(id);
    if (!query.exec())
        return reasonOf(query.lastError());
    return query.numRowsAffected();
}

} // namespace

std::variant<SharedAdmission, QString> reserveShared(QSqlDatabase &db, const PostgresIdentity &self,
                                                     const StoredReservation &r, std::chrono::milliseconds lease)
{
    // One round trip: this runs for every request, on the gateway thread's wait.
    const QSqlDriver *driver = db.driver();
    if (!driver || !db.isOpen())
        return QStringLiteral("not connected");
    const PostgresLiterals literal(driver);
    QSqlQuery query(db);
    const QString sql = QLatin1String("SELECT sy_reserve(") + literal.text(self.reservationKey(r.id)) + QLatin1Char(',')
                        + literal.text(self.instanceId) + QLatin1Char(',') + literal.text(r.keyName) + QLatin1Char(',')
                        + PostgresLiterals::integer(r.estimateNanos) + QLatin1Char(',')
                        + PostgresLiterals::boolean(r.openingBalanceNanos.has_value()) + QLatin1Char(',')
                        + PostgresLiterals::integer(r.openingBalanceNanos.value_or(0)) + QLatin1Char(',')
                        + (r.spendLimitNanos ? PostgresLiterals::integer(*r.spendLimitNanos) : QStringLiteral("NULL"))
                        + QLatin1String("::bigint,") + PostgresLiterals::integer(lease.count()) + QLatin1String("::integer)");
    if (!query.exec(sql) || !query.next())
        return reasonOf(query.lastError());
    const QString verdict = query.value(0).toString();
    if (verdict == QLatin1String("admitted"))
        return SharedAdmission::Admitted;
    if (verdict == QLatin1String("spend_limit_reached"))
        return SharedAdmission::SpendLimitReached;
    return SharedAdmission::InsufficientBalance;
}

std::optional<QString> deleteReservations(QSqlDatabase &db, const PostgresIdentity &self, const std::vector<quint64> &ids)
{
    QStringList keys;
    for (quint64 id : ids)
        keys << self.reservationKey(id);
    QSqlQuery query(db);
    query.prepare(QStringLiteral("DELETE FROM reservations WHERE id = ANY(?::text[])"));
    query.addBindValue(textArray(keys));
    if (!query.exec())
        return reasonOf(query.lastError());
    return std::nullopt;
}

std::optional<QString> renewReservations(QSqlDatabase &db, const PostgresIdentity &self, const QList<quint64> &ids,
                                         std::chrono::milliseconds lease)
{
    QSqlQuery query(db);
    if (!ids.isEmpty()) {
        QStringList keys;
        for (quint64 id : ids)
            keys << self.reservationKey(id);
        query.prepare(QStringLiteral("UPDATE reservations SET expires_at = clock_timestamp() + ? * INTERVAL '1 millisecond'"
                                     " WHERE id = ANY(?::text[])"));
        query.addBindValue(int(lease.count()));
        query.addBindValue(textArray(keys));
        if (!query.exec())
            return reasonOf(query.lastError());
    }
    if (!query.exec(QStringLiteral("DELETE FROM reservations WHERE expires_at < clock_timestamp() - INTERVAL '1 minute'")))
        return reasonOf(query.lastError());
    return std::nullopt;
}

std::variant<StoredConfigVersion, QString> readConfigVersion(QSqlDatabase &db, const PostgresIdentity &self)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT version, writer FROM config WHERE id = 1")))
        return reasonOf(query.lastError());
    if (!query.next())
        return StoredConfigVersion{};
    return StoredConfigVersion{query.value(0).toLongLong(), query.value(1).toString() == self.instanceId};
}

std::variant<int, QString> trimSharedRequestLog(QSqlDatabase &db, RetentionPolicy policy, const QDateTime &nowUtc)
{
    int deleted = 0;
    std::optional<QString> error;
    if (!db.transaction())
        error = reasonOf(db.lastError());
    if (!error && policy.maxAgeDays > 0) {
        QSqlQuery query(db);
        query.prepare(QStringLiteral("DELETE FROM request_log WHERE at < ?"));
        query.addBindValue(toStoredTime(nowUtc.addDays(-policy.maxAgeDays)));
        if (query.exec())
            deleted += query.numRowsAffected();
        else
            error = reasonOf(query.lastError());
    }
    if (!error && policy.maxCount > 0) {
        if (const auto trimmed = trimToNewest(db, policy.maxCount); std::holds_alternative<QString>(trimmed))
            error = std::get<QString>(trimmed);
        else
            deleted += std::get<int>(trimmed);
    }
    if (!error && !db.commit())
        error = reasonOf(db.lastError());
    if (error) {
        db.rollback();
        return *error;
    }
    return deleted;
}

} // namespace sy::storage
