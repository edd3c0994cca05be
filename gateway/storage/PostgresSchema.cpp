#include "storage/PostgresSchema.h"

#include "storage/Schema.h"
#include "storage/StoredTypes.h"

#include <QSqlError>
#include <QSqlQuery>

namespace sy::storage {

namespace {

// Any constant: the key of the advisory lock migrations hold.
constexpr qint64 kMigrationLock = 0x5377'6974'6368'7964;  // "Switchyd"

constexpr char kReserve[] = R"SQL(
CREATE FUNCTION sy_reserve(p_id TEXT, p_instance TEXT, p_key TEXT, p_estimate BIGINT, p_metered BOOLEAN,
                           p_opening BIGINT, p_spend_limit BIGINT, p_lease_ms INTEGER) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    net BIGINT;
    reserved BIGINT;
    key_reserved BIGINT;
    spent BIGINT;
BEGIN
    -- The lock first: every later statement sees what the admissions and bookings before ours
    -- committed (READ COMMITTED takes a new snapshot per statement).
    SELECT topups_nanos - charges_nanos INTO net FROM money WHERE id = 1 FOR UPDATE;
    SELECT COALESCE(SUM(amount_nanos), 0), COALESCE(SUM(amount_nanos) FILTER (WHERE key_name = p_key), 0)
      INTO reserved, key_reserved FROM reservations WHERE expires_at > clock_timestamp();
    IF p_metered AND p_opening + net - reserved <= 0 THEN
        RETURN 'insufficient_balance';
    END IF;
    IF p_spend_limit IS NOT NULL THEN
        SELECT COALESCE((SELECT spent_nanos FROM key_spend WHERE key_name = p_key), 0) INTO spent;
        IF p_spend_limit - spent - key_reserved <= 0 THEN
            RETURN 'spend_limit_reached';
        END IF;
    END IF;
    INSERT INTO reservations(id, instance_id, key_name, amount_nanos, expires_at)
        VALUES (p_id, p_instance, p_key, GREATEST(p_estimate, 0), clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
        ON CONFLICT (id) DO NOTHING;
    RETURN 'admitted';
END
$$)SQL";

constexpr char kBook[] = R"SQL(
CREATE FUNCTION sy_book(p_origin TEXT, p_at TEXT, p_kind TEXT, p_request TEXT, p_key TEXT, p_model TEXT,
                        p_channel TEXT, p_prompt BIGINT, p_completion BIGINT, p_amount BIGINT, p_note TEXT,
                        p_reservation TEXT) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT;
BEGIN
    -- Under the money lock: sequences are issued and committed in order, without gaps, so a
    -- reader paging by sequence never skips an entry committed late.
    PERFORM 1 FROM money WHERE id = 1 FOR UPDATE;
    IF p_reservation IS NOT NULL THEN
        DELETE FROM reservations WHERE id = p_reservation;
    END IF;
    IF EXISTS (SELECT 1 FROM ledger WHERE origin = p_origin)
       OR (p_kind = 'charge' AND p_request IS NOT NULL
           AND EXISTS (SELECT 1 FROM ledger WHERE kind = 'charge' AND request_id = p_request)) THEN
        RETURN 0;
    END IF;
    UPDATE money SET last_sequence = last_sequence + 1,
                     topups_nanos = topups_nanos + CASE WHEN p_kind = 'topup' THEN p_amount ELSE 0 END,
                     charges_nanos = charges_nanos + CASE WHEN p_kind = 'charge' THEN p_amount ELSE 0 END
        WHERE id = 1 RETURNING last_sequence INTO seq;
    INSERT INTO ledger(sequence, at, kind, request_id, key_name, model_id, channel_id, prompt_tokens,
                       completion_tokens, amount_nanos, note, origin)
        VALUES (seq, p_at, p_kind, p_request, p_key, p_model, p_channel, p_prompt, p_completion, p_amount, p_note, p_origin);
    IF p_kind = 'charge' THEN
        INSERT INTO key_spend(key_name, spent_nanos) VALUES (COALESCE(p_key, ''), p_amount)
            ON CONFLICT (key_name) DO UPDATE SET spent_nanos = key_spend.spent_nanos + EXCLUDED.spent_nanos;
    END IF;
    RETURN seq;
END
$$)SQL";

std::variant<int, QString> readVersion(const QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT to_regclass('meta') IS NOT NULL")) || !query.next())
        return query.lastError().text();
    if (!query.value(0).toBool())
        return 0;
    query.finish();
    if (!query.exec(QStringLiteral("SELECT value FROM meta WHERE key = '%1'").arg(QLatin1String(kMetaSchemaVersion))))
        return query.lastError().text();
    if (!query.next())
        return 0;
    bool ok = false;
    const int version = query.value(0).toString().toInt(&ok);
    if (!ok || version < 0)
        return QStringLiteral("unreadable schema_version '%1'").arg(query.value(0).toString());
    return version;
}

} // namespace

