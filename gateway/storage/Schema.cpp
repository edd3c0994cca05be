#include "storage/Schema.h"

#include "storage/StoredTypes.h"

#include <QSqlError>
#include <QSqlQuery>

namespace sy::storage {

const std::vector<Migration> &schemaMigrations()
{
    static const std::vector<Migration> steps{
        {1,
         {
             QStringLiteral("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)"),
             QStringLiteral("CREATE TABLE config(id INTEGER PRIMARY KEY CHECK(id = 1),"
                            " document TEXT NOT NULL, updated_at TEXT)"),
             QStringLiteral("CREATE TABLE ledger(sequence INTEGER PRIMARY KEY, at TEXT NOT NULL,"
                            " kind TEXT NOT NULL CHECK(kind IN ('charge', 'topup')), request_id TEXT,"
                            " key_name TEXT, model_id TEXT, channel_id TEXT,"
                            " prompt_tokens INTEGER NOT NULL DEFAULT 0,"
                            " completion_tokens INTEGER NOT NULL DEFAULT 0,"
                            " amount_nanos INTEGER NOT NULL, note TEXT)"),
             // Exactly-once charges: one charge per request id, enforced by the database so a
             // replay after a crash cannot double-book. Top-ups carry no request id.
             QStringLiteral("CREATE UNIQUE INDEX ledger_charge_once ON ledger(request_id)"
                            " WHERE kind = 'charge'"),
             QStringLiteral("CREATE TABLE request_log(id TEXT PRIMARY KEY, at TEXT NOT NULL, key_name TEXT,"
                            " model TEXT, status INTEGER, failed_over INTEGER, record TEXT)"),
             // One index per filter of the admin API, each ending in `at` for newest-first pages;
             // request_log_at also serves retention by age and by count.
             QStringLiteral("CREATE INDEX request_log_at ON request_log(at)"),
             QStringLiteral("CREATE INDEX request_log_key_at ON request_log(key_name, at)"),
             QStringLiteral("CREATE INDEX request_log_model_at ON request_log(model, at)"),
             QStringLiteral("CREATE INDEX request_log_status_at ON request_log(status, at)"),
             QStringLiteral("CREATE INDEX request_log_failed_over_at ON request_log(failed_over, at)"),
         }},
        // 2: message contents of a request (settings.log_message_content); NULL when not logged.
        {2, {QStringLiteral("ALTER TABLE request_log ADD COLUMN content TEXT")}},
        // 3: fewer index updates per logged request. The status and failed_over filters match
        // either most rows (200, not failed over: found by walking request_log_at newest first)
        // or few (failures, failovers: these partial indexes, which only such rows update). So a
        // successful request updates the table and four indexes (id, at, key, model), not six.
        {3,
         {
             // IF EXISTS: files made by hand at version 1 may lack them.
             QStringLiteral("DROP INDEX IF EXISTS request_log_status_at"),
             QStringLiteral("DROP INDEX IF EXISTS request_log_failed_over_at"),
             QStringLiteral("CREATE INDEX request_log_failed_at ON request_log(at) WHERE status >= 400"),
             QStringLiteral("CREATE INDEX request_log_failed_over_at ON request_log(at) WHERE failed_over = 1"),
         }},
        // 4: the ledger log (LedgerLogFiles.h) names its database by this id, made once here, so
        // that it is durable before any entry of the log names it. A program older than this
        // version ignores the log, and would lose the charges it holds: it refuses the file.
        {4,
         {
             QStringLiteral("INSERT OR IGNORE INTO meta(key, value) VALUES('ledger_log_id', lower(hex(randomblob(16))))"),
         }},
    };
    return steps;
}

std::variant<int, QString> readSchemaVersion(const QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")))
        return query.lastError().text();
    if (!query.next())
        return 0;
    query.finish();
    if (!query.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?")))
        return query.lastError().text();
    query.addBindValue(QString::fromLatin1(kMetaSchemaVersion));
    if (!query.exec())
        return query.lastError().text();
    if (!query.next())
        return 0;
    bool ok = false;
    const int version = query.value(0).toString().toInt(&ok);
    if (!ok || version < 0)
        return QStringLiteral("unreadable schema_version '%1'").arg(query.value(0).toString());
    return version;
}

std::optional<QString> checkIntegrity(const QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA integrity_check")))
        return query.lastError().text();
    QStringList problems;
    while (query.next())
        problems << query.value(0).toString();
    if (problems == QStringList{QStringLiteral("ok")})
        return std::nullopt;
    if (problems.isEmpty())
        return QStringLiteral("integrity check returned nothing");
    return problems.mid(0, 3).join(QStringLiteral("; "));
}

std::optional<QString> migrate(QSqlDatabase &db, const std::vector<Migration> &steps)
{
    const int target = steps.empty() ? 0 : steps.back().version;
    if (!db.transaction())
        return db.lastError().text();
    auto fail = [&db](const QString &message) -> std::optional<QString> {
        db.rollback();
        return message;
    };
    // Read inside the transaction so the version cannot change between the check and the steps.
    const auto current = readSchemaVersion(db);
    if (const QString *error = std::get_if<QString>(&current))
        return fail(*error);
    const int version = std::get<int>(current);
    if (version > target)
        return fail(QStringLiteral("the database has schema version %1, newer than this program's %2;"
                                   " use a newer Switchyard")
                        .arg(version)
                        .arg(target));
    if (version == target) {
        db.rollback();  // nothing written
        return std::nullopt;
    }
    for (const Migration &step : steps) {
        if (step.version <= version)
            continue;
        for (const QString &statement : step.statements) {
            QSqlQuery query(db);
            if (!query.exec(statement))
                return fail(QStringLiteral("migration to version %1 failed: %2 (%3)")
                                .arg(step.version)
                                .arg(query.lastError().text(), statement.left(80)));
        }
    }
    {
        QSqlQuery query(db);
        query.prepare(QStringLiteral("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
        query.addBindValue(QString::fromLatin1(kMetaSchemaVersion));
        query.addBindValue(QString::number(target));
        if (!query.exec())
            return fail(QStringLiteral("cannot store the schema version: %1").arg(query.lastError().text()));
    }
    if (!db.commit())
        return fail(db.lastError().text());
    return std::nullopt;
}

} // namespace sy::storage
