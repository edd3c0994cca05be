#pragma once
// LedgerLogFiles: where SqliteStore makes a ledger entry durable at once, on the caller's thread,
// without waiting for the database. Two append-only files beside the database (paths()), owner-
// only, in LedgerLogRecord.h's format. append() copies an entry into the active file's shared
// memory mapping, without a system call: the page cache holds it from then on, so once append()
// returned true the entry survives the process being killed, as a commit with
// synchronous=NORMAL does (a power loss may take back the last writes of both). The store's
// thread then commits the entry to the database with its next batch and reports it here
// (committed()); a file whose entries are all in the database is emptied to its header.
//
// Room. A file is given room ahead of its records, kGrowBytes at a time, with posix_fallocate, so
// the disk blocks exist before a record is copied (a full disk refuses the growth, where a sparse
// mapping would fault). The room is zeros, which end what is read (LedgerLogRecord.h). A file
// that cannot grow refuses the entry, and the caller makes it durable another way. Emptying
// writes zeros over the records and keeps the room, up to kKeptRoomBytes (a file that grew past it
// while the database fell behind is cut back); a clean close cuts a file back to what it holds.
//
// Bounded: appends go to the active file; once it holds kRotateBytes or more and the other file
// is empty, the other becomes the active one. So while the database keeps up, neither file grows
// much past kRotateBytes; while it does not (locked, full), the active file keeps every entry the
// database does not have yet.
//
// At open, the entries still in either file (the process died before the database had them) are
// handed back (Opened::recovered) for the store to commit before anything reads the ledger; only
// then does reset() empty the files. A file written for another database (its header names
// another id: the database was replaced, the log left behind) is not replayed; its entries are
// counted in Opened::foreignEntries, and reset() empties it.
//
// One process at a time: open() locks both files (flock) and refuses while another process holds
// them (two gateways on one database file).
//
// Thread: open() and reset() before the object is shared; then append() and committed() from
// any thread (one mutex, held across the write).
#include "storage/StoredTypes.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sy::storage {

class LedgerLogFiles {
public:
    struct Opened {
        std::unique_ptr<LedgerLogFiles> files;
        std::vector<StoredLedgerEntry> recovered;  // by sequence, each once
        qsizetype foreignEntries = 0;              // in files of another database: not recovered
        bool damagedTail = false;                  // a record cut short by the end of a process
    };

    // The two files of the database at `databasePath`.
    static QStringList paths(const QString &databasePath);
    // Opens (creates, 0600) both files and reads what they hold; `databaseId` is the database's
    // ledger-log id (ledgerLogIdIsValid). The refusal names the file and the system's reason.
    static std::variant<Opened, QString> open(const QString &databasePath, const QByteArray &databaseId);
    ~LedgerLogFiles();
    LedgerLogFiles(const LedgerLogFiles &) = delete;
    LedgerLogFiles &operator=(const LedgerLogFiles &) = delete;

    // Empties both files to a header naming this database. Call once the recovered entries are
    // committed. Returns the refusal, or an empty string.
    QString reset();

    // Writes `entry` to the active file. True once it is there, and also for an entry written
    // before and not yet reported committed (it is not written twice). False when the file could
    // not be given room for it or the entry is too large (LedgerLogRecord.h): the file holds what
    // it held, and the caller must make the entry durable another way.
    bool append(const StoredLedgerEntry &entry);
    // The entries numbered `sequences` are in the database (committed, or ignored as already
    // there); numbers not written here are skipped.
    void committed(const std::vector<quint64> &sequences);

    // At a clean close: when every entry written is in the database, closes and deletes both
    // files (the next open makes them again) and returns true; append() then refuses. Else
    // leaves them for the next open.
    bool removeIfAllCommitted();

    // The active file passes this size before appends move to the other (when it is empty).
    static constexpr qint64 kRotateBytes = 256 * 1024;
    // The room a file is given at a time (a multiple of the page size), and the most an emptied
    // file keeps.
    static constexpr qint64 kGrowBytes = 64 * 1024;
    static constexpr qint64 kKeptRoomBytes = 2 * kRotateBytes;

    struct Sizes {
        qint64 bytes[2] = {0, 0};   // what each file holds, its header included (not its room)
        int unconfirmed = 0;        // entries written and not yet reported committed
        bool failed = false;        // the files are closed (removeIfAllCommitted): append() refuses
    };
    Sizes sizes() const;

private:
    struct File {
        int fd = -1;
        QString path;
        qint64 size = 0;      // bytes written, the header included
        qint64 length = 0;    // the file's length: size and the room after it
        char *map = nullptr;  // MAP_SHARED from offset 0, `mapped` bytes (>= length once used)
        qint64 mapped = 0;
        int unconfirmed = 0;  // entries in it the database does not have yet
    };
    LedgerLogFiles(const QByteArray &databaseId);
    // Under m_mutex (or before sharing).
    bool empty(File &file);
    bool makeRoom(File &file, qint64 bytes);  // false with errno set
    static void close(File &file);  // cut back to its size, unmapped, closed

    const QByteArray m_header;
    mutable std::mutex m_mutex;
    File m_files[2];
    int m_active = 0;
    std::unordered_map<quint64, int> m_fileOf;  // unconfirmed entries: sequence -> file
    QByteArray m_record;                        // the record being written (capacity kept)
    bool m_failed = false;
};

} // namespace sy::storage
