#pragma once
// Helpers of the storage tests: sample rows, opening a store with a failure message, and a raw
// connection that looks at the database file directly, apart from the store under test.
#include "storage/LedgerLogFiles.h"
#include "storage/LedgerLogRecord.h"
#include "storage/SqliteStore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

namespace sy::storage::test {

inline QDateTime baseTime()
{
    return QDateTime(QDate(2025, 1, 1), QTime(12, 0), Qt::UTC);
}

inline StoredLedgerEntry charge(quint64 sequence, const QString &requestId, qint64 amountNanos = 1'500)
{
    return StoredLedgerEntry{sequence, baseTime().addSecs(qint64(sequence)), QString::fromLatin1(kLedgerCharge),
                             requestId, QStringLiteral("team-key"), QStringLiteral("gpt-4o-mini"),
                             QStringLiteral("openai-main"), 120, 48, amountNanos, QString()};
}

inline StoredLedgerEntry topUp(quint64 sequence, qint64 amountNanos, const QString &note = QStringLiteral("top-up"))
{
    return StoredLedgerEntry{sequence, baseTime().addSecs(qint64(sequence)), QString::fromLatin1(kLedgerTopUp),
                             QString(), QString(), QString(), QString(), 0, 0, amountNanos, note};
}

inline StoredRequest request(const QByteArray &id, const QDateTime &at, const QString &key = QStringLiteral("team-key"),
                             const QString &model = QStringLiteral("gpt-4o-mini"), int status = 200,
                             bool failedOver = false)
{
    const QByteArray json = "{\"id\":\"" + id + "\",\"status\":" + QByteArray::number(status) + "}";
    return StoredRequest{id, at, key, model, status, failedOver, json};
}

inline QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The bytes of whole records the ledger log of the database at `databasePath` holds (its files
// without their headers and the zeros of their room, LedgerLogFiles.h). 0 once emptied.
inline qint64 ledgerLogRecordBytes(const QString &databasePath)
{
    qint64 bytes = 0;
    for (const QString &path : LedgerLogFiles::paths(databasePath)) {
        const QByteArray held = fileBytes(path);
        if (held.size() > kLedgerLogHeaderSize)
            bytes += readLedgerLogRecords(QByteArrayView(held).sliced(kLedgerLogHeaderSize)).validBytes;
    }
    return bytes;
}

// Context switches of this process's thread named `name` (its OS name, at most 15 bytes), or -1
// when there is none. `voluntaryOnly`: only its waits (for work, for the disk); the involuntary
// ones depend on what else runs on the core.
inline qint64 contextSwitchesOf(const QByteArray &name, bool voluntaryOnly = false)
{
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(task + QStringLiteral("/comm")));
        if (!comm.open(QIODevice::ReadOnly) || comm.readAll().trimmed() != name)
            continue;
        QFile status(tasks.filePath(task + QStringLiteral("/status")));
        if (!status.open(QIODevice::ReadOnly))
            return -1;
        qint64 switches = 0;
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("voluntary_ctxt_switches") || (!voluntaryOnly && line.startsWith("nonvoluntary_ctxt_switches")))
                switches += line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
        }
        return switches;
    }
    return -1;
}

// The checkpoint sequence number in the header of `path`'s WAL (bytes 12-15, big-endian): SQLite
// adds one each time the WAL starts over. 0 without a WAL.
inline quint32 walCheckpointSequence(const QString &path)
{
    QFile file(path + QStringLiteral("-wal"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray header = file.read(16);
    if (header.size() < 16)
        return 0;
    const auto byte = [&header](int i) { return quint32(quint8(header[i])); };
    return byte(12) << 24 | byte(13) << 16 | byte(14) << 8 | byte(15);
}

// Runs this test binary again as a child, with `variable` set to `databasePath` and only the test
// `childTest` (Suite.Name), which is to print `marker` and kill itself with SIGKILL. Records a
// failure unless it did; returns its output.
inline QByteArray runKilledChild(const char *variable, const QString &databasePath, const char *childTest,
                                 const char *marker)
{
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString::fromLatin1(variable), databasePath);
    child.setProcessEnvironment(environment);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--gtest_filter=") + QLatin1String(childTest)});
    EXPECT_TRUE(child.waitForStarted(10'000));
    EXPECT_TRUE(child.waitForFinished(60'000));
    const QByteArray output = child.readAll();
    EXPECT_TRUE(output.contains(marker)) << output.toStdString();
    EXPECT_EQ(child.exitStatus(), QProcess::CrashExit) << output.toStdString();
    return output;
}

// Opens a store, recording the refusal as a test failure (then returns null).
inline std::unique_ptr<SqliteStore> openStore(const QString &path, const SqliteStoreOptions &options = {})
{
    auto opened = SqliteStore::open(path, options);
    if (auto *refusal = std::get_if<QString>(&opened)) {
        ADD_FAILURE() << "open refused: " << refusal->toStdString();
        return nullptr;
    }
    return std::move(std::get<std::unique_ptr<SqliteStore>>(opened));
}

// A connection of the test thread to the file, bypassing the store. Read-only unless asked.
class RawDatabase {
public:
    explicit RawDatabase(const QString &path, bool readOnly = true)
        : m_name(QStringLiteral("raw-%1").arg(counter().fetch_add(1)))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        if (readOnly)
            db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        if (!db.open())
            ADD_FAILURE() << "raw open failed: " << db.lastError().text().toStdString();
    }
    ~RawDatabase()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    RawDatabase(const RawDatabase &) = delete;
    RawDatabase &operator=(const RawDatabase &) = delete;

    bool exec(const QString &sql)
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        if (!query.exec(sql)) {
            ADD_FAILURE() << "raw exec failed: " << sql.toStdString() << ": "
                          << query.lastError().text().toStdString();
            return false;
        }
        return true;
    }
    // The first column of the first row, as text; empty when there is no row.
    QString scalar(const QString &sql)
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        if (!query.exec(sql)) {
            ADD_FAILURE() << "raw query failed: " << sql.toStdString() << ": "
                          << query.lastError().text().toStdString();
            return {};
        }
        return query.next() ? query.value(0).toString() : QString();
    }
    int count(const QString &table) { return scalar(QStringLiteral("SELECT count(*) FROM ") + table).toInt(); }
    QSqlDatabase database() const { return QSqlDatabase::database(m_name, false); }

private:
    static std::atomic<int> &counter()
    {
        static std::atomic<int> value{0};
        return value;
    }
    QString m_name;
};

} // namespace sy::storage::test
