#pragma once
// Plain data the Store reads and writes. The storage layer knows nothing of the other layers'
// types: the service maps its own (billing::LedgerEntry, service::RequestRecord, the configuration)
// to these and back. Values, copyable, no behaviour.
#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <optional>

namespace sy::storage {

// Keys of the `meta` table that the program itself uses.
inline constexpr char kMetaSchemaVersion[] = "schema_version";        // owned by the store: read-only
inline constexpr char kMetaOpeningBalanceNanos[] = "opening_balance_nanos";
inline constexpr char kMetaAdminTokenSha256[] = "admin_token_sha256";
// Owned by SqliteStore: names the database in its ledger log's headers (LedgerLogFiles.h).
inline constexpr char kMetaLedgerLogId[] = "ledger_log_id";

// Ledger entry kinds, as stored.
inline constexpr char kLedgerCharge[] = "charge";
inline constexpr char kLedgerTopUp[] = "topup";

// One booked movement of the balance (a row of `ledger`).
struct StoredLedgerEntry {
    quint64 sequence = 0;       // the ledger's booking order, 1, 2, 3, …; unique
    QDateTime at;               // wall time of booking, UTC (stored to the millisecond)
    QString kind;               // kLedgerCharge | kLedgerTopUp; anything else is rejected
    QString requestId;          // charges: the request charged (a charge per request id, at most)
    QString keyName;
    QString modelId;
    QString channelId;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 amountNanos = 0;     // ≥ 0 for both kinds, in 1e-9 workspace currency units
    QString note;
    // Shared mode: the reservation (StoredReservation::id) a charge ends, 0 for none. Not stored;
    // read back as 0. A store that is not shared ignores it.
    quint64 reservation = 0;

    friend bool operator==(const StoredLedgerEntry &, const StoredLedgerEntry &) = default;
};

// One request of the request log (a row of `request_log`). The columns the admin API filters on
// are copied out of the record; `json` is the whole record and is returned byte for byte.
struct StoredRequest {
    QByteArray id;              // the request id (x-request-id); unique, a second write replaces
    QDateTime at;               // when the request arrived, UTC (stored to the millisecond)
    QString keyName;            // empty when authentication failed
    QString model;              // the model the client asked for
    int status = 0;             // HTTP status sent
    bool failedOver = false;
    QByteArray json;            // the full record as JSON (UTF-8)
    // The request's message contents as JSON (UTF-8), only when content logging is on; empty =
    // none. Stored in its own column: returned by request(id), left empty by queryRequests().
    QByteArray content;

    friend bool operator==(const StoredRequest &, const StoredRequest &) = default;
};

// Which requests queryRequests returns: all conditions hold; newest first.
struct StoredRequestFilter {
    QString keyName;                  // empty = any key
    QString model;                    // empty = any model (matches StoredRequest::model)
    std::optional<int> status;        // exact HTTP status
    bool failedOnly = false;          // status >= 400
    std::optional<bool> failedOver;
    int limit = 100;                  // clamped to 1 … kMaxLimit
    QDateTime beforeAt;               // invalid = no bound; else only requests with at < beforeAt
                                      // (page by passing the oldest `at` of the previous page;
                                      // requests sharing that exact millisecond are skipped)
    static constexpr int kMaxLimit = 10'000;
};

// --- Shared mode (a database several gateways use at once: PostgresStore).

// One request's reservation of money, decided in the database over every gateway's reservations
// (SPEC §8's admission): admitted while the opening balance + top-ups − charges − unexpired
// reservations is above zero, and likewise the key's spend limit − its charges − its reservations.
struct StoredReservation {
    quint64 id = 0;                               // the gateway's reservation id; unique per open store
    QString keyName;
    qint64 estimateNanos = 0;
    std::optional<qint64> openingBalanceNanos;    // the workspace's opening balance; nullopt: unmetered
    std::optional<qint64> spendLimitNanos;        // the key's spend limit; nullopt: none
};

enum class SharedAdmission {
    Admitted,
    InsufficientBalance,
    SpendLimitReached,
    Unavailable,  // the database did not answer: nothing was reserved
};

// Which write of the configuration document the database holds.
struct StoredConfigVersion {
    qint64 version = 0;        // grows with every saveConfig of any gateway; 0: no document
    bool writtenHere = false;  // the last write came from this store (this gateway)
};

// Counters of a store since it was opened, for logs, metrics and tests.
struct StoreStats {
    quint64 committedWrites = 0;       // items committed (ignored duplicates included)
    quint64 transactions = 0;          // write transactions committed
    quint64 ignoredLedgerEntries = 0;  // a charge for an already charged request id, or a known sequence
    quint64 rejectedWrites = 0;        // invalid items dropped: unknown ledger kind, reserved meta key
    quint64 failedTransactions = 0;    // write transactions rolled back (their items are retried)
    quint64 retentionDeleted = 0;      // request log rows deleted by retention
    quint64 pendingWrites = 0;         // enqueued, not yet committed
    quint64 pendingRequests = 0;       // of which request-log rows
    quint64 droppedRequests = 0;       // request-log rows not queued: the queue held its bound
    quint64 walCheckpoints = 0;        // SQLite: WAL checkpoints run (its thread's and the writer's)
    QString lastError;                 // the last database error, empty if none
};

} // namespace sy::storage
