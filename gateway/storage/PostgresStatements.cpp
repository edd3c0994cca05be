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
    {
        QSqlQuery query(db);
        if (!error && policy.maxAgeDays > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE at < ?"));
            query.addBindValue(toStoredTime(nowUtc.addDays(-policy.maxAgeDays)));
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = reasonOf(query.lastError());
        }
        if (!error && policy.maxCount > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE id IN (SELECT id FROM request_log"
                                         " ORDER BY at DESC, id DESC OFFSET ?)"));
            query.addBindValue(policy.maxCount);
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = reasonOf(query.lastError());
        }
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
