#include "storage/SqliteReads.h"

#include "storage/SqlValues.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>

#include <algorithm>

namespace sy::storage {

namespace {

constexpr char kRequestColumns[] = "SELECT id, at, key_name, model, status, failed_over, record FROM request_log";
// One request with its message contents (listings leave them out: they can be large).
constexpr char kRequestWithContent[] =
    "SELECT id, at, key_name, model, status, failed_over, record, content FROM request_log";

StoredRequest requestFromRow(const QSqlQuery &query)
{
    StoredRequest request;
    request.id = query.value(0).toString().toUtf8();
    request.at = fromStoredTime(query.value(1).toString());
    request.keyName = query.value(2).toString();
    request.model = query.value(3).toString();
    request.status = query.value(4).toInt();
    request.failedOver = query.value(5).toInt() != 0;
    request.json = query.value(6).toString().toUtf8();
    if (query.record().count() > 7 && !query.value(7).isNull())
        request.content = query.value(7).toString().toUtf8();
    return request;
}

StoredLedgerEntry ledgerFromRow(const QSqlQuery &query)
{
    StoredLedgerEntry entry;
    entry.sequence = quint64(query.value(0).toLongLong());
    entry.at = fromStoredTime(query.value(1).toString());
    entry.kind = query.value(2).toString();
    entry.requestId = query.value(3).toString();
    entry.keyName = query.value(4).toString();
    entry.modelId = query.value(5).toString();
    entry.channelId = query.value(6).toString();
    entry.promptTokens = query.value(7).toLongLong();
    entry.completionTokens = query.value(8).toLongLong();
    entry.amountNanos = query.value(9).toLongLong();
    entry.note = query.value(10).toString();
    return entry;
}

} // namespace

ReadResult<std::optional<QByteArray>> readConfig(const QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT document FROM config WHERE id = 1")))
        return query.lastError().text();
    if (!query.next())
        return std::optional<QByteArray>();
    return std::optional<QByteArray>(query.value(0).toString().toUtf8());
}

ReadResult<std::optional<QString>> readMeta(const QSqlDatabase &db, const QString &key)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    query.addBindValue(key);
    if (!query.exec())
        return query.lastError().text();
    if (!query.next())
        return std::optional<QString>();
    return std::optional<QString>(query.value(0).toString());
}

ReadResult<std::vector<StoredLedgerEntry>> readLedger(const QSqlDatabase &db, quint64 afterSequence, int limit)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    QString sql = QStringLiteral("SELECT sequence, at, kind, request_id, key_name, model_id, channel_id,"
                                 " prompt_tokens, completion_tokens, amount_nanos, note FROM ledger"
                                 " WHERE sequence > ? ORDER BY sequence");
    if (limit > 0)
        sql += QStringLiteral(" LIMIT ?");
    query.prepare(sql);
    query.addBindValue(qint64(afterSequence));
    if (limit > 0)
        query.addBindValue(limit);
    if (!query.exec())
        return query.lastError().text();
    std::vector<StoredLedgerEntry> entries;
    while (query.next())
        entries.push_back(ledgerFromRow(query));
    return entries;
}

RequestQuery requestQuery(const StoredRequestFilter &filter)
{
    QStringList conditions;
    QVariantList values;
    if (!filter.keyName.isEmpty()) {
        conditions << QStringLiteral("key_name = ?");
        values << filter.keyName;
    }
    if (!filter.model.isEmpty()) {
        conditions << QStringLiteral("model = ?");
        values << filter.model;
    }
    // The literal terms `status >= 400` and `failed_over = 1` are what lets SQLite use the
    // partial indexes request_log_failed_at and request_log_failed_over_at (Schema.cpp, version
    // 3): a partial index serves a query only when its WHERE term appears in the query as written,
    // not through a bound value. PostgresStore runs the same query on its indexes of the same
    // names (PostgresSchema.cpp, version 2), where the terms do the same for a generic plan.
    if (filter.status) {
        conditions << QStringLiteral("status = ?");
        values << *filter.status;
    }
    if (filter.failedOnly || (filter.status && *filter.status >= 400))
        conditions << QStringLiteral("status >= 400");
    if (filter.failedOver)
        conditions << (*filter.failedOver ? QStringLiteral("failed_over = 1") : QStringLiteral("failed_over = 0"));
    if (filter.beforeAt.isValid()) {
        conditions << QStringLiteral("at < ?");
        values << toStoredTime(filter.beforeAt);
    }
    QString sql = QString::fromLatin1(kRequestColumns);
    if (!conditions.isEmpty())
        sql += QStringLiteral(" WHERE ") + conditions.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY at DESC, id DESC LIMIT ?");
    values << std::clamp(filter.limit, 1, StoredRequestFilter::kMaxLimit);

    return {sql, values};
}

ReadResult<std::vector<StoredRequest>> readRequests(const QSqlDatabase &db, const StoredRequestFilter &filter)
{
    const auto [sql, values] = requestQuery(filter);
    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        return query.lastError().text();
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec())
        return query.lastError().text();
    std::vector<StoredRequest> requests;
    while (query.next())
        requests.push_back(requestFromRow(query));
    return requests;
}

ReadResult<std::optional<StoredRequest>> readRequest(const QSqlDatabase &db, const QByteArray &id)
{
    QSqlQuery query(db);
    query.prepare(QString::fromLatin1(kRequestWithContent) + QStringLiteral(" WHERE id = ?"));
    query.addBindValue(QString::fromUtf8(id));
    if (!query.exec())
        return query.lastError().text();
    if (!query.next())
        return std::optional<StoredRequest>();
    return std::optional<StoredRequest>(requestFromRow(query));
}

} // namespace sy::storage
