// Money shown is money kept: the real program is killed with SIGKILL right after /admin/ledger
// showed its charges and a top-up; started again on the same files, it still has every entry it
// showed (same sequence, request, amount), the balance matches them, and new charges get sequence
// numbers that were never shown before, so a reader of /admin/ledger?after=SEQ misses none. The
// same holds when another program held the database's write lock all along, so that none of it
// reached the database before the kill: the ledger log kept it.
#include "AdminFixture.h"
#include "DatabaseLock.h"
#include "ProcessFixture.h"
#include "support/Waits.h"

#include <QSet>

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

constexpr double kOpeningBalance = 50;
constexpr int kChargesBeforeKill = 6;

class LedgerDurabilityTest : public ProcessFixture {};

TEST_F(LedgerDurabilityTest, ChargesShownByTheLedgerSurviveAKillAndSequencesNeverRepeat)
{
    writeConfig(kOpeningBalance);
    startGateway();
    ASSERT_EQ(admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", 5}, {"note", "before the kill"}})->status(), 200);
    for (int i = 0; i < kChargesBeforeKill; ++i)
        ASSERT_EQ(chat(chatBody())->status(), 200);
    // Read, then kill at once: whatever the ledger showed must already be on disk.
    const QJsonArray shown = adminList("/admin/ledger");
    gateway.killHard();
    ASSERT_FALSE(gateway.isRunning());
    ASSERT_EQ(shown.size(), kChargesBeforeKill + 1) << "the top-up and one charge per answered request";

    startGateway();
    const QJsonArray kept = adminList("/admin/ledger");
    ASSERT_GE(kept.size(), shown.size());
    quint64 highestShown = 0;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const QJsonObject before = shown.at(i).toObject();
        EXPECT_EQ(kept.at(i).toObject(), before) << "entry " << i << " changed or was lost in the kill";
        highestShown = std::max(highestShown, quint64(before.value("sequence").toDouble()));
    }

    qint64 charges = 0;
    for (const QJsonValue &value : kept)
        if (value.toObject().value("kind").toString() == QLatin1String("charge"))
            charges += parseNanos(value.toObject().value("amount").toString());
    EXPECT_EQ(parseNanos(adminObject("/admin/balance").value("balance").toString()),
              qint64((kOpeningBalance + 5) * 1e9) - charges);

    // New charges continue above everything shown before the kill, each under its own number.
    ASSERT_EQ(chat(chatBody())->status(), 200);
    ASSERT_EQ(chat(chatBody())->status(), 200);
    const QJsonArray after = adminList("/admin/ledger?after=" + QByteArray::number(highestShown));
    ASSERT_EQ(after.size(), 2);
    QSet<quint64> sequences;
    QSet<QString> requests;
    for (const QJsonValue &value : kept) {
        sequences.insert(quint64(value.toObject().value("sequence").toDouble()));
        requests.insert(value.toObject().value("request_id").toString());
    }
    for (const QJsonValue &value : after) {
        const QJsonObject entry = value.toObject();
        const quint64 sequence = quint64(entry.value("sequence").toDouble());
        EXPECT_GT(sequence, highestShown);
        EXPECT_FALSE(sequences.contains(sequence)) << "sequence " << sequence << " issued twice";
        EXPECT_FALSE(requests.contains(entry.value("request_id").toString()));
        sequences.insert(sequence);
    }
    // And the whole ledger, read again, is what was shown plus the new charges.
    const QJsonArray whole = adminList("/admin/ledger");
    ASSERT_EQ(whole.size(), kept.size() + 2);
    EXPECT_EQ(whole.last().toObject(), after.last().toObject());
}

TEST_F(LedgerDurabilityTest, ChargesAnsweredWhileTheDatabaseWasLockedSurviveAKill)
{
    writeConfig(kOpeningBalance);
    startGateway();
    DatabaseLock lock(databasePath());
    ASSERT_TRUE(lock.lock());
    ASSERT_EQ(admin("POST", "/admin/balance/top-up", QJsonObject{{"amount", 5}, {"note", "while locked"}})->status(), 200);
    for (int i = 0; i < kChargesBeforeKill; ++i) {
        const auto answer = chat(chatBody(i % 2 == 1));
        ASSERT_EQ(answer->status(), 200) << answer->body().constData();
    }
    const QJsonArray shown = adminList("/admin/ledger");
    const QJsonObject balanceShown = adminObject("/admin/balance");
    gateway.killHard();
    ASSERT_EQ(shown.size(), kChargesBeforeKill + 1) << "the top-up and one charge per answered request";
    ASSERT_TRUE(lock.release());

    startGateway();
    const QJsonArray kept = adminList("/admin/ledger");
    ASSERT_EQ(kept.size(), shown.size());
    for (qsizetype i = 0; i < shown.size(); ++i)
        EXPECT_EQ(kept.at(i).toObject(), shown.at(i).toObject()) << "entry " << i << " changed or was lost in the kill";
    EXPECT_EQ(adminObject("/admin/balance").value("balance"), balanceShown.value("balance"));
    ASSERT_EQ(chat(chatBody())->status(), 200);
    const QJsonArray after = adminList("/admin/ledger?after=" + QByteArray::number(kept.last().toObject().value("sequence").toInteger()));
    ASSERT_EQ(after.size(), 1) << "a sequence number was given twice";
}

} // namespace
} // namespace sy::system_test
