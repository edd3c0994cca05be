#include "storage/SqliteCheckpointer.h"

#include "storage/BackgroundThread.h"

#include <QLoggingCategory>

#include <sqlite3.h>

Q_DECLARE_LOGGING_CATEGORY(lcStorage)

namespace sy::storage {

SqliteCheckpointer::SqliteCheckpointer(QString path, int pages, int busyTimeoutMs)
    : m_path(std::move(path)), m_pages(pages), m_busyTimeoutMs(busyTimeoutMs)
{
    m_thread = std::thread([this] { run(); });
}

SqliteCheckpointer::~SqliteCheckpointer()
{
    stop();
}

void SqliteCheckpointer::attach(sqlite3 *writer)
{
    m_writer = writer;
    // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
    sqlite3_wal_hook(writer, &SqliteCheckpointer::onWalCommit, this);
}

int SqliteCheckpointer::onWalCommit(void *self, sqlite3 *, const char *, int pages)
{
    auto *checkpointer = static_cast<SqliteCheckpointer *>(self);
    if (pages >= checkpointer->m_pages) {
        std::lock_guard lock(checkpointer->m_mutex);
        checkpointer->m_requested = true;
        checkpointer->m_wake.notify_one();
    }
    return SQLITE_OK;
}

void SqliteCheckpointer::stop()
{
    if (m_writer) {
        sqlite3_wal_hook(m_writer, nullptr, nullptr);
        m_writer = nullptr;
    }
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_wake.notify_one();
    }
    if (m_thread.joinable())
        m_thread.join();
}

int SqliteCheckpointer::checkpoints() const
{
    std::lock_guard lock(m_mutex);
    return m_checkpoints;
}

void SqliteCheckpointer::run()
{
    nameCurrentThread("switchyard-ckpt");
    // Nobody waits for a checkpoint (the writer goes on beside it), and it shares the gateway
    // thread's core: the gateway thread goes first (BackgroundThread.h).
    lowerCurrentThreadPriority();
    sqlite3 *db = nullptr;
    const QByteArray path = m_path.toUtf8();
    if (sqlite3_open_v2(path.constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        qCWarning(lcStorage) << "cannot open a checkpoint connection to" << m_path << ":" << sqlite3_errmsg(db)
                             << "- the WAL is checkpointed when the database closes";
        sqlite3_close(db);
        db = nullptr;
    } else {
        sqlite3_busy_timeout(db, m_busyTimeoutMs);
    }
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_requested || m_stopping; });
            if (m_stopping)
                break;
            m_requested = false;
        }
        if (!db)
            continue;
        int logFrames = 0;
        int copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied);
        if (rc == SQLITE_OK && logFrames < 0) {
            // This connection has not read the database yet, so it does not know it is in WAL
            // mode (the checkpoint was a no-op): one read opens the WAL, then again.
            sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
            rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied);
        }
        if (rc != SQLITE_OK && rc != SQLITE_BUSY)
            qCWarning(lcStorage) << "checkpoint of" << m_path << "failed:" << sqlite3_errmsg(db);
        std::lock_guard lock(m_mutex);
        ++m_checkpoints;
    }
    sqlite3_close(db);  // a no-op on null
}

} // namespace sy::storage
