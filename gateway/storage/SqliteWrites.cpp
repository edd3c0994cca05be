#include "storage/SqliteWrites.h"

#include "core/JsonText.h"
#include "storage/SqlValues.h"

#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>

#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

Q_LOGGING_CATEGORY(lcStorageWrites, "switchyard.storage")

namespace sy::storage {

namespace {

constexpr qsizetype kIgnoredSamples = 5;

constexpr char kInsertLedger[] =
    "INSERT OR IGNORE INTO ledger(sequence, at, kind, request_id, key_name, model_id, channel_id,"
    " prompt_tokens, completion_tokens, amount_nanos, note) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr char kInsertRequest[] =
    "INSERT OR REPLACE INTO request_log(id, at, key_name, model, status, failed_over, record, content)"
    " VALUES(?, ?, ?, ?, ?, ?, ?, ?)";

// kInsertRequest with kRequestsPerInsert rows. SQLite inserts them in order, so a later row of
// the same id replaces an earlier one as separate statements would.
const char *insertRequestsSql()
{
    static const std::string sql = [] {
        std::string text = kInsertRequest;
        for (int i = 1; i < kRequestsPerInsert; ++i)
            text += ", (?, ?, ?, ?, ?, ?, ?, ?)";
        return text;
    }();
    return sql.c_str();
}
constexpr char kSaveConfig[] = "INSERT OR REPLACE INTO config(id, document, updated_at) VALUES(1, ?, ?)";
constexpr char kSetMeta[] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)";

// The messages are spelled as the QSQLITE driver spells them ("<sqlite message> <what failed>").
QString sqliteError(sqlite3 *handle, const char *what)
{
    QString text = QString::fromUtf8(sqlite3_errmsg(handle));
    if (!text.isEmpty())
        text += QLatin1Char(' ');
    return text + QLatin1String(what);
}

// Binds parameters 1, 2, … of one statement. The stored values are those the QSQLITE driver
// stores for the QVariants this code bound before: a null QString is NULL, any other QString is
// TEXT (bound as UTF-16, as the driver does); UTF-8 bytes that QString::fromUtf8 would decode
// without change are bound as they are, anything else goes through fromUtf8 as before.
class Binder {
public:
    explicit Binder(sqlite3_stmt *statement) : m_statement(statement) {}

    void text(const QString &value)
    {
        if (value.isNull())
            return null();
        check(sqlite3_bind_text16(m_statement, ++m_index, value.utf16(), int(value.size() * sizeof(QChar)),
                                  SQLITE_STATIC));
    }
    // A temporary QString, kept until the statement has run.
    void ownedText(QString value) { text(keep(std::move(value))); }
    // nullIfEmpty(value)
    void textOrNull(const QString &value)
    {
        if (value.isEmpty())
            return null();
        text(value);
    }
    // The bytes as QString::fromUtf8(bytes) stored them.
    void utf8(const QByteArray &bytes)
    {
        if (bytes.isEmpty() || !storesUnchanged(bytes))
            return text(keep(QString::fromUtf8(bytes)));
        bindUtf8(bytes);
    }
    // nullIfEmpty(QString::fromUtf8(bytes))
    void utf8OrNull(const QByteArray &bytes)
    {
        if (bytes.isEmpty() || !storesUnchanged(bytes))
            return textOrNull(keep(QString::fromUtf8(bytes)));
        bindUtf8(bytes);
    }
    // toStoredTime(at): written here as UTF-8 in the common case (valid, years 1..9999), anything
    // else bound as before.
    void time(const QDateTime &at)
    {
        QByteArray text;
        if (!at.isValid() || !json::appendUtcIsoDateWithMs(text, at.toUTC()))
            return ownedText(toStoredTime(at));
        // Kept until the step: the bytes stay where they are when the vector moves the array.
        m_times.push_back(std::move(text));
        const QByteArray &kept = m_times.back();
        check(sqlite3_bind_text(m_statement, ++m_index, kept.constData(), int(kept.size()), SQLITE_STATIC));
    }
    void integer(qint64 value) { check(sqlite3_bind_int64(m_statement, ++m_index, value)); }
    void null() { check(sqlite3_bind_null(m_statement, ++m_index)); }

    bool ok() const { return m_rc == SQLITE_OK; }

private:
    void bindUtf8(const QByteArray &bytes)
    {
        check(sqlite3_bind_text(m_statement, ++m_index, bytes.constData(), int(bytes.size()), SQLITE_STATIC));
    }
    // fromUtf8 decodes valid UTF-8 without change, but drops a leading byte order mark.
    static bool storesUnchanged(const QByteArray &bytes)
    {
        if (bytes.startsWith("\xEF\xBB\xBF"))
            return false;
        return QByteArrayView(bytes).isValidUtf8();
    }
    const QString &keep(QString value)
    {
        // Bound with SQLITE_STATIC: must outlive the step (the characters stay where they are
        // when the vector moves the string).
        m_kept.push_back(std::move(value));
        return m_kept.back();
    }
    void check(int rc)
    {
        if (m_rc == SQLITE_OK)
            m_rc = rc;
    }

