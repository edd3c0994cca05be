#pragma once
// The read side of SqliteStore: rows to StoredTypes. Each function returns its result or the
// database error. Internal to SqliteStore.
//
// Thread: the thread that owns the connection passed in (the store's worker thread).
#include "storage/StoredTypes.h"

#include <QSqlDatabase>
#include <QVariantList>

#include <optional>
#include <variant>
#include <vector>

namespace sy::storage {

template <class T>
using ReadResult = std::variant<T, QString>;

ReadResult<std::optional<QByteArray>> readConfig(const QSqlDatabase &db);
ReadResult<std::optional<QString>> readMeta(const QSqlDatabase &db, const QString &key);
// At most `limit` entries when `limit` > 0 (Store::ledgerEntries).
ReadResult<std::vector<StoredLedgerEntry>> readLedger(const QSqlDatabase &db, quint64 afterSequence, int limit);
ReadResult<std::vector<StoredRequest>> readRequests(const QSqlDatabase &db, const StoredRequestFilter &filter);

// The SELECT readRequests runs for `filter` and its bound values, in order (for the query plan
// checks of the tests).
struct RequestQuery {
    QString sql;
    QVariantList values;
};
RequestQuery requestQuery(const StoredRequestFilter &filter);
ReadResult<std::optional<StoredRequest>> readRequest(const QSqlDatabase &db, const QByteArray &id);

} // namespace sy::storage
