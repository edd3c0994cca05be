// The ledger log's two files: what was appended and not reported committed comes back at the next
// open, in sequence order; what the database has leaves the files; the files stay bounded while
// the database keeps up and keep everything while it does not; a log of another database is not
// replayed; an entry the file cannot grow for is refused and leaves nothing behind.
#include "StorageTestSupport.h"
#include "storage/LedgerLogFiles.h"
#include "storage/LedgerLogRecord.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <csignal>

#include <sys/resource.h>

namespace sy::storage::test {
namespace {

const QByteArray kId = "00000000000000000000000000000001";
const QByteArray kOtherId = "00000000000000000000000000000002";

class LedgerLogFilesTest : public ::testing::Test {
protected:
    QString databasePath() const { return dir.filePath(QStringLiteral("switchyard.db")); }
    LedgerLogFiles::Opened open(const QByteArray &id = kId)
    {
        auto opened = LedgerLogFiles::open(databasePath(), id);
        if (const QString *refusal = std::get_if<QString>(&opened)) {
            ADD_FAILURE() << refusal->toStdString();
            return {};
        }
        return std::move(std::get<LedgerLogFiles::Opened>(opened));
    }
    // Opens and empties the files, as the store does once it committed what they held.
    std::unique_ptr<LedgerLogFiles> openEmpty(const QByteArray &id = kId)
    {
        LedgerLogFiles::Opened opened = open(id);
        EXPECT_TRUE(opened.files);
        if (!opened.files)
            return nullptr;
        EXPECT_EQ(opened.files->reset(), QString());
        return std::move(opened.files);
    }
    static StoredLedgerEntry entry(quint64 sequence) { return charge(sequence, QStringLiteral("req_%1").arg(sequence)); }
    static qint64 recordBytes()
    {
        QByteArray bytes;
        appendLedgerLogRecord(bytes, entry(1));
        return bytes.size();
    }
    qint64 totalBytes() const
    {
        qint64 bytes = 0;
        for (const QString &path : LedgerLogFiles::paths(databasePath()))
            bytes += QFileInfo(path).size();
        return bytes;
    }

    QTemporaryDir dir;
};

TEST_F(LedgerLogFilesTest, EntriesNotYetCommittedComeBackAtTheNextOpenInOrder)
{
    {
        auto log = openEmpty();
        ASSERT_TRUE(log);
        for (quint64 sequence : {1, 2, 3})
            ASSERT_TRUE(log->append(entry(sequence)));
        log->committed({2});
    }
    // A file is emptied as a whole: the committed entry 2 comes back too (the database ignores a
    // sequence it has), and so do 1 and 3, which it may not have.
    LedgerLogFiles::Opened reopened = open();
    ASSERT_EQ(reopened.recovered.size(), 3u);
    EXPECT_EQ(reopened.recovered[0], entry(1));
    EXPECT_EQ(reopened.recovered[1], entry(2));
    EXPECT_EQ(reopened.recovered[2], entry(3));
    EXPECT_FALSE(reopened.damagedTail);
    EXPECT_EQ(reopened.foreignEntries, 0);
}

TEST_F(LedgerLogFilesTest, AFileWhoseEntriesAreAllCommittedIsEmptied)
{
    auto log = openEmpty();
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append(entry(1)));
    ASSERT_TRUE(log->append(entry(2)));
    EXPECT_EQ(ledgerLogRecordBytes(databasePath()), 2 * recordBytes());
    EXPECT_EQ(log->sizes().unconfirmed, 2);
    log->committed({1, 2, 99});  // 99 was never written here: skipped
    EXPECT_EQ(ledgerLogRecordBytes(databasePath()), 0);
    EXPECT_EQ(log->sizes().bytes[0], kLedgerLogHeaderSize);
    EXPECT_EQ(log->sizes().unconfirmed, 0);
    log.reset();
    EXPECT_TRUE(open().recovered.empty());
}

TEST_F(LedgerLogFilesTest, AnEntryIsWrittenOnceUntilTheDatabaseHasIt)
{
    auto log = openEmpty();
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append(entry(1)));
    EXPECT_TRUE(log->append(entry(1)));
    EXPECT_EQ(ledgerLogRecordBytes(databasePath()), recordBytes());
    log->committed({1});
    EXPECT_EQ(log->sizes().unconfirmed, 0);
}

