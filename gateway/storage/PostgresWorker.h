#pragma once
// PostgresWorker: PostgresStore's half on its storage thread — the one connection to the server,
// the queue of writes and its flush timer, retention, the reservations this gateway holds and
// their lease, and reconnection: a connection that failed is dropped and opened again on the
// next use, so a restarted server is picked up without restarting the gateway. Internal to
// PostgresStore.
//
// Thread: constructed on any thread, then moved to the storage thread. Methods marked "any
// thread" take the mutex; all others run on the storage thread only.
#include "storage/PostgresStore.h"
#include "storage/SqliteReads.h"
#include "storage/SqliteWrites.h"

#include <QObject>
#include <QSet>
#include <QSqlDatabase>
#include <QTimer>

#include <chrono>
#include <mutex>
#include <optional>

namespace sy::storage {

class PostgresWorker final : public QObject {
public:
    PostgresWorker(PostgresAddress address, const PostgresStoreOptions &options);
    ~PostgresWorker() override;

    // Connects, migrates and starts the timer. The refusal (the server's own words), or empty.
    QString open();
    // Commits the queue, gives back the reservations still held, closes the connection.
    void close();

    // Any thread.
    void enqueue(WriteOp op);
    void enqueueRelease(quint64 id);
    void setRetention(RetentionPolicy policy);
    StoreStats stats() const;
    const QString &instanceId() const { return m_instanceId; }

    bool commitPending();
    int applyRetentionNow();
    SharedAdmission reserve(const StoredReservation &reservation);
    std::optional<StoredConfigVersion> configVersion();

    // Commits the queue, then runs `read` on the connection; an error is recorded (stats()) and
    // yields an empty T.
    template <class T, class Read>
    T readAfterCommit(Read &&read)
    {
        commitPending();
        if (!ensureConnected())
            return T{};
        ReadResult<T> result = read(static_cast<const QSqlDatabase &>(m_db));
        if (const QString *error = std::get_if<QString>(&result)) {
            recordError(*error);
            checkConnection();
            return T{};
        }
        return std::move(std::get<T>(result));
    }

private:
    // Opens the connection when there is none; false (error recorded) when the server refuses.
    bool ensureConnected();
    std::optional<QString> connect();
    // After a failed statement: drops the connection when it no longer answers.
    void checkConnection();
    void closeConnection();
    std::optional<QString> writeBatch(const std::vector<WriteOp> &batch, BatchOutcome &outcome);
    bool releasePending();
    void renewLeases();
    void onTimer();
    void recordError(const QString &error);
    QString reservationKey(quint64 id) const;

    const PostgresAddress m_address;
    const PostgresStoreOptions m_options;
    const QString m_connectionName;
    const QString m_instanceId;  // random per open store: names its reservations and entries

    mutable std::mutex m_mutex;  // guards the members up to m_retentionChanged
    std::vector<WriteOp> m_pending;
    std::size_t m_inFlight = 0;
    bool m_wakePosted = false;
    std::vector<quint64> m_releases;  // reservations to end without a charge
    StoreStats m_stats;
    RetentionPolicy m_retention;
    bool m_retentionChanged = false;

    // Storage thread only.
    QSqlDatabase m_db;
    bool m_connected = false;
    QSet<quint64> m_held;  // reserved here and not yet ended: their lease is renewed
    QTimer *m_timer = nullptr;
    std::optional<std::chrono::steady_clock::time_point> m_lastRetention;
    std::optional<std::chrono::steady_clock::time_point> m_lastRenewal;
    std::optional<std::chrono::steady_clock::time_point> m_lastConnectFailure;
};

} // namespace sy::storage