    sqlite3_stmt *m_statement;
    int m_index = 0;
    int m_rc = SQLITE_OK;
    std::vector<QString> m_kept;
    std::vector<QByteArray> m_times;
};

// Runs a bound statement to completion; resets it and drops its bindings (which may point into
// values that are about to go away). Returns the error message, none on success.
std::optional<QString> step(sqlite3 *handle, sqlite3_stmt *statement, const Binder &binder)
{
    std::optional<QString> error;
    if (!binder.ok()) {
        error = sqliteError(handle, "Unable to bind parameters");
    } else if (const int rc = sqlite3_step(statement); rc != SQLITE_DONE && rc != SQLITE_ROW) {
        sqlite3_reset(statement);
        error = sqliteError(handle, "Unable to fetch row");
    }
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    return error;
}


} // namespace

sqlite3 *sqliteHandleOf(const QSqlDatabase &db)
{
    const QSqlDriver *driver = db.driver();
    const QVariant handle = driver ? driver->handle() : QVariant();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    return *static_cast<sqlite3 *const *>(handle.constData());
}

void WriteStatements::finalize()
{
    for (sqlite3_stmt *&statement : m_statements) {
        sqlite3_finalize(statement);  // a no-op on null
        statement = nullptr;
    }
    m_handle = nullptr;
}

sqlite3_stmt *WriteStatements::get(sqlite3 *handle, int index, const char *sql, std::optional<QString> &error)
{
    if (handle != m_handle) {
        finalize();
        m_handle = handle;
    }
    sqlite3_stmt *&statement = m_statements[index];
    if (!statement && sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) != SQLITE_OK) {
        error = sqliteError(handle, "Unable to execute statement");
        sqlite3_finalize(statement);
        statement = nullptr;
    }
    return statement;
}

namespace {

void bindRequest(Binder &bind, const StoredRequest &request)
{
    bind.utf8(request.id);
    bind.time(request.at);
    bind.text(request.keyName);
    bind.text(request.model);
    bind.integer(request.status);
    bind.integer(int(request.failedOver));
    bind.utf8(request.json);
    bind.utf8OrNull(request.content);
}

} // namespace

std::variant<BatchOutcome, QString> writeBatch(QSqlDatabase &db, const std::vector<WriteOp> &ops,
                                              WriteStatements &statements)
{
    sqlite3 *const handle = sqliteHandleOf(db);
    if (!handle)
        return QStringLiteral("not an open SQLite connection");
    if (!db.transaction())
        return db.lastError().text();
    BatchOutcome outcome;
    std::optional<QString> error;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const WriteOp &op = ops[i];
        // A run of kRequestsPerInsert requests: one statement.
        if (i + kRequestsPerInsert <= ops.size()
            && std::all_of(ops.begin() + std::ptrdiff_t(i), ops.begin() + std::ptrdiff_t(i + kRequestsPerInsert),
                           [](const WriteOp &next) { return std::holds_alternative<StoredRequest>(next); })) {
            sqlite3_stmt *statement = statements.get(handle, 4, insertRequestsSql(), error);
            if (!statement)
                break;
            Binder bind(statement);
            for (int row = 0; row < kRequestsPerInsert; ++row)
                bindRequest(bind, std::get<StoredRequest>(ops[i + std::size_t(row)]));
            if ((error = step(handle, statement, bind)))
                break;
            i += kRequestsPerInsert - 1;
            continue;
        }
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
            if (entry->kind != QLatin1String(kLedgerCharge) && entry->kind != QLatin1String(kLedgerTopUp)) {
                qCWarning(lcStorageWrites) << "rejected ledger entry" << entry->sequence << "of unknown kind"
                                           << entry->kind;
                ++outcome.rejected;
                continue;
            }
            sqlite3_stmt *statement = statements.get(handle, 0, kInsertLedger, error);
            if (!statement)
                break;
            Binder bind(statement);
            bind.integer(qint64(entry->sequence));
            bind.time(entry->at);
            bind.text(entry->kind);
            bind.textOrNull(entry->requestId);
            bind.text(entry->keyName);
            bind.text(entry->modelId);
            bind.text(entry->channelId);
            bind.integer(entry->promptTokens);
            bind.integer(entry->completionTokens);
            bind.integer(entry->amountNanos);
            bind.text(entry->note);
            if ((error = step(handle, statement, bind)))
                break;
            if (sqlite3_changes(handle) == 0) {
                if (outcome.ignoredSamples.size() < kIgnoredSamples)
                    outcome.ignoredSamples << QStringLiteral("sequence %1, request %2")
                                                  .arg(entry->sequence)
                                                  .arg(entry->requestId);
                ++outcome.ignoredLedgerEntries;
            }
        } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
            sqlite3_stmt *statement = statements.get(handle, 1, kInsertRequest, error);
            if (!statement)
                break;
            Binder bind(statement);
            bindRequest(bind, *request);
            if ((error = step(handle, statement, bind)))
                break;
        } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
            sqlite3_stmt *statement = statements.get(handle, 2, kSaveConfig, error);
            if (!statement)
                break;
            Binder bind(statement);
            // As before: fromUtf8 of an empty array is a null string, which would violate NOT NULL.
            if (config->json.isEmpty())
                bind.ownedText(QString(QLatin1String("")));
            else
                bind.utf8(config->json);
            bind.time(config->at);
            if ((error = step(handle, statement, bind)))
                break;
        } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
            if (meta->key == QLatin1String(kMetaSchemaVersion) || meta->key.isEmpty()) {
                qCWarning(lcStorageWrites) << "rejected meta write of reserved key" << meta->key;
                ++outcome.rejected;
                continue;
            }
            sqlite3_stmt *statement = statements.get(handle, 3, kSetMeta, error);
            if (!statement)
                break;
            Binder bind(statement);
            bind.text(meta->key);
            bind.text(meta->value);
            if ((error = step(handle, statement, bind)))
                break;
        }
    }
    if (!error && !db.commit())
        error = db.lastError().text();
    if (error) {
        db.rollback();
        return *error;
    }
    return outcome;
}

