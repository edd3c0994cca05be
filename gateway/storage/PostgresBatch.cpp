#include "storage/PostgresBatch.h"

#include "storage/PostgresConnection.h"
#include "storage/PostgresLiterals.h"
#include "storage/Schema.h"
#include "storage/SqlValues.h"

#include <QHash>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>

Q_DECLARE_LOGGING_CATEGORY(lcPostgres)

namespace sy::storage {

namespace {

constexpr qsizetype kIgnoredSamples = 5;

using Literals = PostgresLiterals;

// One INSERT of every row, for a WITH clause.
QString insertRequests(const Literals &literal, const std::vector<const StoredRequest *> &requests)
{
    QString sql = QLatin1String("INSERT INTO request_log(id, at, key_name, model, status, failed_over, record, content) VALUES");
    bool first = true;
    for (const StoredRequest *request : requests) {
        sql += first ? QLatin1String("(") : QLatin1String(",(");
        first = false;
        sql += literal.utf8(request->id) + QLatin1Char(',') + literal.text(toStoredTime(request->at)) + QLatin1Char(',')
               + literal.text(request->keyName) + QLatin1Char(',') + literal.text(request->model) + QLatin1Char(',')
               + Literals::integer(request->status) + QLatin1Char(',') + Literals::integer(int(request->failedOver))
               + QLatin1Char(',') + literal.utf8(request->json) + QLatin1Char(',')
               + (request->content.isEmpty() ? QStringLiteral("NULL") : literal.utf8(request->content)) + QLatin1Char(')');
    }
    sql += QLatin1String(" ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at, key_name = EXCLUDED.key_name,"
                         " model = EXCLUDED.model, status = EXCLUDED.status, failed_over = EXCLUDED.failed_over,"
                         " record = EXCLUDED.record, content = EXCLUDED.content");
    return sql;
}

// The main query: sy_book for each entry, numbered. UNION ALL runs its branches one after the
// other, in order, so sequences are issued in the order of the queue. Without entries, a query
// of no rows (the WITH clause's statements run all the same).
QString bookings(const Literals &literal, const PostgresIdentity &self, const std::vector<const StoredLedgerEntry *> &entries)
{
    if (entries.empty())
        return QStringLiteral("SELECT 0, 0 WHERE false");
    QString sql;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const StoredLedgerEntry &entry = *entries[i];
        if (i > 0)
            sql += QLatin1String(" UNION ALL ");
        sql += QLatin1String("SELECT ") + QString::number(i) + QLatin1String(", sy_book(")
               + literal.text(self.reservationKey(entry.sequence)) + QLatin1Char(',')
               + literal.text(toStoredTime(entry.at)) + QLatin1Char(',') + literal.text(entry.kind) + QLatin1Char(',')
               + literal.textOrNull(entry.requestId) + QLatin1Char(',') + literal.text(entry.keyName) + QLatin1Char(',')
               + literal.text(entry.modelId) + QLatin1Char(',') + literal.text(entry.channelId) + QLatin1Char(',')
               + Literals::integer(entry.promptTokens) + QLatin1Char(',') + Literals::integer(entry.completionTokens)
               + QLatin1Char(',') + Literals::integer(entry.amountNanos) + QLatin1Char(',') + literal.text(entry.note)
               + QLatin1Char(',')
               + (entry.reservation ? literal.text(self.reservationKey(entry.reservation)) : QStringLiteral("NULL::text"))
               + QLatin1Char(')');
    }
    return sql;
}

} // namespace