TEST_F(LedgerLogFilesTest, TheFilesStayBoundedWhileTheDatabaseKeepsUp)
{
    auto log = openEmpty();
    ASSERT_TRUE(log);
    // The database commits in batches of 100, one batch behind the writes.
    constexpr quint64 kEntries = 20'000;
    constexpr quint64 kBatch = 100;
    qint64 largest = 0;
    for (quint64 sequence = 1; sequence <= kEntries; ++sequence) {
        ASSERT_TRUE(log->append(entry(sequence)));
        if (sequence % kBatch == 0 && sequence > kBatch) {
            std::vector<quint64> batch;
            for (quint64 s = sequence - 2 * kBatch + 1; s <= sequence - kBatch; ++s)
                batch.push_back(s);
            log->committed(batch);
        }
        const LedgerLogFiles::Sizes sizes = log->sizes();
        largest = std::max({largest, sizes.bytes[0], sizes.bytes[1]});
    }
    EXPECT_GT(qint64(kEntries) * recordBytes(), 4 * LedgerLogFiles::kRotateBytes)
        << "the test must write several rotations' worth";
    // One file never holds much more than kRotateBytes plus the batch the database is behind.
    EXPECT_LT(largest, LedgerLogFiles::kRotateBytes + 2 * qint64(kBatch) * recordBytes());
    // On disk, each file besides keeps at most one step of room.
    EXPECT_LT(totalBytes(), 2 * (LedgerLogFiles::kRotateBytes + 2 * qint64(kBatch) * recordBytes()
                                 + LedgerLogFiles::kGrowBytes));
    log.reset();
    // Every entry not reported committed comes back (the last batch), and at most what one file
    // holds besides.
    const std::vector<StoredLedgerEntry> recovered = open().recovered;
    ASSERT_GE(recovered.size(), kBatch);
    EXPECT_EQ(recovered.back().sequence, kEntries);
    EXPECT_EQ(recovered[recovered.size() - kBatch].sequence, kEntries - kBatch + 1);
    EXPECT_LT(qint64(recovered.size()), LedgerLogFiles::kRotateBytes / recordBytes() + 2 * qint64(kBatch));
}

TEST_F(LedgerLogFilesTest, WhileTheDatabaseFallsBehindEveryEntryIsKept)
{
    constexpr quint64 kEntries = 6'000;  // several times kRotateBytes
    {
        auto log = openEmpty();
        ASSERT_TRUE(log);
        for (quint64 sequence = 1; sequence <= kEntries; ++sequence)
            ASSERT_TRUE(log->append(entry(sequence)));
        EXPECT_GT(totalBytes(), 2 * LedgerLogFiles::kRotateBytes);
    }
    const LedgerLogFiles::Opened reopened = open();
    ASSERT_EQ(reopened.recovered.size(), kEntries);
    for (quint64 i = 0; i < kEntries; ++i)
        ASSERT_EQ(reopened.recovered[i].sequence, i + 1);
}

TEST_F(LedgerLogFilesTest, ALogOfAnotherDatabaseIsNotReplayedAndIsEmptiedByReset)
{
    {
        auto log = openEmpty(kOtherId);
        ASSERT_TRUE(log);
        ASSERT_TRUE(log->append(entry(1)));
        ASSERT_TRUE(log->append(entry(2)));
    }
    LedgerLogFiles::Opened opened = open(kId);
    EXPECT_TRUE(opened.recovered.empty());
    EXPECT_EQ(opened.foreignEntries, 2);
    ASSERT_EQ(opened.files->reset(), QString());
    for (const QString &path : LedgerLogFiles::paths(databasePath()))
        EXPECT_EQ(fileBytes(path), ledgerLogHeader(kId));
}

TEST_F(LedgerLogFilesTest, ARecordCutShortByTheEndOfAProcessIsDroppedTheOthersKept)
{
    {
        auto log = openEmpty();
        ASSERT_TRUE(log);
        for (quint64 sequence : {1, 2, 3})
            ASSERT_TRUE(log->append(entry(sequence)));
    }
    const QString first = LedgerLogFiles::paths(databasePath()).first();
    ASSERT_TRUE(QFile::resize(first, QFileInfo(first).size() - 5));
    const LedgerLogFiles::Opened reopened = open();
    EXPECT_TRUE(reopened.damagedTail);
    ASSERT_EQ(reopened.recovered.size(), 2u);
    EXPECT_EQ(reopened.recovered[1], entry(2));
}

