// switchyard-ledger-bench: what committing each ledger entry before it is shown costs
// (Store::commitLedger, one SQLite transaction per entry, WAL, synchronous=NORMAL), against the
// queued path (appendLedger, committed in batches by the storage thread). Measured on the calling
// thread, as the gateway thread pays it, alone and with request-log records queued meanwhile
// (as a busy gateway does: one record per request, a few hundred bytes of JSON). And the path the
// gateway takes now, Store::commitLedgerLater: what the call costs the calling thread, and how long
// until its answer arrives there (the wait a charged answer has), paced at 1,000 entries a second
// with one record before each, and in bursts (entries that arrive while a commit runs share the
// next transaction). A measurement tool, not a test.
//
//   switchyard-ledger-bench [--entries N] [--dir DIR]
#include "storage/SqliteStore.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace sy::storage;
using Clock = std::chrono::steady_clock;

namespace {

StoredLedgerEntry chargeEntry(quint64 sequence)
{
    return StoredLedgerEntry{sequence, QDateTime::currentDateTimeUtc(), QString::fromLatin1(kLedgerCharge),
                             QStringLiteral("req_%1").arg(sequence), QStringLiteral("bench-key"),
                             QStringLiteral("vendor/model"), QStringLiteral("channel-1"), 120, 48, 1'500, QString()};
}

StoredRequest requestRecord(quint64 n)
{
    const QByteArray id = "req_" + QByteArray::number(n);
    QByteArray json = "{\"id\":\"" + id + "\",\"status\":200,\"trace\":[";
    json += QByteArray(400, 'x');
    json += "]}";
    return StoredRequest{id, QDateTime::currentDateTimeUtc(), QStringLiteral("bench-key"), QStringLiteral("vendor/model"),
                         200, false, json, {}};
}

void report(const char *what, std::vector<double> &us)
{
    std::sort(us.begin(), us.end());
    const auto at = [&](double p) { return us[std::min(us.size() - 1, std::size_t(p * double(us.size())))]; };
    double sum = 0;
    for (double v : us)
        sum += v;
    std::printf("%-44s n=%zu  mean %7.1f us  p50 %7.1f us  p99 %7.1f us  max %8.1f us\n", what, us.size(),
                sum / double(us.size()), at(0.50), at(0.99), us.back());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int entries = 2'000;
    QString dirPath;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--entries"))
            entries = std::max(10, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--dir"))
            dirPath = args[i + 1];
    }
    QTemporaryDir temporary(dirPath.isEmpty() ? QDir::tempPath() + QStringLiteral("/ledger-bench-XXXXXX")
                                              : dirPath + QStringLiteral("/ledger-bench-XXXXXX"));
    auto opened = SqliteStore::open(temporary.filePath(QStringLiteral("bench.db")));
    if (auto *refusal = std::get_if<QString>(&opened)) {
        std::fprintf(stderr, "cannot open the database: %s\n", qPrintable(*refusal));
        return 1;
    }
    auto store = std::move(std::get<std::unique_ptr<SqliteStore>>(opened));
    quint64 sequence = 0;
    quint64 requests = 0;
    const auto timed = [](auto &&work) {
        const auto start = Clock::now();
        work();
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    };

    std::vector<double> queued, committed, committedAfterOne, committedUnderLog;
    for (int i = 0; i < entries; ++i)
        queued.push_back(timed([&] { store->appendLedger(chargeEntry(++sequence)); }));
    store->flush();
    for (int i = 0; i < entries; ++i)
        committed.push_back(timed([&] { store->commitLedger(chargeEntry(++sequence)); }));
    // Request-log records queued between two charges (one per request, as a busy gateway that
    // charges every request; ten, as one that charges one request in ten): the commit takes them.
    for (int i = 0; i < entries; ++i) {
        store->appendRequest(requestRecord(++requests));
        committedAfterOne.push_back(timed([&] { store->commitLedger(chargeEntry(++sequence)); }));
    }
    for (int i = 0; i < entries; ++i) {
        for (int r = 0; r < 10; ++r)
            store->appendRequest(requestRecord(++requests));
        committedUnderLog.push_back(timed([&] { store->commitLedger(chargeEntry(++sequence)); }));
    }
    // commitLedgerLater at 1,000 a second, one request-log record before each, answered on this
    // thread through its event loop (as the gateway thread gets them).
    std::vector<double> laterCall, laterAnswer;
    laterAnswer.reserve(std::size_t(entries));
    for (int i = 0; i < entries; ++i) {
        const auto due = Clock::now() + std::chrono::milliseconds(1);
        store->appendRequest(requestRecord(++requests));
        const auto sent = Clock::now();
        laterCall.push_back(timed([&] {
            store->commitLedgerLater(chargeEntry(++sequence), &app, [&laterAnswer, sent](bool) {
                laterAnswer.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
            });
        }));
        while (Clock::now() < due)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
    }
    store->flush();
    QCoreApplication::sendPostedEvents(&app, QEvent::MetaCall);
    // Bursts of 50 back to back (50 charged answers ending at once): transactions per burst.
    const quint64 transactionsBefore = store->stats().transactions;
    std::vector<double> burstAnswer;
    constexpr int kBurst = 50;
    const int bursts = std::max(1, entries / kBurst);
    for (int b = 0; b < bursts; ++b) {
        const auto sent = Clock::now();
        for (int i = 0; i < kBurst; ++i) {
            store->appendRequest(requestRecord(++requests));
            store->commitLedgerLater(chargeEntry(++sequence), &app, [&burstAnswer, sent](bool) {
                burstAnswer.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
            });
        }
        while (burstAnswer.size() < std::size_t((b + 1) * kBurst))
            QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
    }
    const quint64 burstTransactions = store->stats().transactions - transactionsBefore;

    report("appendLedger (queued, batched)", queued);
    report("commitLedger (committed before return)", committed);
    report("commitLedger, 1 log record queued before", committedAfterOne);
    report("commitLedger, 10 log records queued before", committedUnderLog);
    report("commitLedgerLater: the caller's time", laterCall);
    report("commitLedgerLater: until the answer", laterAnswer);
    report("commitLedgerLater, bursts of 50: until answer", burstAnswer);
    std::printf("bursts of %d: %.1f transactions per burst\n", kBurst, double(burstTransactions) / double(bursts));
    const StoreStats stats = store->stats();
    std::printf("transactions %llu, committed writes %llu, last error '%s'\n",
                static_cast<unsigned long long>(stats.transactions),
                static_cast<unsigned long long>(stats.committedWrites), qPrintable(stats.lastError));
    return 0;
}