std::optional<QString> writePostgresBatch(QSqlDatabase &db, const PostgresIdentity &self, const std::vector<WriteOp> &batch,
                                          BatchOutcome &outcome, std::vector<quint64> &ended)
{
    const QSqlDriver *driver = db.driver();
    if (!driver || !db.isOpen())
        return QStringLiteral("not connected");
    const Literals literal(driver);

    // The last write of each request id, meta key and of the configuration: one statement may
    // change a row only once, and the last write replaces the earlier ones anyway.
    QHash<QByteArray, std::size_t> lastOfId;
    QHash<QString, std::size_t> lastOfKey;
    std::optional<std::size_t> lastConfig;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        if (const auto *request = std::get_if<StoredRequest>(&batch[i]))
            lastOfId.insert(request->id, i);
        else if (const auto *meta = std::get_if<MetaWrite>(&batch[i]))
            lastOfKey.insert(meta->key, i);
        else if (std::holds_alternative<ConfigWrite>(batch[i]))
            lastConfig = i;
    }
    QStringList writes;  // the WITH clause's statements
    std::vector<const StoredRequest *> requests;
    std::vector<const StoredLedgerEntry *> entries;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const WriteOp &op = batch[i];
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
            if (entry->kind != QLatin1String(kLedgerCharge) && entry->kind != QLatin1String(kLedgerTopUp)) {
                qCWarning(lcPostgres) << "rejected ledger entry" << entry->sequence << "of unknown kind" << entry->kind;
                ++outcome.rejected;
                continue;
            }
            entries.push_back(entry);
        } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
            if (lastOfId.value(request->id) == i)
                requests.push_back(request);
        } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
            if (lastConfig != i)
                continue;
            writes << QLatin1String("INSERT INTO config(id, document, updated_at, version, writer) VALUES(1, ")
                          + (config->json.isEmpty() ? literal.text(QStringLiteral("")) : literal.utf8(config->json))
                          + QLatin1Char(',') + literal.text(toStoredTime(config->at)) + QLatin1String(", 1, ")
                          + literal.text(self.instanceId)
                          + QLatin1String(") ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document,"
                                          " updated_at = EXCLUDED.updated_at, version = config.version + 1,"
                                          " writer = EXCLUDED.writer");
        } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
            if (meta->key == QLatin1String(kMetaSchemaVersion) || meta->key.isEmpty()) {
                qCWarning(lcPostgres) << "rejected meta write of reserved key" << meta->key;
                ++outcome.rejected;
                continue;
            }
            if (lastOfKey.value(meta->key) != i)
                continue;
            writes << QLatin1String("INSERT INTO meta(key, value) VALUES(") + literal.text(meta->key) + QLatin1Char(',')
                          + literal.text(meta->value)
                          + QLatin1String(") ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value");
        }
    }
    if (!requests.empty())
        writes << insertRequests(literal, requests);
    if (writes.isEmpty() && entries.empty())
        return std::nullopt;  // only rejected items

    // One statement, so one round trip and one transaction, and the driver reports its error
    // (of a query of several statements it would read only the first one's result). Not
    // forward-only: the driver then takes the whole result, or the error, before exec() returns.
    QString sql;
    for (qsizetype i = 0; i < writes.size(); ++i)
        sql += (i == 0 ? QLatin1String("WITH ") : QLatin1String(", ")) + QLatin1Char('w') + QString::number(i)
               + QLatin1String(" AS (") + writes[i] + QLatin1Char(')');
    if (!sql.isEmpty())
        sql += QLatin1Char(' ');
    sql += bookings(literal, self, entries);
    QSqlQuery query(db);
    if (!query.exec(sql))
        return reasonOf(query.lastError());
    std::size_t answered = 0;
    while (query.next()) {
        const std::size_t index = std::size_t(query.value(0).toLongLong());
        if (index >= entries.size())
            continue;
        ++answered;
        const StoredLedgerEntry &entry = *entries[index];
        if (query.value(1).toLongLong() == 0) {
            if (outcome.ignoredSamples.size() < kIgnoredSamples)
                outcome.ignoredSamples << QStringLiteral("entry %1, request %2").arg(entry.sequence).arg(entry.requestId);
            ++outcome.ignoredLedgerEntries;
        }
        if (entry.reservation)
            ended.push_back(entry.reservation);
    }
    if (query.lastError().isValid())
        return reasonOf(query.lastError());
    if (answered != entries.size())
        qCWarning(lcPostgres) << "booked" << entries.size() << "ledger entries but read" << answered << "answers";
    return std::nullopt;
}

} // namespace sy::storage
