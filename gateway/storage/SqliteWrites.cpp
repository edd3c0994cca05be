#include "storage/SqliteWrites.h"

#include "storage/SqlValues.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

#include <optional>

Q_LOGGING_CATEGORY(lcStorageWrites, "switchyard.storage")

namespace sy::storage {

namespace {

// Prepares each statement once per batch, on first use.
class Statements {
public:
    explicit Statements(const QSqlDatabase &db) : m_db(db) {}

    QSqlQuery *get(int index, const char *sql)
    {
        std::optional<QSqlQuery> &slot = m_queries[index];
        if (!slot) {
            slot.emplace(m_db);
            if (!slot->prepare(QString::fromLatin1(sql))) {
                m_error = slot->lastError().text();
                return nullptr;
            }
        }
        return &*slot;
    }
    const QString &error() const { return m_error; }

private:
    const QSqlDatabase &m_db;
    std::optional<QSqlQuery> m_queries[4];
    QString m_error;
};

constexpr qsizetype kIgnoredSamples = 5;

constexpr char kInsertLedger[] =
    "INSERT OR IGNORE INTO ledger(sequence, at, kind, request_id, key_name, model_id, channel_id,"
    " prompt_tokens, completion_tokens, amount_nanos, note) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr char kInsertRequest[] =
    "INSERT OR REPLACE INTO request_log(id, at, key_name, model, status, failed_over, record, content)"
    " VALUES(?, ?, ?, ?, ?, ?, ?, ?)";
constexpr char kSaveConfig[] = "INSERT OR REPLACE INTO config(id, document, updated_at) VALUES(1, ?, ?)";
constexpr char kSetMeta[] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)";

bool bindAndExec(QSqlQuery &query, std::initializer_list<QVariant> values)
{
    int index = 0;
    for (const QVariant &value : values)
        query.bindValue(index++, value);
    return query.exec();
}

} // namespace

std::variant<BatchOutcome, QString> writeBatch(QSqlDatabase &db, const std::vector<WriteOp> &ops)
{
    if (!db.transaction())
        return db.lastError().text();
    BatchOutcome outcome;
    std::optional<QString> error;
    {
        Statements statements(db);  // destroyed before commit: no statement may be in progress
        for (const WriteOp &op : ops) {
            QSqlQuery *query = nullptr;
            bool ok = true;
            if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
                if (entry->kind != QLatin1String(kLedgerCharge) && entry->kind != QLatin1String(kLedgerTopUp)) {
                    qCWarning(lcStorageWrites) << "rejected ledger entry" << entry->sequence
                                               << "of unknown kind" << entry->kind;
                    ++outcome.rejected;
                    continue;
                }
                if (!(query = statements.get(0, kInsertLedger)))
                    break;
                ok = bindAndExec(*query, {qint64(entry->sequence), toStoredTime(entry->at), entry->kind,
                                          nullIfEmpty(entry->requestId), entry->keyName, entry->modelId,
                                          entry->channelId, entry->promptTokens, entry->completionTokens,
                                          entry->amountNanos, entry->note});
                if (ok && query->numRowsAffected() == 0) {
                    if (outcome.ignoredSamples.size() < kIgnoredSamples)
                        outcome.ignoredSamples << QStringLiteral("sequence %1, request %2")
                                                      .arg(entry->sequence)
                                                      .arg(entry->requestId);
                    ++outcome.ignoredLedgerEntries;
                }
            } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
                if (!(query = statements.get(1, kInsertRequest)))
                    break;
                ok = bindAndExec(*query, {QString::fromUtf8(request->id), toStoredTime(request->at),
                                          request->keyName, request->model, request->status,
                                          int(request->failedOver), QString::fromUtf8(request->json),
                                          nullIfEmpty(QString::fromUtf8(request->content))});
            } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
                if (!(query = statements.get(2, kSaveConfig)))
                    break;
                // fromUtf8 of an empty array is a null string, which would violate NOT NULL.
                const QString document = config->json.isEmpty() ? QString(QLatin1String(""))
                                                                : QString::fromUtf8(config->json);
                ok = bindAndExec(*query, {document, toStoredTime(config->at)});
            } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
                if (meta->key == QLatin1String(kMetaSchemaVersion) || meta->key.isEmpty()) {
                    qCWarning(lcStorageWrites) << "rejected meta write of reserved key" << meta->key;
                    ++outcome.rejected;
                    continue;
                }
                if (!(query = statements.get(3, kSetMeta)))
                    break;
                ok = bindAndExec(*query, {meta->key, meta->value});
            }
            if (!ok) {
                error = query->lastError().text();
                break;
            }
        }
        if (!error && !statements.error().isEmpty())
            error = statements.error();
    }
    if (!error && !db.commit())
        error = db.lastError().text();
    if (error) {
        db.rollback();
        return *error;
    }
    return outcome;
}

std::variant<int, QString> trimRequestLog(QSqlDatabase &db, RetentionPolicy policy, const QDateTime &nowUtc)
{
    if (policy.maxAgeDays <= 0 && policy.maxCount <= 0)
        return 0;
    if (!db.transaction())
        return db.lastError().text();
    int deleted = 0;
    std::optional<QString> error;
    {
        QSqlQuery query(db);
        if (policy.maxAgeDays > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE at < ?"));
            query.addBindValue(toStoredTime(nowUtc.addDays(-policy.maxAgeDays)));
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = query.lastError().text();
        }
        if (!error && policy.maxCount > 0) {
            query.prepare(QStringLiteral("DELETE FROM request_log WHERE id IN (SELECT id FROM request_log"
                                         " ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?)"));
            query.addBindValue(policy.maxCount);
            if (query.exec())
                deleted += query.numRowsAffected();
            else
                error = query.lastError().text();
        }
    }
    if (!error && !db.commit())
        error = db.lastError().text();
    if (error) {
        db.rollback();
        return *error;
    }
    return deleted;
}

} // namespace sy::storage