const std::vector<Migration> &postgresMigrations()
{
    static const std::vector<Migration> steps{
        {1,
         {
             QStringLiteral("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)"),
             // `version` counts the writes of the document and `writer` names the instance that
             // made the last one: the others see a change by polling the pair.
             QStringLiteral("CREATE TABLE config(id INTEGER PRIMARY KEY CHECK(id = 1), document TEXT NOT NULL,"
                            " updated_at TEXT, version BIGINT NOT NULL DEFAULT 1, writer TEXT)"),
             QStringLiteral("CREATE TABLE money(id INTEGER PRIMARY KEY CHECK(id = 1), last_sequence BIGINT NOT NULL,"
                            " topups_nanos BIGINT NOT NULL, charges_nanos BIGINT NOT NULL)"),
             QStringLiteral("INSERT INTO money VALUES(1, 0, 0, 0)"),
             QStringLiteral("CREATE TABLE key_spend(key_name TEXT PRIMARY KEY, spent_nanos BIGINT NOT NULL)"),
             // Times are the SQLite store's fixed-width UTC text, compared byte-wise ("C").
             QStringLiteral("CREATE TABLE ledger(sequence BIGINT PRIMARY KEY, at TEXT COLLATE \"C\" NOT NULL,"
                            " kind TEXT NOT NULL CHECK(kind IN ('charge', 'topup')), request_id TEXT,"
                            " key_name TEXT, model_id TEXT, channel_id TEXT,"
                            " prompt_tokens BIGINT NOT NULL DEFAULT 0, completion_tokens BIGINT NOT NULL DEFAULT 0,"
                            " amount_nanos BIGINT NOT NULL, note TEXT, origin TEXT UNIQUE)"),
             QStringLiteral("CREATE UNIQUE INDEX ledger_charge_once ON ledger(request_id) WHERE kind = 'charge'"),
             QStringLiteral("CREATE TABLE reservations(id TEXT PRIMARY KEY, instance_id TEXT NOT NULL,"
                            " key_name TEXT NOT NULL, amount_nanos BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)"),
             QStringLiteral("CREATE INDEX reservations_expires ON reservations(expires_at)"),
             QStringLiteral("CREATE TABLE request_log(id TEXT COLLATE \"C\" PRIMARY KEY, at TEXT COLLATE \"C\" NOT NULL,"
                            " key_name TEXT, model TEXT, status INTEGER, failed_over INTEGER, record TEXT, content TEXT)"),
             QStringLiteral("CREATE INDEX request_log_at ON request_log(at)"),
             QStringLiteral("CREATE INDEX request_log_key_at ON request_log(key_name, at)"),
             QStringLiteral("CREATE INDEX request_log_model_at ON request_log(model, at)"),
             QStringLiteral("CREATE INDEX request_log_status_at ON request_log(status, at)"),
             QStringLiteral("CREATE INDEX request_log_failed_over_at ON request_log(failed_over, at)"),
             QString::fromLatin1(kReserve),
             QString::fromLatin1(kBook),
         }},
        // 2: the request-log indexes of the SQLite schema's version 3, and `at` with `id`. The
        // status and failed_over filters match either most rows (200, not failed over: found by
        // walking request_log_at newest first) or few (failures, failovers: these partial indexes,
        // which only such rows update), so a successful request updates the table and four
        // indexes (id, at, key, model), not six. request_log_at holds (at, id), the order of the
        // listings and of retention by count: a pass finds the newest row past the cap in the
        // index alone and deletes up to it (PostgresStatements.cpp), and a listing needs no sort.
        {2,
         {
             QStringLiteral("DROP INDEX IF EXISTS request_log_status_at"),
             QStringLiteral("DROP INDEX IF EXISTS request_log_failed_over_at"),
             QStringLiteral("DROP INDEX IF EXISTS request_log_at"),
             QStringLiteral("CREATE INDEX request_log_at ON request_log(at, id)"),
             QStringLiteral("CREATE INDEX request_log_failed_at ON request_log(at) WHERE status >= 400"),
             QStringLiteral("CREATE INDEX request_log_failed_over_at ON request_log(at) WHERE failed_over = 1"),
         }},
    };
    return steps;
}

std::optional<QString> migratePostgres(QSqlDatabase &db, const std::vector<Migration> &steps)
{
    const int target = steps.empty() ? 0 : steps.back().version;
    if (!db.transaction())
        return db.lastError().text();
    auto fail = [&db](const QString &message) -> std::optional<QString> {
        db.rollback();
        return message;
    };
    {
        // No statement timeout while migrating (SET LOCAL: until this transaction ends): an
        // index built over a long request log may take longer than the connection's timeout,
        // and the gateways that start meanwhile wait for the lock as long as it takes. Cut off,
        // the migration would roll back and fail again at every start.
        QSqlQuery lock(db);
        if (!lock.exec(QStringLiteral("SET LOCAL statement_timeout = 0")))
            return fail(lock.lastError().text());
        if (!lock.exec(QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kMigrationLock)))
            return fail(lock.lastError().text());
    }
    const auto current = readVersion(db);
    if (const QString *error = std::get_if<QString>(&current))
        return fail(*error);
    const int version = std::get<int>(current);
    if (version > target)
        return fail(QStringLiteral("the database has schema version %1, newer than this program's %2;"
                                   " use a newer Switchyard")
                        .arg(version)
                        .arg(target));
    if (version == target) {
        db.rollback();
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
                                .arg(query.lastError().text(), statement.simplified().left(80)));
        }
    }
    {
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("INSERT INTO meta(key, value) VALUES('%1', '%2')"
                                       " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
                            .arg(QLatin1String(kMetaSchemaVersion))
                            .arg(target)))
            return fail(QStringLiteral("cannot store the schema version: %1").arg(query.lastError().text()));
    }
    if (!db.commit())
        return fail(db.lastError().text());
    return std::nullopt;
}

} // namespace sy::storage
