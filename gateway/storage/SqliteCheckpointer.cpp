#include "storage/SqliteCheckpointer.h"

#include "storage/BackgroundThread.h"

#include <QLoggingCategory>

#include <sqlite3.h>

#include <algorithm>
#include <limits>

Q_DECLARE_LOGGING_CATEGORY(lcStorage)

namespace sy::storage {

namespace {

// The checkpoint sequence number in the header of `db`'s WAL (SQLite adds one each time it starts
// the WAL over), or -1 when there is none to read.
qint64 walSequence(sqlite3 *db)
{
    sqlite3_file *wal = nullptr;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK || !wal || !wal->pMethods)
        return -1;
    unsigned char bytes[4] = {};
    if (wal->pMethods->xRead(wal, bytes, 4, 12) != SQLITE_OK)
        return -1;
    return qint64(bytes[0]) << 24 | qint64(bytes[1]) << 16 | qint64(bytes[2]) << 8 | qint64(bytes[3]);
}

} // namespace

SqliteCheckpointer::SqliteCheckpointer(QString path, int pages, int busyTimeoutMs)
    : m_path(std::move(path))
    , m_pages(std::clamp(pages, 1, 1 << 26))  // 1 << 26: "never" (a 256 GiB WAL), and 8 × it fits an int
    , m_busyTimeoutMs(busyTimeoutMs)
    , m_nextRequestAt(m_pages)
    , m_residueAt(hardBoundPages())
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
    m_walSequence = walSequence(writer);
    // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
    sqlite3_wal_hook(writer, &SqliteCheckpointer::onWalCommit, this);
}

int SqliteCheckpointer::onWalCommit(void *self, sqlite3 *db, const char *, int pages)
{
    auto *checkpointer = static_cast<SqliteCheckpointer *>(self);
    // The WAL started over when it shrank. When a checkpoint copied every frame it held after the
    // previous commit, this commit may also have started it over with at least as many frames as
    // it had: then its header says (read only then, a pread of 4 bytes).
    bool restarted = pages < checkpointer->m_walFrames;
    const int copiedAll = checkpointer->m_copiedAll.exchange(-1);
    if (!restarted && copiedAll > 0 && copiedAll == checkpointer->m_walFrames)
        restarted = walSequence(db) != checkpointer->m_walSequence;
    if (restarted) {
        // Count from its start again.
        checkpointer->m_walSequence = walSequence(db);
        checkpointer->m_nextRequestAt = checkpointer->m_pages;
        checkpointer->m_residueAt = checkpointer->hardBoundPages();
    }
    checkpointer->m_walFrames = pages;
    // Once per `pages` frames of growth, not once per commit past `pages`: the WAL does not start
    // over while commits keep coming (see the header), and a checkpoint per commit cost a wake-up
    // and an fsync per commit on the gateway's core.
    if (pages >= checkpointer->m_nextRequestAt) {
        // Past the bound the writer copies the residue (checkpointResidueIfDue), after this one
        // last checkpoint of the thread: a checkpoint of the thread holds the checkpoint lock,
        // and more of them, at its low priority on a busy core, would keep the writer out.
        checkpointer->m_nextRequestAt = pages >= checkpointer->m_residueAt ? std::numeric_limits<int>::max()
                                                                          : pages + checkpointer->m_pages;
        std::lock_guard lock(checkpointer->m_mutex);
        checkpointer->m_requested = true;
        checkpointer->m_wake.notify_one();
    }
    return SQLITE_OK;
}

bool SqliteCheckpointer::checkpointResidueIfDue(bool queueEmpty)
{
    if (!m_writer || m_walFrames < m_residueAt)
        return false;
    // Past the bound by another `pages`, neither a waiting write nor the thread holds it back.
    const bool overdue = m_walFrames >= m_residueAt + m_pages;
    if (!queueEmpty && !overdue)
        return false;
    {
        // The thread is about to copy or copying the bulk (holding the checkpoint lock, so this
        // one would answer SQLITE_BUSY): after a later commit the residue is smaller.
        std::lock_guard lock(m_mutex);
        if ((m_requested || m_running) && !overdue)
            return false;
    }
    int logFrames = 0;
    int copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(m_writer, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied);
    if (rc == SQLITE_BUSY) {
        ++m_writerRefusals;
        return false;  // the thread started one meanwhile: again after the next commit
    }
    ++m_writerCheckpoints;
    if (rc == SQLITE_OK && copied == logFrames)
        m_copiedAll = logFrames;
    if (rc != SQLITE_OK) {
        qCWarning(lcStorage) << "checkpoint of" << m_path << "failed:" << sqlite3_errmsg(m_writer);
    } else if (copied < logFrames) {
        qCDebug(lcStorage) << "a reader holds" << (logFrames - copied) << "WAL frames of" << m_path
                           << "- the WAL cannot start over yet";
    }
    // Not again before another `pages` of growth, whatever kept the WAL from starting over (a
    // reader, an error): each try costs the writer an fsync. Until then the thread copies again.
    m_residueAt = m_walFrames + m_pages;
    m_nextRequestAt = m_walFrames + m_pages;
    return true;
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

int SqliteCheckpointer::writerCheckpoints() const
{
    return m_writerCheckpoints;
}

int SqliteCheckpointer::writerRefusals() const
{
    return m_writerRefusals;
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
            m_running = true;
        }
        if (!db) {
            std::lock_guard lock(m_mutex);
            m_running = false;
            continue;
        }
        int logFrames = 0;
        int copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied);
        if (rc == SQLITE_OK && logFrames < 0) {
            // This connection has not read the database yet, so it does not know it is in WAL
            // mode (the checkpoint was a no-op): one read opens the WAL, then again.
            sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
            rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied);
        }
        if (rc == SQLITE_OK && logFrames > 0 && copied == logFrames)
            m_copiedAll = logFrames;
        if (rc != SQLITE_OK && rc != SQLITE_BUSY)
            qCWarning(lcStorage) << "checkpoint of" << m_path << "failed:" << sqlite3_errmsg(db);
        std::lock_guard lock(m_mutex);
        m_running = false;
        ++m_checkpoints;
    }
    sqlite3_close(db);  // a no-op on null
}

} // namespace sy::storage
