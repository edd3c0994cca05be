#include "storage/PostgresStatements.h"

#include "storage/PostgresConnection.h"
#include "storage/Schema.h"
#include "storage/SqlValues.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

Q_DECLARE_LOGGING_CATEGORY(lcPostgres)

namespace sy::storage {

namespace {

QVariant nullText()
{
    return QVariant(QMetaType::fromType<QString>());
}

// A PostgreSQL array literal of reservation keys (no quoting needed: they are uuid:number).
QString textArray(const QStringList &items)
{
    return QLatin1Char('{') + items.join(QLatin1Char(',')) + QLatin1Char('}');
}

} // namespace

std::optional<QString> writePostgresBatch(QSqlDatabase &db, const PostgresIdentity &self, const std::vector<WriteOp> &batch,
                                          BatchOutcome &outcome, std::vector<quint64> &ended)
{
    if (!db.transaction())
        return reasonOf(db.lastError());
    QSqlQuery book(db);
    QSqlQuery insertRequest(db);
    QSqlQuery saveConfig(db);
    QSqlQuery setMeta(db);
    bool booksPrepared = false, requestsPrepared = false, configPrepared = false, metaPrepared = false;
    std::optional<QString> error;
    auto run = [&error](QSqlQuery &query) {
        if (!query.exec())
            error = reasonOf(query.lastError());
        return !error;
    };
    for (const WriteOp &op : batch) {
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
            if (entry->kind != QLatin1String(kLedgerCharge) && entry->kind != QLatin1String(kLedgerTopUp)) {
                qCWarning(lcPostgres) << "rejected ledger entry" << entry->sequence << "of unknown kind" << entry->kind;
                ++outcome.rejected;
                continue;
            }
            if (!booksPrepared && !(booksPrepared = book.prepare(QStringLiteral(
                                        "SELECT sy_book(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")))) {
                error = reasonOf(book.lastError());
                break;
            }
            book.addBindValue(self.reservationKey(entry->sequence));
            book.addBindValue(toStoredTime(entry->at));
            book.addBindValue(entry->kind);
            book.addBindValue(nullIfEmpty(entry->requestId));
            book.addBindValue(entry->keyName);
            book.addBindValue(entry->modelId);
            book.addBindValue(entry->channelId);
            book.addBindValue(entry->promptTokens);
            book.addBindValue(entry->completionTokens);
            book.addBindValue(entry->amountNanos);
            book.addBindValue(entry->note);
            book.addBindValue(entry->reservation ? QVariant(self.reservationKey(entry->reservation)) : nullText());
            if (!run(book) || !book.next()) {
                error = error.value_or(reasonOf(book.lastError()));
                break;
            }
            if (book.value(0).toLongLong() == 0) {
                if (outcome.ignoredSamples.size() < 5)
                    outcome.ignoredSamples << QStringLiteral("entry %1, request %2").arg(entry->sequence).arg(entry->requestId);
                ++outcome.ignoredLedgerEntries;
            }
            book.finish();
            if (entry->reservation)
                ended.push_back(entry->reservation);
        } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
            if (!requestsPrepared
                && !(requestsPrepared = insertRequest.prepare(QStringLiteral(
                         "INSERT INTO request_log(id, at, key_name, model, status, failed_over, record, content)"
                         " VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at,"
                         " key_name = EXCLUDED.key_name, model = EXCLUDED.model, status = EXCLUDED.status,"
                         " failed_over = EXCLUDED.failed_over, record = EXCLUDED.record, content = EXCLUDED.content")))) {
                error = reasonOf(insertRequest.lastError());
                break;
            }
            insertRequest.addBindValue(QString::fromUtf8(request->id));
            insertRequest.addBindValue(toStoredTime(request->at));
            insertRequest.addBindValue(request->keyName);
            insertRequest.addBindValue(request->model);
            insertRequest.addBindValue(request->status);
            insertRequest.addBindValue(int(request->failedOver));
            insertRequest.addBindValue(QString::fromUtf8(request->json));
            insertRequest.addBindValue(request->content.isEmpty() ? nullText() : QVariant(QString::fromUtf8(request->content)));
            if (!run(insertRequest))
                break;
        } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
            if (!configPrepared
                && !(configPrepared = saveConfig.prepare(QStringLiteral(
                         "INSERT INTO config(id, document, updated_at, version, writer) VALUES(1, ?, ?, 1, ?)"
                         " ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document,"
                         " updated_at = EXCLUDED.updated_at, version = config.version + 1, writer = EXCLUDED.writer")))) {
                error = reasonOf(saveConfig.lastError());
                break;
            }
            saveConfig.addBindValue(config->json.isEmpty() ? QStringLiteral("") : QString::fromUtf8(config->json));
            saveConfig.addBindValue(toStoredTime(config->at));
            saveConfig.addBindValue(self.instanceId);
            if (!run(saveConfig))
                break;
        } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
            if (meta->key == QLatin1String(kMetaSchemaVersion) || meta->key.isEmpty()) {
                qCWarning(lcPostgres) << "rejected meta write of reserved key" << meta->key;
                ++outcome.rejected;
                continue;
            }
            if (!metaPrepared
                && !(metaPrepared = setMeta.prepare(QStringLiteral(
                         "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")))) {
                error = reasonOf(setMeta.lastError());
                break;
            }
            setMeta.addBindValue(meta->key);
            setMeta.addBindValue(meta->value);
            if (!run(setMeta))
                break;
        }
    }
    if (!error && !db.commit())
        error = reasonOf(db.lastError());
    if (error) {
        db.rollback();
        ended.clear();
        return error;
    }
    return std::nullopt;
}

std::variant<SharedAdmission, QString> reserveShared(QSqlDatabase &db, const PostgresIdentity &self,
                                                     const StoredReservation &r, std::chrono::milliseconds lease)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT sy_reserve(?, ?, ?, ?, ?, ?, ?, ?)"));
    query.addBindValue(self.reservationKey(r.id));
    query.addBindValue(self.instanceId);
    query.addBindValue(r.keyName);
    query.addBindValue(qint64(r.estimateNanos));
    query.addBindValue(r.openingBalanceNanos.has_value());
    query.addBindValue(qint64(r.openingBalanceNanos.value_or(0)));
    query.addBindValue(r.spendLimitNanos ? QVariant(qint64(*r.spendLimitNanos)) : QVariant(QMetaType::fromType<qint64>()));
    query.addBindValue(int(lease.count()));
    if (!query.exec() || !query.next())
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
