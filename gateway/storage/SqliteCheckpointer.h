#pragma once
// SqliteCheckpointer: WAL checkpoints on their own thread and connection, off the writer's commit.
// SQLite's automatic checkpoint runs inside the commit that makes the WAL pass ~1,000 pages, with
// an fsync of the database file, and the charged answers waiting for that commit wait for it too
// (docs/benchmarks/storage.md, "Ledger commit figures"). Instead the writer's connection turns the
// automatic checkpoint off and reports the WAL's size after each commit (attach()); past
// `pages` this object's thread runs a PASSIVE checkpoint on a second connection. In WAL mode
// that runs beside the writer (it copies the frames no reader needs and never blocks a commit);
// once a checkpoint copied every frame, the writer's next transaction starts the WAL over, so the
// file stays bounded as before. The thread is named switchyard-ckpt and runs ten nice steps
// below the writer (BackgroundThread.h): it shares the gateway thread's core and nobody waits
// for it.
//
// Thread: construct, attach() and destroy on the writer's thread; the checkpoints run on a thread
// of this object's own, started by the constructor and joined by stop() or the destructor.
#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>

struct sqlite3;

namespace sy::storage {

class SqliteCheckpointer {
public:
    // `path`: the database file (already in WAL mode). `pages`: the WAL size that asks for one.
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

    // Checkpoints run so far (for tests and the log).
    int checkpoints() const;

private:
    static int onWalCommit(void *self, sqlite3 *db, const char *name, int pages);
    void run();

    const QString m_path;
    const int m_pages;
    const int m_busyTimeoutMs;
    sqlite3 *m_writer = nullptr;  // the writer's thread only

    mutable std::mutex m_mutex;  // guards the three below
    std::condition_variable m_wake;
    bool m_requested = false;
    bool m_stopping = false;
    int m_checkpoints = 0;
    std::thread m_thread;
};

} // namespace sy::storage