TEST_F(LedgerLogFilesTest, ASecondOpenWhileTheFilesAreHeldIsRefused)
{
    auto first = openEmpty();
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->append(entry(1)));
    const auto second = LedgerLogFiles::open(databasePath(), kId);
    ASSERT_TRUE(std::holds_alternative<QString>(second)) << "two writers of one log";
    EXPECT_TRUE(std::get<QString>(second).contains(QStringLiteral("in use by another process")))
        << std::get<QString>(second).toStdString();
    EXPECT_EQ(ledgerLogRecordBytes(databasePath()), recordBytes()) << "the refused open changed the files";
    first.reset();
    const LedgerLogFiles::Opened after = open();
    ASSERT_TRUE(after.files) << "the lock goes with the first";
    EXPECT_EQ(after.recovered.size(), 1u);
}

TEST_F(LedgerLogFilesTest, TheFilesAreTheOwnersOnly)
{
    auto log = openEmpty();
    ASSERT_TRUE(log);
    for (const QString &path : LedgerLogFiles::paths(databasePath()))
        EXPECT_EQ(QFileInfo(path).permissions() & 0x0077, QFileDevice::Permissions()) << path.toStdString();
}

TEST_F(LedgerLogFilesTest, AnEntryTheFileCannotGrowForIsRefusedAndLeavesNothing)
{
    auto log = openEmpty();
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append(entry(1)));
    const QString active = LedgerLogFiles::paths(databasePath()).first();
    ASSERT_EQ(QFileInfo(active).size(), LedgerLogFiles::kGrowBytes) << "the first record gives the file its room";

    // A file-size limit at the room's end: the entries that fit in the room are taken, the first
    // that needs more is refused (posix_fallocate fails with EFBIG).
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit tight = old;
    tight.rlim_cur = rlim_t(LedgerLogFiles::kGrowBytes);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tight), 0);
    quint64 sequence = 1;
    bool refused = false;
    while (!refused && sequence < quint64(LedgerLogFiles::kGrowBytes / recordBytes()) + 2)
        refused = !log->append(entry(++sequence));
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, previousHandler);

    ASSERT_TRUE(refused) << "every entry was taken under the limit";
    const quint64 refusedSequence = sequence;
    EXPECT_GT(refusedSequence, 2u) << "the room the file had was used";
    EXPECT_EQ(QFileInfo(active).size(), LedgerLogFiles::kGrowBytes) << "a refused growth is undone";
    EXPECT_FALSE(log->sizes().failed);
    EXPECT_TRUE(log->append(entry(refusedSequence + 1))) << "the log is usable again once the file may grow";
    log.reset();
    const LedgerLogFiles::Opened reopened = open();
    EXPECT_FALSE(reopened.damagedTail);
    ASSERT_EQ(reopened.recovered.size(), std::size_t(refusedSequence));  // 1 .. refused-1, refused+1
    for (quint64 i = 0; i + 1 < refusedSequence; ++i)
        ASSERT_EQ(reopened.recovered[i].sequence, i + 1);
    EXPECT_EQ(reopened.recovered.back().sequence, refusedSequence + 1);
}

TEST_F(LedgerLogFilesTest, AProcessKilledLeavesItsRoomWhichReadsAsTheEnd)
{
    // What a killed process leaves: the records, then zeros up to the room's end.
    {
        auto log = openEmpty();
        ASSERT_TRUE(log);
        for (quint64 sequence : {1, 2, 3})
            ASSERT_TRUE(log->append(entry(sequence)));
        const QString active = LedgerLogFiles::paths(databasePath()).first();
        EXPECT_EQ(QFileInfo(active).size(), LedgerLogFiles::kGrowBytes);
        log.reset();  // a clean close cuts the room away
        EXPECT_EQ(QFileInfo(active).size(), kLedgerLogHeaderSize + 3 * recordBytes());
        QFile file(active);
        ASSERT_TRUE(file.open(QIODevice::Append));
        file.write(QByteArray(LedgerLogFiles::kGrowBytes - file.size(), '\0'));
    }
    const LedgerLogFiles::Opened reopened = open();
    EXPECT_FALSE(reopened.damagedTail);
    ASSERT_EQ(reopened.recovered.size(), 3u);
    EXPECT_EQ(reopened.recovered[2], entry(3));
}

} // namespace
} // namespace sy::storage::test
