#pragma once
// The bytes of the ledger log (LedgerLogFiles.h). A file starts with a header naming the database
// its entries belong to, then holds one record per ledger entry:
//
//   header  "SYLEDGERLOG1 " + the database's ledger-log id (32 hex digits) + "\n"
//   record  payload length (4 bytes) | FNV-1a 64 of the payload (8 bytes) | payload
//   payload sequence, at (ms since the epoch, UTC), prompt and completion tokens, amount (8 bytes
//           each), then kind, request id, key, model, channel and note (UTF-8, a 4-byte length each)
//
// Integers are little-endian. A record cut short or whose checksum does not match ends what is
// read: it is one the process died while writing, so no caller was told it was durable, and
// nothing was written after it. Zero bytes to the end of the file end what is read too, without
// damage: the room a file is given ahead of its records (LedgerLogFiles.h).
//
// Thread: free functions without state; any thread.
#include "storage/StoredTypes.h"

#include <QByteArray>
#include <QByteArrayView>

#include <optional>
#include <vector>

namespace sy::storage {

// The largest payload written or read; an entry whose texts need more is refused by
// appendLedgerLogRecord (and a length field above it is read as damage).
inline constexpr qsizetype kLedgerLogMaxPayload = 1 << 20;
inline constexpr qsizetype kLedgerLogIdSize = 32;
inline constexpr qsizetype kLedgerLogHeaderSize = 13 + kLedgerLogIdSize + 1;

// The header for `databaseId` (kLedgerLogIdSize characters; see ledgerLogIdIsValid).
QByteArray ledgerLogHeader(const QByteArray &databaseId);
bool ledgerLogIdIsValid(const QByteArray &databaseId);
// The database id the file `bytes` starts with; nothing when it does not start with a header.
std::optional<QByteArray> ledgerLogIdOf(QByteArrayView bytes);

// Appends the record of `entry` to `out`. False, with `out` as it was, when its payload would pass
// kLedgerLogMaxPayload.
bool appendLedgerLogRecord(QByteArray &out, const StoredLedgerEntry &entry);

struct LedgerLogRecords {
    std::vector<StoredLedgerEntry> entries;  // in the order written
    qsizetype validBytes = 0;                // of the bytes read, those of whole, intact records
    bool damaged = false;                    // bytes followed that are not a whole, intact record
};

// The records in `records` (a file's bytes after its header), up to the first that is cut short
// or damaged.
LedgerLogRecords readLedgerLogRecords(QByteArrayView records);

} // namespace sy::storage
