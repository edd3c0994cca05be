#pragma once
// SqliteCheckpointer: WAL checkpoints on their own thread and connection, off the writer's commit.
// SQLite's automatic checkpoint runs inside the commit that makes the WAL pass ~1,000 pages, with
// an fsync of the database file, and the charged answers waiting for that commit wait for it too
// (docs/benchmarks/storage.md, "Ledger commit figures"). Instead the writer's connection turns the
// automatic checkpoint off and reports the WAL's size after each commit (attach()); each time the
// WAL has grown by `pages` frames since the last request (counted afresh once it starts over;
// past the hard bound below, only once), this object's thread runs a PASSIVE checkpoint on a second connection. In WAL mode that runs
// beside the writer (it copies the frames no reader needs and never blocks a commit). The thread
// is named switchyard-ckpt and runs ten nice steps below the writer (BackgroundThread.h): it
// shares the gateway thread's core and nobody waits for it.
//
// Starting the WAL over: SQLite rewinds the WAL only when the writer begins a transaction whose
// snapshot started with every frame already copied. Under steady commits the thread's checkpoint
// (a copy and an fsync, about as long as the gap between two commits) rarely ends inside a gap,
// so the WAL would grow without end. Past the hard bound (four times `pages` without a restart)
// the writer therefore copies the residue itself, between two transactions
// (checkpointResidueIfDue): no commit can run during its own checkpoint, so every frame is then
// copied and its next transaction starts the WAL over. The thread copied the bulk, so that costs
// the writer a few frames and one fsync, once per hard bound's worth of frames.
//
// Thread: construct, attach(), checkpointResidueIfDue() and destroy on the writer's thread; the
// thread's checkpoints run on a thread of this object's own, started by the constructor and
// joined by stop() or the destructor.
#include <QString>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

struct sqlite3;

namespace sy::storage {

class SqliteCheckpointer {
public:
    // `path`: the database file (already in WAL mode). `pages`: the WAL growth (frames) between
    // two checkpoints of the thread; four times it is the hard bound.
    SqliteCheckpointer(QString path, int pages, int busyTimeoutMs);
    ~SqliteCheckpointer();
    SqliteCheckpointer(const SqliteCheckpointer &) = delete;
    SqliteCheckpointer &operator=(const SqliteCheckpointer &) = delete;

    // Turns `writer`'s automatic checkpoint off and has it report its WAL size here after each
    // commit. Detach (stop()) before `writer` closes.
    void attach(sqlite3 *writer);
    // Detaches from the writer, lets a running checkpoint finish, joins the thread and closes the
    // second connection (so that the writer's close is the last one: it checkpoints and removes
    // the WAL). Idempotent.
    void stop();

    // Writer's thread, between two transactions (never inside a commit an answer waits for).
    // When the WAL has passed the hard bound since it last started over (or, after a try that
    // did not start it over, grown by another `pages`), and the thread's checkpoint is neither
    // asked for nor running, runs a PASSIVE checkpoint on the writer's connection, so that
    // its next transaction starts the WAL over. `queueEmpty`: no write waits for the writer
    // now; while writes wait, the checkpoint waits for an empty queue until the WAL has passed
    // the hard bound by another `pages` (under saturation the queue is never empty), and from
    // then on does not wait for the thread either (SQLITE_BUSY while it holds the checkpoint
    // lock: tried again after the next commit). Returns whether it ran one.
    bool checkpointResidueIfDue(bool queueEmpty);

    // Checkpoints run so far by the thread (for tests and the log).
    int checkpoints() const;
    // Writer's thread: checkpoints run so far on the writer's connection by
    // checkpointResidueIfDue().
    int writerCheckpoints() const;
    // Writer's thread: tries of checkpointResidueIfDue() that SQLite refused (SQLITE_BUSY)
    // because the thread's checkpoint held the checkpoint lock; each is followed by a commit
    // that grows the WAL past the bound.
    int writerRefusals() const;
    // The hard bound, in frames.
    int hardBoundPages() const { return 4 * m_pages; }

private:
    static int onWalCommit(void *self, sqlite3 *db, const char *name, int pages);
    void run();

    const QString m_path;
    const int m_pages;
    const int m_busyTimeoutMs;

    // The writer's thread only.
    sqlite3 *m_writer = nullptr;
    int m_walFrames = 0;        // the WAL's frames after the last commit
    int m_nextRequestAt = 0;    // frames at which the thread is asked again
    int m_residueAt = 0;        // frames at which the writer copies the residue
    qint64 m_walSequence = -1;  // the WAL header's checkpoint sequence when last read
    int m_writerCheckpoints = 0;
    int m_writerRefusals = 0;

    // The WAL's frames when a checkpoint last copied all of them; -1 once the writer's next
    // commit looked at it. Set by either thread.
    std::atomic<int> m_copiedAll{-1};

    mutable std::mutex m_mutex;  // guards the four below
    std::condition_variable m_wake;
    bool m_requested = false;
    bool m_running = false;  // the thread's checkpoint holds the checkpoint lock (or is about to)
    bool m_stopping = false;
    int m_checkpoints = 0;
    std::thread m_thread;
};

} // namespace sy::storage
