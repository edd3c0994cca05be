// What a retention pass by count reads: the request log's `at` index, not every row of the table
// (the pass runs once a tenth of the cap was written, so a read of the whole table each time cost
// about 1.6 page reads per logged request at 100,000 rows), and it still keeps exactly the newest
// rows by time, then id.
#include "StorageTestSupport.h"

#include "storage/SqlValues.h"
#include "storage/SqliteWrites.h"

#include <QFile>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>

using namespace std::chrono_literals;

namespace sy::storage::test {
namespace {

constexpr int kRows = 3'000;
constexpr int kTied = 5;  // rows per `at`

QByteArray idOf(int row)
{
    // Scrambled against the insertion order, so ties are broken by the id, not by the rowid.
    return "req_" + QByteArray::number((row * 7919) % kRows).rightJustified(5, '0');
}

QDateTime atOf(int row)
{
    return baseTime().addMSecs(row / kTied);
}

// Pages the connection had to read (from the file or the WAL) since the last call.
int pagesRead(sqlite3 *handle)
{
    int current = 0;
    int highest = 0;
    sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, 1);
    return current;
}

TEST(SqliteRetentionPassTest, APassReadsTheAtIndexNotTheTableAndKeepsTheNewestByTimeThenId)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    {
        auto store = openStore(path, SqliteStoreOptions{1h, 1'000'000, 1h});
        ASSERT_TRUE(store);
        // About 1.5 KB per row, as a real record with its route trace: some 1,200 table pages.
        const QByteArray padding(1'500, 'x');
        for (int row = 0; row < kRows; ++row) {
            StoredRequest logged = request(idOf(row), atOf(row));
            logged.json = "{\"id\":\"" + logged.id + "\",\"padding\":\"" + padding + "\"}";
            store->appendRequest(std::move(logged));
        }
        ASSERT_TRUE(store->flush());
    }
    std::vector<std::pair<QString, QString>> newestFirst;  // (at, id) of every row written
    for (int row = 0; row < kRows; ++row)
        newestFirst.emplace_back(toStoredTime(atOf(row)), QString::fromLatin1(idOf(row)));
    std::sort(newestFirst.begin(), newestFirst.end(), std::greater<>());

    // Within the cap, then caps that split a run of equal times (3 of the oldest 5 go; 1, 2 or 4
    // of a run) or fall between two runs (5 go), each on a copy of the file.
    for (const int cap : {kRows + 10, kRows - 3, kRows - 1, kRows - 5, kRows - 7, kRows - 9, kRows - 12}) {
        SCOPED_TRACE(cap);
        const QString copy = dir.filePath(QStringLiteral("copy-%1.db").arg(cap));
        ASSERT_TRUE(QFile::copy(path, copy));
        RawDatabase raw(copy, false);
        QSqlDatabase db = raw.database();
        sqlite3 *handle = sqliteHandleOf(db);
        ASSERT_TRUE(handle);
        const int pages = raw.scalar(QStringLiteral("PRAGMA page_count")).toInt();
        ASSERT_GT(pages, 1'000);

        pagesRead(handle);
        const auto trimmed = trimRequestLog(db, RetentionPolicy{0, cap}, baseTime());
        ASSERT_TRUE(std::holds_alternative<int>(trimmed)) << std::get<QString>(trimmed).toStdString();
        EXPECT_EQ(std::get<int>(trimmed), std::max(0, kRows - cap));
        // The index, and the few rows deleted: not the table.
        EXPECT_LT(pagesRead(handle), 100) << "of " << pages << " pages";

        QStringList expected;
        for (int i = 0; i < std::min(cap, kRows); ++i)
            expected << newestFirst[std::size_t(i)].second;
        expected.sort();
        QSqlQuery kept(db);
        ASSERT_TRUE(kept.exec(QStringLiteral("SELECT id FROM request_log ORDER BY id")));
        QStringList ids;
        while (kept.next())
            ids << kept.value(0).toString();
        EXPECT_EQ(ids, expected);
    }
}

} // namespace
} // namespace sy::storage::test
