// The ledger log's bytes: every field of an entry comes back as written; reading stops at a
// record cut short or damaged, keeping the ones before it; the header names the database.
#include "StorageTestSupport.h"
#include "storage/LedgerLogRecord.h"

namespace sy::storage::test {
namespace {

const QByteArray kId = "0123456789abcdef0123456789abcdef";

QByteArray recordsOf(const std::vector<StoredLedgerEntry> &entries)
{
    QByteArray bytes;
    for (const StoredLedgerEntry &entry : entries)
        EXPECT_TRUE(appendLedgerLogRecord(bytes, entry));
    return bytes;
}

TEST(LedgerLogRecordTest, EveryFieldComesBackAsWritten)
{
    StoredLedgerEntry unusual = charge(7, QStringLiteral("req_ü–7"), 123'456'789'012);
    unusual.keyName = QStringLiteral("clé 🔑");
    unusual.note = QStringLiteral("line one\nline two\0three");
    unusual.promptTokens = -1;
    unusual.completionTokens = std::numeric_limits<qint64>::max();
    unusual.at = QDateTime::fromMSecsSinceEpoch(1'733'000'000'123, Qt::UTC);
    StoredLedgerEntry timeless = topUp(8, 5'000'000'000, QString());
    timeless.at = QDateTime();
    const std::vector<StoredLedgerEntry> written{charge(1, QStringLiteral("req_1")), unusual, timeless};

    const QByteArray bytes = recordsOf(written);
    const LedgerLogRecords read = readLedgerLogRecords(bytes);
    EXPECT_FALSE(read.damaged);
    EXPECT_EQ(read.validBytes, bytes.size());
    ASSERT_EQ(read.entries.size(), written.size());
    for (std::size_t i = 0; i < written.size(); ++i)
        EXPECT_EQ(read.entries[i], written[i]) << "entry " << i;
    EXPECT_FALSE(read.entries[2].at.isValid());
}

TEST(LedgerLogRecordTest, ARecordCutShortEndsTheReadAndKeepsTheOnesBefore)
{
    const QByteArray whole = recordsOf({charge(1, QStringLiteral("req_1")), charge(2, QStringLiteral("req_2"))});
    const qsizetype firstEnds = readLedgerLogRecords(recordsOf({charge(1, QStringLiteral("req_1"))})).validBytes;
    for (const qsizetype cut : {firstEnds + 1, firstEnds + 11, whole.size() - 1}) {
        const LedgerLogRecords read = readLedgerLogRecords(QByteArrayView(whole).first(cut));
        EXPECT_TRUE(read.damaged) << "cut at " << cut;
        ASSERT_EQ(read.entries.size(), 1u) << "cut at " << cut;
        EXPECT_EQ(read.entries[0], charge(1, QStringLiteral("req_1")));
        EXPECT_EQ(read.validBytes, firstEnds);
    }
}

TEST(LedgerLogRecordTest, ZerosToTheEndAreRoomNotDamage)
{
    const QByteArray two = recordsOf({charge(1, QStringLiteral("req_1")), charge(2, QStringLiteral("req_2"))});
    const LedgerLogRecords read = readLedgerLogRecords(two + QByteArray(4096, '\0'));
    EXPECT_FALSE(read.damaged);
    ASSERT_EQ(read.entries.size(), 2u);
    EXPECT_EQ(read.validBytes, two.size());
    EXPECT_FALSE(readLedgerLogRecords(QByteArray(3, '\0')).damaged) << "fewer zeros than a record head";

    // A record whose head is still zero but whose later bytes were written: cut short, not room.
    QByteArray torn = two;
    const qsizetype firstEnds = readLedgerLogRecords(recordsOf({charge(1, QStringLiteral("req_1"))})).validBytes;
    std::fill(torn.begin() + firstEnds, torn.begin() + firstEnds + 12, '\0');
    const LedgerLogRecords tornRead = readLedgerLogRecords(torn);
    EXPECT_TRUE(tornRead.damaged);
    EXPECT_EQ(tornRead.entries.size(), 1u);
}

TEST(LedgerLogRecordTest, ADamagedRecordEndsTheRead)
{
    QByteArray bytes = recordsOf({charge(1, QStringLiteral("req_1")), charge(2, QStringLiteral("req_2")),
                                  charge(3, QStringLiteral("req_3"))});
    const qsizetype firstEnds = readLedgerLogRecords(recordsOf({charge(1, QStringLiteral("req_1"))})).validBytes;
    bytes[firstEnds + 30] = char(bytes[firstEnds + 30] ^ 0x01);  // inside the second payload
    const LedgerLogRecords read = readLedgerLogRecords(bytes);
    EXPECT_TRUE(read.damaged);
    ASSERT_EQ(read.entries.size(), 1u);
    EXPECT_EQ(read.entries[0].sequence, 1u);

    QByteArray hugeLength = recordsOf({charge(1, QStringLiteral("req_1"))});
    hugeLength[3] = char(0x7f);  // a length far past kLedgerLogMaxPayload
    EXPECT_TRUE(readLedgerLogRecords(hugeLength).damaged);
    EXPECT_TRUE(readLedgerLogRecords(hugeLength).entries.empty());
}

TEST(LedgerLogRecordTest, AnEntryTooLargeIsRefusedAndNothingIsAppended)
{
    StoredLedgerEntry large = topUp(1, 1);
    large.note = QString(int(kLedgerLogMaxPayload), QLatin1Char('x'));
    QByteArray bytes = "before";
    EXPECT_FALSE(appendLedgerLogRecord(bytes, large));
    EXPECT_EQ(bytes, QByteArray("before"));
}

TEST(LedgerLogRecordTest, TheHeaderNamesTheDatabase)
{
    const QByteArray header = ledgerLogHeader(kId);
    EXPECT_EQ(header.size(), kLedgerLogHeaderSize);
    EXPECT_EQ(ledgerLogIdOf(header + recordsOf({charge(1, QStringLiteral("req_1"))})), kId);
    EXPECT_EQ(ledgerLogIdOf(header.first(kLedgerLogHeaderSize - 1)), std::nullopt);
    EXPECT_EQ(ledgerLogIdOf(QByteArray("SQLite format 3").leftJustified(100, '\0')), std::nullopt);
    QByteArray upper = ledgerLogHeader(kId.toUpper());
    EXPECT_EQ(ledgerLogIdOf(upper), std::nullopt) << "ids are lower-case hex";
    EXPECT_FALSE(ledgerLogIdIsValid("0123"));
}

} // namespace
} // namespace sy::storage::test
