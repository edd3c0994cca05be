// The bytes writeBatch stores: every column's type and bytes are those the QSQLITE driver stored
// when each value was bound as a QVariant (text as QString, the UTF-8 byte arrays through
// QString::fromUtf8), for non-ASCII text, quotes, control characters, invalid UTF-8, NUL-free
// binary-looking bytes, empty and null values; and such text round-trips through the readers.
#include "StorageTestSupport.h"

#include "storage/Schema.h"
#include "storage/SqlValues.h"
#include "storage/SqliteWrites.h"

#include <QRandomGenerator>
#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

// The former write path: QSqlQuery with QVariant bindings. False when the batch failed (rolled back).
bool writeThroughQt(QSqlDatabase &db, const std::vector<WriteOp> &ops)
{
    if (!db.transaction())
        return false;
    for (const WriteOp &op : ops) {
        QSqlQuery query(db);
        QVariantList values;
        if (const auto *entry = std::get_if<StoredLedgerEntry>(&op)) {
            query.prepare(QStringLiteral(
                "INSERT OR IGNORE INTO ledger(sequence, at, kind, request_id, key_name, model_id, channel_id,"
                " prompt_tokens, completion_tokens, amount_nanos, note) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
            values = {qint64(entry->sequence), toStoredTime(entry->at), entry->kind, nullIfEmpty(entry->requestId),
                      entry->keyName, entry->modelId, entry->channelId, entry->promptTokens,
                      entry->completionTokens, entry->amountNanos, entry->note};
        } else if (const auto *request = std::get_if<StoredRequest>(&op)) {
            query.prepare(QStringLiteral(
                "INSERT OR REPLACE INTO request_log(id, at, key_name, model, status, failed_over, record, content)"
                " VALUES(?, ?, ?, ?, ?, ?, ?, ?)"));
            values = {QString::fromUtf8(request->id), toStoredTime(request->at), request->keyName, request->model,
                      request->status, int(request->failedOver), QString::fromUtf8(request->json),
                      nullIfEmpty(QString::fromUtf8(request->content))};
        } else if (const auto *config = std::get_if<ConfigWrite>(&op)) {
            query.prepare(QStringLiteral("INSERT OR REPLACE INTO config(id, document, updated_at) VALUES(1, ?, ?)"));
            values = {config->json.isEmpty() ? QString(QLatin1String("")) : QString::fromUtf8(config->json),
                      toStoredTime(config->at)};
        } else if (const auto *meta = std::get_if<MetaWrite>(&op)) {
            query.prepare(QStringLiteral("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
            values = {meta->key, meta->value};
        }
        for (int i = 0; i < values.size(); ++i)
            query.bindValue(i, values[i]);
        if (!query.exec()) {
            query.finish();
            db.rollback();
            return false;
        }
    }
    return db.commit();
}

// Every row of the written tables, each column as "type:hex".
QStringList dump(const QSqlDatabase &db)
{
    QStringList rows;
    const char *tables[][2] = {
        {"request_log", "id, at, key_name, model, status, failed_over, record, content"},
        {"ledger", "sequence, at, kind, request_id, key_name, model_id, channel_id, prompt_tokens,"
                   " completion_tokens, amount_nanos, note"},
        {"config", "id, document, updated_at"},
        {"meta", "key, value"},
    };
    for (const auto &[table, columns] : tables) {
        const QStringList names = QString::fromLatin1(columns).split(QStringLiteral(", "));
        QStringList selected;
        for (const QString &name : names)
            selected << QStringLiteral("typeof(%1) || ':' || hex(%1)").arg(name.trimmed());
        QSqlQuery query(db);
        // The ledger-log id is random per database: the one row two databases never share.
        const QString where = QLatin1String(table) == QLatin1String("meta")
                                  ? QStringLiteral(" WHERE key <> '%1'").arg(QLatin1String(kMetaLedgerLogId))
                                  : QString();
        EXPECT_TRUE(query.exec(QStringLiteral("SELECT %1 FROM %2%3 ORDER BY rowid")
                                   .arg(selected.join(QStringLiteral(", ")), QLatin1String(table), where)))
            << query.lastError().text().toStdString();
        while (query.next()) {
            QStringList row{QLatin1String(table)};
            for (int i = 0; i < names.size(); ++i)
                row << query.value(i).toString();
            rows << row.join(QLatin1Char('|'));
        }
    }
    return rows;
}

class Database {
public:
    explicit Database(const QString &path) : m_name(QStringLiteral("bytes-%1").arg(path))
    {
        m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        m_db.setDatabaseName(path);
        EXPECT_TRUE(m_db.open());
        EXPECT_EQ(migrate(m_db, schemaMigrations()), std::nullopt);
    }
    ~Database()
    {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
    }
    QSqlDatabase &db() { return m_db; }

private:
    QString m_name;
    QSqlDatabase m_db;
};

QByteArray randomNulFreeBytes(QRandomGenerator &random, int size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (char &c : bytes)
        c = char(random.bounded(1, 256));
    return bytes;
}

std::vector<QByteArray> byteSamples()
{
    std::vector<QByteArray> samples{
        QByteArray(),  // null
        QByteArray(""),
        "plain ascii",
        R"({"a":"quote \" and backslash \\","b":[1,2.5,-3e7],"c":null})",
        "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 end",  // é, 日本, an emoji (4-byte)
        "tab\tnewline\ncontrol\x01\x1f del\x7f",
        "\xEF\xBB\xBF" "after a byte order mark",
        "\xEF\xBB\xBF",
        "invalid \xFF byte",
        "truncated \xE6\x97",
        "overlong \xC0\x80 slash \xC0\xAF",
        "encoded surrogate \xED\xA0\x80\xED\xB0\x80",
        "above U+10FFFF \xF4\x90\x80\x80",
        "noncharacters \xEF\xBF\xBE \xEF\xBF\xBF",
        "\xC3",
    };
    QRandomGenerator random(20261129);
    for (int i = 0; i < 200; ++i)
        samples.push_back(randomNulFreeBytes(random, int(random.bounded(1, 64))));
    return samples;
}

std::vector<QString> stringSamples()
{
    return {QString(),
            QString(QLatin1String("")),
            QStringLiteral("team-key"),
            QStringLiteral("caf\u00e9 \u65e5\u672c \"quoted\" back\\slash"),
            QString::fromUtf8("\xF0\x9F\x98\x80 emoji"),
            QString(QChar(0xD800)) + QStringLiteral(" lone high surrogate"),
            QStringLiteral("lone low ") + QChar(0xDC00),
            QStringLiteral("control \x01\t\n")};
}

std::vector<WriteOp> sampleOps()
{
    std::vector<WriteOp> ops;
    const std::vector<QByteArray> bytes = byteSamples();
    const std::vector<QString> strings = stringSamples();
    const QDateTime times[] = {baseTime(), QDateTime(QDate(2025, 6, 1), QTime(14, 30, 1, 7), Qt::OffsetFromUTC, 7200),
                               QDateTime(QDate(1, 1, 1), QTime(0, 0), Qt::UTC),
                               QDateTime(QDate(9999, 12, 31), QTime(23, 59, 59, 999), Qt::UTC)};
    for (size_t i = 0; i < bytes.size(); ++i) {
        StoredRequest request;
        request.id = i % 3 == 0 ? bytes[i] : "req-" + QByteArray::number(qulonglong(i)) + "-" + bytes[i];
        request.at = times[i % std::size(times)];
        request.keyName = strings[i % strings.size()];
        request.model = strings[(i + 3) % strings.size()];
        request.status = int(200 + i);
        request.failedOver = i % 2;
        request.json = bytes[(i + 1) % bytes.size()];
        request.content = bytes[(i + 2) % bytes.size()];
        ops.emplace_back(std::move(request));
    }
    for (size_t i = 0; i < strings.size(); ++i) {
        StoredLedgerEntry entry = i % 2 ? charge(i + 1, strings[i]) : topUp(i + 1, qint64(i) * 1000, strings[i]);
        entry.keyName = strings[(i + 1) % strings.size()];
        entry.modelId = strings[(i + 2) % strings.size()];
        entry.channelId = strings[(i + 3) % strings.size()];
        entry.at = times[i % std::size(times)];
        ops.emplace_back(entry);
        ops.emplace_back(MetaWrite{QStringLiteral("key-%1-").arg(i) + strings[i], strings[(i + 4) % strings.size()]});
    }
    for (size_t i = 2; i < 8; ++i)
        ops.emplace_back(ConfigWrite{bytes[i], times[i % std::size(times)]});
    return ops;
}

TEST(SqliteWritesBytesTest, StoresTheBytesTheQtDriverStored)
{
    QTemporaryDir dir;
    Database viaQt(dir.filePath(QStringLiteral("qt.db")));
    Database viaWrites(dir.filePath(QStringLiteral("writes.db")));
    const std::vector<WriteOp> ops = sampleOps();

    ASSERT_TRUE(writeThroughQt(viaQt.db(), ops));
    // In two batches on statements kept across them, as the storage thread writes.
    WriteStatements statements;
    const auto middle = ops.begin() + qsizetype(ops.size() / 2);
    for (const std::vector<WriteOp> &batch : {std::vector<WriteOp>(ops.begin(), middle), std::vector<WriteOp>(middle, ops.end())}) {
        const auto outcome = writeBatch(viaWrites.db(), batch, statements);
        ASSERT_TRUE(std::holds_alternative<BatchOutcome>(outcome)) << std::get<QString>(outcome).toStdString();
    }
    statements.finalize();

    const QStringList expected = dump(viaQt.db());
    const QStringList actual = dump(viaWrites.db());
    ASSERT_GT(expected.size(), 200);
    ASSERT_EQ(actual.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        EXPECT_EQ(actual[i].toStdString(), expected[i].toStdString()) << "row " << i;
    // Text columns stay TEXT (or NULL), never BLOB.
    EXPECT_FALSE(actual.join(QLatin1Char('\n')).contains(QLatin1String("blob:")));
}

// Items the former path could not store (an invalid time, an empty configuration) fail or succeed
// the same way, each alone in its batch.
TEST(SqliteWritesBytesTest, EdgeItemsHaveTheOutcomeTheyHadBefore)
{
    StoredRequest noTime = request("no-time", QDateTime());
    StoredRequest farFuture = request("far", QDateTime(QDate(12345, 1, 1), QTime(0, 0), Qt::UTC));
    StoredRequest beforeYearOne = request("early", QDateTime(QDate(-5, 1, 1), QTime(0, 0), Qt::UTC));
    StoredLedgerEntry ledgerNoTime = topUp(1, 10);
    ledgerNoTime.at = QDateTime();
    const std::vector<WriteOp> items{noTime, farFuture, beforeYearOne, ledgerNoTime, ConfigWrite{QByteArray(), baseTime()},
                                     ConfigWrite{QByteArray(""), baseTime()}, ConfigWrite{"{}", QDateTime()},
                                     MetaWrite{QStringLiteral("k"), QString()}};
    for (size_t i = 0; i < items.size(); ++i) {
        QTemporaryDir dir;
        Database viaQt(dir.filePath(QStringLiteral("qt.db")));
        Database viaWrites(dir.filePath(QStringLiteral("writes.db")));
        const bool before = writeThroughQt(viaQt.db(), {items[i]});
        WriteStatements statements;   // finalized before viaWrites closes
        const auto now = writeBatch(viaWrites.db(), {items[i]}, statements);
        EXPECT_EQ(std::holds_alternative<BatchOutcome>(now), before) << "item " << i;
        EXPECT_EQ(dump(viaWrites.db()), dump(viaQt.db())) << "item " << i;
    }
}

TEST(SqliteWritesBytesTest, NonAsciiAndBinaryLookingTextRoundTripsThroughTheReaders)
{
    QTemporaryDir dir;
    auto store = openStore(dir.filePath(QStringLiteral("switchyard.db")));
    ASSERT_TRUE(store);
    QRandomGenerator random(7);
    std::vector<StoredRequest> written;
    for (int i = 0; i < 50; ++i) {
        // Valid UTF-8 survives byte for byte: random code points (no surrogates), quotes, escapes.
        QString text = QStringLiteral("\"q\" \\ caf\u00e9 ");
        for (int n = 0; n < 20; ++n) {
            char32_t c = char32_t(random.bounded(1, 0x110000));
            if (c >= 0xD800 && c < 0xE000)
                c = 0xFFFD;
            text += QString::fromUcs4(&c, 1);
        }
        StoredRequest r = request("rt-" + QByteArray::number(i), baseTime().addMSecs(i), text,
                                  QStringLiteral("m\u00f6del/") + QString::number(i));
        r.json = R"({"error":")" + text.toUtf8() + R"(","n":)" + QByteArray::number(i) + "}";
        r.content = text.toUtf8();
        written.push_back(r);
        store->appendRequest(r);
    }
    ASSERT_TRUE(store->flush());
    for (const StoredRequest &r : written) {
        const auto read = store->request(r.id);
        ASSERT_TRUE(read) << r.id.constData();
        EXPECT_EQ(*read, r) << r.id.constData();
    }
    const auto listed = store->queryRequests({QString(), QString(), std::nullopt, false, std::nullopt, 100, {}});
    ASSERT_EQ(listed.size(), written.size());
    EXPECT_EQ(listed.front().json, written.back().json);
    EXPECT_EQ(listed.front().keyName, written.back().keyName);

    StoredRequestFilter byKey;
    byKey.keyName = written[3].keyName;
    const auto filtered = store->queryRequests(byKey);
    ASSERT_EQ(filtered.size(), 1u);
    EXPECT_EQ(filtered.front().id, written[3].id);
}

TEST(SqliteWritesBytesTest, StatementsAreReusedAcrossBatchesAndFinalizedBeforeClose)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    {
        auto store = openStore(path, SqliteStoreOptions{std::chrono::hours(1), 1'000'000, std::chrono::hours(1)});
        ASSERT_TRUE(store);
        for (int i = 0; i < 3; ++i) {
            store->appendRequest(request("b" + QByteArray::number(i), baseTime().addSecs(i)));
            store->appendLedger(topUp(quint64(i + 1), 10));
            ASSERT_TRUE(store->flush());
        }
        EXPECT_EQ(store->stats().transactions, 3u);
    }  // closing must succeed with the statements kept: the file reopens cleanly
    auto reopened = openStore(path);
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->queryRequests({}).size(), 3u);
    EXPECT_EQ(reopened->ledgerEntries(0).size(), 3u);
}

} // namespace
} // namespace sy::storage::test
