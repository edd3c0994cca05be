#pragma once
// The write side of SqliteStore: a batch of queued items in one transaction, and the retention of
// the request log. Internal to SqliteStore.
//
// Thread: the thread that owns the connection passed in (the store's worker thread).
#include "storage/StoredTypes.h"

#include <QSqlDatabase>
#include <QStringList>

#include <variant>
#include <vector>

namespace sy::storage {

struct ConfigWrite {
    QByteArray json;
    QDateTime at;  // when saveConfig was called (updated_at)
};

struct MetaWrite {
    QString key;
    QString value;
};

using WriteOp = std::variant<StoredLedgerEntry, StoredRequest, ConfigWrite, MetaWrite>;

struct BatchOutcome {
    quint64 ignoredLedgerEntries = 0;  // INSERT OR IGNORE skipped them: already booked
    QStringList ignoredSamples;        // the first few of them, "sequence N, request R", for the log
    quint64 rejected = 0;              // invalid items, dropped
};

// Writes `ops` in order in one transaction. Ledger entries go in with INSERT OR IGNORE, so a
// duplicate charge (or sequence) is skipped and reported, never fails the batch; requests, the
// configuration and meta values replace what was there. On a database error the transaction is
// rolled back and the message returned: none of `ops` was written.
std::variant<BatchOutcome, QString> writeBatch(QSqlDatabase &db, const std::vector<WriteOp> &ops);

struct RetentionPolicy {
    int maxAgeDays = 0;  // ≤ 0: no age bound
    int maxCount = 0;    // ≤ 0: no count bound
};

// Deletes the requests older than `maxAgeDays` before `nowUtc` and all but the `maxCount` newest,
// in one transaction. Returns the number deleted, or the error (nothing deleted).
std::variant<int, QString> trimRequestLog(QSqlDatabase &db, RetentionPolicy policy, const QDateTime &nowUtc);

} // namespace sy::storage