namespace {

// Prepares `sql` on `query`, binds `values` in order and runs it: the error, if any.
std::optional<QString> execWith(QSqlQuery &query, const QString &sql, const QVariantList &values)
{
    query.prepare(sql);
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec())
        return query.lastError().text();
    return std::nullopt;
}

// The first column of the one row `sql` answers (an integer or text), or the error.
std::variant<QVariant, QString> scalar(QSqlDatabase &db, const QString &sql, const QVariantList &values)
{
    QSqlQuery query(db);
    if (auto error = execWith(query, sql, values))
        return *error;
    return query.next() ? query.value(0) : QVariant();
}

std::variant<int, QString> execDelete(QSqlDatabase &db, const QString &sql, const QVariantList &values)
{
    QSqlQuery query(db);
    if (auto error = execWith(query, sql, values))
        return *error;
    return query.numRowsAffected();
}

// Deletes all but the `maxCount` newest requests (by `at`, then `id`, both descending). Reads the
// `at` index from its old end, as far as the rows past the cap: what `ORDER BY at DESC, id DESC`
// over the table did (the id of every row, to sort by it) read every page of the table on each
// pass, about 16,000 of them at 100,000 rows, also when nothing was past the cap.
std::variant<int, QString> trimToNewest(QSqlDatabase &db, int maxCount)
{
    // count(*) counts the cells of an index's pages without reading them one by one.
    const auto total = scalar(db, QStringLiteral("SELECT count(*) FROM request_log"), {});
    if (const QString *error = std::get_if<QString>(&total))
        return *error;
    const qint64 past = std::get<QVariant>(total).toLongLong() - maxCount;  // rows to delete
    if (past <= 0)
        return 0;
    // The `at` of the newest row past the cap: rows older than it all go.
    const auto boundary = scalar(db, QStringLiteral("SELECT at FROM request_log ORDER BY at LIMIT 1 OFFSET ?"),
                                 {past - 1});
    if (const QString *error = std::get_if<QString>(&boundary))
        return *error;
    const QString at = std::get<QVariant>(boundary).toString();
    const auto older = execDelete(db, QStringLiteral("DELETE FROM request_log WHERE at < ?"), {at});
    if (const QString *error = std::get_if<QString>(&older))
        return *error;
    const int deleted = std::get<int>(older);
    // Of that `at` (which may have rows on both sides of the cap), the lowest ids make up the rest.
    const auto tied = execDelete(db,
                                 QStringLiteral("DELETE FROM request_log WHERE id IN (SELECT id FROM request_log"
                                                " WHERE at = ? ORDER BY id LIMIT ?)"),
                                 {at, past - deleted});
    if (const QString *error = std::get_if<QString>(&tied))
        return *error;
    return deleted + std::get<int>(tied);
}

} // namespace

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
            if (const auto trimmed = trimToNewest(db, policy.maxCount); std::holds_alternative<QString>(trimmed))
                error = std::get<QString>(trimmed);
            else
                deleted += std::get<int>(trimmed);
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
